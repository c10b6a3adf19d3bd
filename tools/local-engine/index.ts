/**
 * The local engine: runs a Pulumi program (preview, up, refresh, destroy) without the Pulumi CLI, with the
 * real Pulumi pieces in the loop: the language runtime (`@pulumi/pulumi/cmd/run`) runs the program and the
 * dynamic-provider host (`@pulumi/pulumi/cmd/dynamic-provider`) runs the providers, both from the PROJECT's
 * node_modules. This module is the engine between them: gRPC services, steps, a JSON state file.
 *
 * ```ts
 * const result = await runEngine({ command: "up", projectDir: "examples/basic-vm", secrets: { "vmhost:apiKey": key } });
 * if (!result.ok) throw new Error(result.stdout);
 * ```
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import * as readline from "node:readline";
import { ProjectSettings, StackConfig, configEnv, plainConfig, readProject, resolveStackConfig } from "./config";
import { Deployment, DriftRecord, StepRecord, defaultParallel } from "./deployment";
import { startMonitor } from "./monitor";
import { Printer, Summary, renderValue, summaryBlock } from "./output";
import { ProviderHost } from "./providerHost";
import { StateFile, loadState, lockState, saveState, statePassphrase } from "./state";
import { PropertyMap, PropertyValue, maskSecrets } from "./values";
import { errorText } from "./errors";

export type { StepRecord, DriftRecord } from "./deployment";
export type { Summary, StepOp } from "./output";

/** The engine commands, named after the Pulumi CLI commands they stand in for. */
export type EngineCommand = "preview" | "up" | "refresh" | "destroy";

/** Options of one engine run. */
export interface EngineOptions {
  command: EngineCommand;
  /** The Pulumi project folder (holds Pulumi.yaml and node_modules with @pulumi/pulumi). */
  projectDir: string;
  /** Stack name; default "dev". */
  stack?: string;
  /** State file; default `<projectDir>/.vmhost-state.json`. */
  stateFile?: string;
  /** Plain config values; keys without a namespace get the project's (`foo` -> `<project>:foo`). */
  config?: Record<string, string>;
  /** Secret config values (never written to the state; marked secret for the program). */
  secrets?: Record<string, string>;
  /** A JSON config file `{ "key": "value", "k2": { "secret": "value" } }`, applied before `config`/`secrets`. */
  configFile?: string;
  /** Extra environment for the program and the provider host (on top of this process's environment). */
  env?: NodeJS.ProcessEnv;
  /**
   * Fail with exit code 7 when there are changes, as `pulumi <cmd> --expect-no-changes`: preview when it
   * plans any create, update, replace or delete; up AFTER applying them (the check happens after the update,
   * as in the CLI); refresh when anything drifted or vanished.
   */
  expectNoChanges?: boolean;
  /** preview/up/destroy: refresh the state first (`pulumi preview --refresh`). */
  refresh?: boolean;
  /** Receives every output line as it is printed. */
  onOutput?: (line: string) => void;
  /**
   * Provider operations run at once (Pulumi's `--parallel`); default `PULUMI_PARALLEL`, else 4 per CPU as
   * the Pulumi CLI.
   */
  parallel?: number;
  /** `--target`: only these URNs are created, updated, replaced or deleted (preview/up/destroy). */
  targets?: string[];
  /**
   * `--target-dependents`: what depends on a target is targeted too; without it, a --target deletion that
   * would have to delete an unlisted dependent is refused, as by the Pulumi CLI.
   */
  targetDependents?: boolean;
  /** `--replace`: replace these URNs even if nothing changed (preview/up). */
  replace?: string[];
  /** `refresh --clear-pending-creates`: forget the pending creates an interrupted run left in the state. */
  clearPendingCreates?: boolean;
  /**
   * Cancels the run when aborted, as Pulumi's first Ctrl-C: steps under way finish and are recorded, nothing
   * new starts, nothing is deleted, and the run fails.
   */
  signal?: AbortSignal;
}

