/**
 * `make soak`: random lifecycles of every resource against the simulator with injected faults and
 * interrupted runs, driven through the built provider as the Pulumi engine drives it; after every phase
 * the simulator's truth is compared with the modelled state. Prints one summary line and exits non-zero
 * when anything was orphaned, duplicated, leaked, reported as success while in Error, lost, left not as declared
 * by an up that succeeded (or drifting right after it), or left undestroyable.
 *
 * Options: USAGE below (`--help` prints it).
 *
 * Each lifecycle's simulator plays a host profile drawn by its seed (hosts.ts: half the default host, the others wire
 * variants such as Indonesian status words or operation_flag always 0); `--host` gives every lifecycle one profile,
 * `--skip-host` never draws the variants named.
 *
 * Each failing lifecycle is printed with its seed and trace (phases, faults, provider errors, findings).
 */
import { FAULT_CLASSES, SOAK_FEATURES, type FaultClass, type SoakFeature } from "./lifecycle";
import { HOST_VARIANTS, parseHostFlag, type HostVariant } from "./hosts";
import { clean, runSoak, summaryLine } from "./runner";
import { exitWithUsage, parseToolArgs } from "../cli-args";

const USAGE = `usage: node dist/tools/soak/index.js [--seed S] [--lifecycles N] [--first I] [--lanes N] [--faults a,b]
         [--skip feature,...] [--op-seconds S] [--time-warp F] [--timeout 60s] [--verbose]
         [--host default|<variant>+<variant>...] [--skip-host variant,...]
  fault classes: ${FAULT_CLASSES.join(", ")}
  features (--skip): ${SOAK_FEATURES.join(", ")}
  host variants: ${HOST_VARIANTS.join(", ")}
  A failing lifecycle <seed>-<i> runs alone with --seed <seed> --first <i> --lifecycles 1 (same host drawn).`;

async function main(): Promise<void> {
  const values = parseToolArgs("soak", USAGE, {
    seed: { type: "string", default: "soak" },
    lifecycles: { type: "string", default: "600" },
    first: { type: "string", default: "0" },
    lanes: { type: "string", default: "12" },
    faults: { type: "string" },
    skip: { type: "string" },
    "op-seconds": { type: "string", default: "2" },
    "time-warp": { type: "string", default: "40" },
    timeout: { type: "string", default: "30s" },
    verbose: { type: "boolean", default: false },
    host: { type: "string" },
    "skip-host": { type: "string" },
  });
  /** The comma-separated `value` as members of `valid`; any other word stops the soak naming it. */
  const listOf = <T extends string>(value: string | undefined, valid: readonly T[], what: string): T[] =>
    (value ?? "").split(",").filter(Boolean).map((v) => {
      if (!(valid as readonly string[]).includes(v)) exitWithUsage("soak", USAGE, `unknown ${what} ${v} (one of ${valid.join(", ")})`);
      return v as T;
    });
  const faultClasses = values.faults === undefined ? undefined : listOf<FaultClass>(values.faults, FAULT_CLASSES, "fault class");
  const skip = listOf<SoakFeature>(values.skip, SOAK_FEATURES, "feature");
  let host: HostVariant[] | undefined;
  try {
    host = values.host === undefined ? undefined : parseHostFlag(values.host);
  } catch (error) {
    exitWithUsage("soak", USAGE, `--host: ${error instanceof Error ? error.message : String(error)}`);
  }
  const skipHost = listOf<HostVariant>(values["skip-host"], HOST_VARIANTS, "host variant");
  const count = (name: "lifecycles" | "first" | "lanes", min: number): number => {
    const n = Number(values[name]);
    return Number.isInteger(n) && n >= min ? n : exitWithUsage("soak", USAGE, `--${name}: "${values[name]}" is not a whole number of at least ${min}`);
  };
  const positive = (name: "op-seconds" | "time-warp"): number => {
    const n = Number(values[name]);
    return Number.isFinite(n) && n > 0 ? n : exitWithUsage("soak", USAGE, `--${name}: "${values[name]}" is not a positive number`);
  };
  const lifecycles = count("lifecycles", 1);
  const report = await runSoak({
    seed: values.seed, lifecycles, first: count("first", 0), lanes: count("lanes", 1), faultClasses, skip, host, skipHost,
    opSeconds: positive("op-seconds"), timeWarp: positive("time-warp"), timeout: values.timeout,
    onLifecycle: (lc, done) => {
      if (values.verbose || lc.findings.length > 0) {
        process.stderr.write(`\n--- lifecycle ${lc.seed} (${lc.kind}, host ${lc.host}${lc.interrupted ? ", interrupted" : ""}, ${(lc.wallMs / 1000).toFixed(1)} s): ${lc.findings.length} findings\n${lc.trace.join("\n")}\n`);
      }
      if (done % 50 === 0) process.stderr.write(`soak: ${done}/${lifecycles} lifecycles\n`);
    },
  });
  if (report.failing.length > 0) {
    process.stderr.write(`\nfailing seeds (re-run lifecycle <seed>-<i> alone with --seed <seed> --first <i> --lifecycles 1, which draws the same host; its trace is above):\n`);
    for (const lc of report.failing) process.stderr.write(`  ${lc.seed} (host ${lc.host}): ${lc.findings.map((f) => f.kind).join(", ")}\n`);
  }
  process.stderr.write(`(${report.interrupted} interrupted ups, ${(report.wallMs / 1000).toFixed(0)} s)\n`);
  process.stdout.write(`${summaryLine(report)}\n`);
  process.exitCode = clean(report) ? 0 : 1;
}

main().catch((e: unknown) => {
  process.stderr.write(`soak: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exitCode = 2;
});