/** What one run did. */
export interface EngineResult {
  /** Everything succeeded (and, with expectNoChanges, nothing changed or was to change). */
  ok: boolean;
  /**
   * The Pulumi CLI's exit code for this outcome (pkg/cmd/pulumi/cmd/exit_codes.go): 0 success, 1 a failure
   * (failed step, failed program), 7 (ExitNoChanges) when `expectNoChanges` was set, everything else
   * succeeded and there were changes. A failure wins over unexpected changes, as in the CLI, where the
   * operation's error is returned before the changes are looked at (operations/up.go, preview.go).
   */
  exitCode: 0 | 1 | 7;
  /** Counts of the main phase's steps (for `refresh`: update = drifted, delete = gone). */
  summary: Summary;
  steps: StepRecord[];
  /** What refresh found (refresh, or preview/up with `refresh`). */
  drift?: DriftRecord[];
  /** Stack outputs; secret values are replaced by "[secret]". */
  outputs: Record<string, PropertyValue>;
  /** Error messages (steps, program, diagnostics). */
  errors: string[];
  /** The full printed output. */
  stdout: string;
  durationMs: number;
}

function resolvePulumi(projectDir: string): string {
  try {
    return path.dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [projectDir] }));
  } catch {
    throw new Error(`${projectDir} has no node_modules/@pulumi/pulumi: run npm install in the project first`);
  }
}

/**
 * Runs one engine command. Never throws for deployment failures: see `ok`, `exitCode` and `errors`. Throws
 * for what stops a run before it starts (Pulumi.yaml, config that cannot be read or decrypted, a locked state).
 */
export async function runEngine(opts: EngineOptions): Promise<EngineResult> {
  return runOnce(opts);
}

async function runOnce(opts: EngineOptions): Promise<EngineResult> {
  const started = Date.now();
  const printer = new Printer(opts.onOutput);
  const projectDir = path.resolve(opts.projectDir);
  const project = readProject(projectDir);
  const stack = opts.stack ?? "dev";
  const stateFile = path.resolve(opts.stateFile ?? path.join(projectDir, ".vmhost-state.json"));
  const baseEnv: NodeJS.ProcessEnv = { ...process.env, ...opts.env };
  const config = await resolveStackConfig({
    projectDir,
    project,
    stack,
    env: baseEnv,
    configFile: opts.configFile,
    config: opts.config,
    secrets: opts.secrets,
  });
  const passphrase = statePassphrase(baseEnv);
  // preview only reads the state; every other command writes it, one run at a time.
  const unlock = opts.command === "preview" ? () => undefined : lockState(stateFile);
  try {
    return await runLocked(opts, { printer, projectDir, project, stack, stateFile, config, baseEnv, passphrase, started });
  } finally {
    unlock();
  }
}

async function runLocked(
  opts: EngineOptions,
  ctx: {
    printer: Printer;
    projectDir: string;
    project: ProjectSettings;
    stack: string;
    stateFile: string;
    config: StackConfig;
    baseEnv: NodeJS.ProcessEnv;
    passphrase: string;
    started: number;
  },
): Promise<EngineResult> {
  const { printer, projectDir, project, stack, stateFile, config, baseEnv, passphrase, started } = ctx;
  const old = loadState(stateFile, project.name, stack, passphrase);
  const pulumiDir = resolvePulumi(projectDir);
  const dryRun = opts.command === "preview";
  const save = (s: StateFile): void => saveState(stateFile, s, passphrase);
  const runtimeEnv: NodeJS.ProcessEnv = {
    ...baseEnv,
    ...configEnv(config),
    PULUMI_NODEJS_PROJECT: project.name,
    PULUMI_NODEJS_STACK: stack,
    PULUMI_NODEJS_ORGANIZATION: "organization",
  };

  let hostPromise: Promise<ProviderHost> | undefined;
  const parallel = opts.parallel ?? defaultParallel(baseEnv);
  const deployment: Deployment = new Deployment({
    project: project.name,
    stack,
    dryRun,
    old,
    printer,
    checkpoint: save,
    host: () => (hostPromise ??= startHost()),
    parallel,
    targets: opts.targets,
    targetDependents: opts.targetDependents,
    replaceTargets: opts.replace,
  });
  const onAbort = (): void => {
    printer.line("cancelling: steps under way will finish, nothing new starts");
    deployment.cancel();
  };
  if (opts.signal?.aborted) onAbort();
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  const monitor = await startMonitor(deployment, { project: project.name, stack, dryRun });
  const startHost = async (): Promise<ProviderHost> => {
    const host = await ProviderHost.start({
      script: path.join(pulumiDir, "cmd", "dynamic-provider", "index.js"),
      engineAddress: monitor.address,
      cwd: projectDir,
      env: runtimeEnv,
      onOutput: (_stream, line) => printer.line(`    [provider] ${line}`),
    });
    liveChildren.add(host);
    await host.configure(plainConfig(config));
    return host;
  };

  const verb = { preview: "Previewing update", up: "Updating", refresh: "Refreshing", destroy: "Destroying" }[opts.command];
  printer.line(`${verb} (${stack}) of project ${project.name}, state ${displayPath(stateFile)}`);
  printer.line("");
  let refreshDrift: DriftRecord[] | undefined;
  try {
    const refreshFirst = opts.command === "refresh" || opts.refresh === true;
    // Errors found here (a --replace URN not in the stack) are recorded and stop the run before any change.
    const ready = deployment.preflight(refreshFirst);
    if (ready && refreshFirst) {
      if (opts.command !== "refresh") printer.line("Refreshing the state first:");
      await deployment.refresh(opts.clearPendingCreates);
      refreshDrift = [...deployment.drift];
      if (opts.command !== "refresh") {
        if (refreshDrift.length === 0) printer.line("    no drift");
        printer.line("");
        printer.line(opts.command === "destroy" ? "Then:" : "Then, against the refreshed state:");
        deployment.resetSteps();
      }
    }
    if (deployment.errors.length === 0) {
      if (opts.command === "destroy") {
        await deployment.destroy();
      } else if (opts.command === "preview" || opts.command === "up") {
        // Start the provider host while the program loads (each takes about a second to load @pulumi/pulumi).
        if (!hostPromise) {
          hostPromise = startHost();
          hostPromise.catch(() => undefined); // reported by the first step that needs it
        }
        const programOk = await runProgram({
          pulumiDir,
          projectDir,
          main: project.main,
          monitorAddress: monitor.address,
          project: project.name,
          stack,
          dryRun,
          typescript: project.typescript,
          parallel,
          env: runtimeEnv,
          printer,
        });
        // The runtime usually logged the reason already (an Engine Log error); say it once otherwise.
        if (!programOk && deployment.errors.length === 0) deployment.errors.push("the program failed (see its output above)");
        await deployment.finishUp(programOk);
      }
    }
  } catch (e) {
    deployment.errors.push(errorText(e));
    printer.line(`error: ${errorText(e)}`);
  } finally {
    opts.signal?.removeEventListener("abort", onAbort);
    if (!dryRun) save(deployment.snapshot());
    if (hostPromise) {
      await hostPromise.then(
        (h) => {
          liveChildren.delete(h);
          return h.stop();
        },
        () => undefined,
      );
    }
    await monitor.close();
  }

  const outputs = stackOutputsForDisplay(deployment.stackOutputs());
  if (opts.command !== "refresh" && opts.command !== "destroy" && Object.keys(outputs).length > 0) {
    printer.line("");
    printer.line("Outputs:");
    const raw = deployment.stackOutputs();
    for (const k of Object.keys(raw).sort()) printer.line(`    ${k}: ${renderValue(raw[k], 200)}`);
  }
  printer.line("");
  printer.line(summaryBlock(deployment.summary, dryRun));
  const changes = deployment.summary.create + deployment.summary.update + deployment.summary.replace + deployment.summary.delete;
  let ok = deployment.errors.length === 0;
  let exitCode: EngineResult["exitCode"] = ok ? 0 : 1;
  // Only the main phase's changes count (for refresh: drifted or vanished resources): the refresh of
  // `preview --refresh` / `up --refresh` is not counted (engine/update.go counts refresh steps only for the
  // refresh command; engine.HasChanges ignores same and reads). `up` has applied its changes by now: the
  // CLI checks after the update (operations/up.go: "This check happens after the update is applied").
  if (ok && opts.expectNoChanges && changes > 0) {
    ok = false;
    exitCode = 7;
    const operation = opts.command === "up" ? "update" : opts.command;
    const msg = `no changes were expected for ${operation} but changes were proposed`; // backenderr.NoChangesExpectedError
    deployment.errors.push(msg);
    printer.line(`error: ${msg}`);
  }
  const durationMs = Date.now() - started;
  printer.line(`Duration: ${(durationMs / 1000).toFixed(1)}s`);
  if (!ok) printer.line(`${opts.command} failed: ${deployment.errors.length} error(s)`);
  return {
    ok,
    exitCode,
    summary: { ...deployment.summary },
    steps: [...deployment.steps],
    drift: refreshDrift,
    outputs,
    errors: [...deployment.errors],
    stdout: printer.text(),
    durationMs,
  };
}

/** The language runtimes and provider hosts of runs under way, for {@link killChildren}. */
const liveChildren = new Set<{ kill(): void }>();

/**
 * Kills the program and provider processes of every run under way, at once: for a CLI that must exit
 * immediately (a second Ctrl-C). The state file already records the operations that were under way as
 * pending (each step is checkpointed when it starts), as a killed Pulumi CLI leaves them.
 */
export function killChildren(): void {
  for (const c of liveChildren) c.kill();
  liveChildren.clear();
}

/** Stack outputs with secrets masked, for callers and logs. */
function stackOutputsForDisplay(outputs: PropertyMap): Record<string, PropertyValue> {
  return maskSecrets(outputs) as Record<string, PropertyValue>;
}

/** Runs the program through the language runtime of the project's @pulumi/pulumi; resolves to "exited 0". */
async function runProgram(o: {
  pulumiDir: string;
  projectDir: string;
  main: string;
  monitorAddress: string;
  project: string;
  stack: string;
  dryRun: boolean;
  typescript: boolean;
  parallel: number;
  env: NodeJS.ProcessEnv;
  printer: Printer;
}): Promise<boolean> {
  const args = [
    path.join(o.pulumiDir, "cmd", "run", "index.js"),
    `--monitor=${o.monitorAddress}`,
    `--engine=${o.monitorAddress}`,
    `--project=${o.project}`,
    `--stack=${o.stack}`,
    `--organization=organization`,
    `--root-directory=${o.projectDir}`,
    `--pwd=${o.projectDir}`,
    `--parallel=${o.parallel}`,
    ...(o.dryRun ? ["--dry-run"] : []),
    o.main,
  ];
  const child = spawn(process.execPath, args, {
    cwd: o.projectDir,
    // The nodejs language host sets PULUMI_NODEJS_TYPESCRIPT from Pulumi.yaml's runtime options.
    env: { ...o.env, PULUMI_NODEJS_TYPESCRIPT: String(o.typescript) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const handle = { kill: () => child.kill("SIGKILL") };
  liveChildren.add(handle);
  readline.createInterface({ input: child.stdout! }).on("line", (l) => o.printer.line(`    ${l}`));
  readline.createInterface({ input: child.stderr! }).on("line", (l) => o.printer.line(`    ${l}`));
  const code = await new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (c, signal) => resolve(c ?? (signal ? 1 : 0)));
  }).finally(() => liveChildren.delete(handle));
  return code === 0;
}

/** A path relative to the current folder when it is inside it, else absolute. */
function displayPath(p: string): string {
  const rel = path.relative(process.cwd(), p);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : p;
}
