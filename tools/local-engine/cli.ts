/**
 * `vmhost-local-engine <preview|up|refresh|destroy> [--cwd DIR] [--stack NAME] [--state FILE]
 *   [--config k=v]... [--secret k=v]... [--config-file FILE] [--refresh] [--expect-no-changes] [--yes]
 *   [--target URN]... [--target-dependents] [--replace URN]... [--parallel N] [--clear-pending-creates]`
 *
 * The command-line face of {@link runEngine}: the Pulumi CLI commands of the same names, run locally.
 * Exit codes follow the Pulumi CLI's (pkg/cmd/pulumi/cmd/exit_codes.go): 0 success, 1 failure, 2 bad usage
 * (ExitConfigurationError), 7 changes with --expect-no-changes (ExitNoChanges).
 */
import { parseArgs } from "node:util";
import { EngineCommand, EngineOptions, EngineResult, killChildren, runEngine } from "./index";
import { errorText } from "./errors";

const COMMANDS: readonly EngineCommand[] = ["preview", "up", "refresh", "destroy"];

const USAGE = `usage: vmhost-local-engine <preview|up|refresh|destroy> [options]

Runs a Pulumi program without the Pulumi CLI (dynamic providers only), with a JSON state file.

options:
  --cwd DIR             the Pulumi project folder (default: current folder)
  --stack NAME          stack name (default: dev); Pulumi.<stack>.yaml config is read if present
  --state FILE          state file (default: <project>/.vmhost-state.json)
  --config k=v          a config value (repeatable); keys without a namespace get the project's;
                        overrides the value in Pulumi.<stack>.yaml
  --secret k=v          a secret config value (repeatable), e.g. --secret vmhost:apiKey=$KEY;
                        overrides the value in Pulumi.<stack>.yaml (no passphrase needed for it)
  --config-file FILE    JSON config: {"key": "value", "key2": {"secret": "value"}}
  --refresh             refresh the state before preview/up/destroy
  --expect-no-changes   preview/refresh: exit 7 if anything would change or drifted;
                        up: apply the changes, then exit 7 if there were any (as the Pulumi CLI)
  --target URN          only create, update, replace or delete this resource (repeatable)
  --target-dependents   with --target: also what depends on a target (else deleting one is refused)
  --replace URN         replace this resource even if nothing changed (repeatable)
  --parallel N          provider operations at once (default: PULUMI_PARALLEL, else 4 per CPU)
  --clear-pending-creates  refresh: forget the creates an interrupted run left pending
  --yes                 accepted for compatibility with the Pulumi CLI (never asks anyway)

environment:
  PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE) decrypts the secure: values that
  \`pulumi config set --secret\` wrote to Pulumi.<stack>.yaml; PULUMI_CONFIG_PASSPHRASE also keys
  the encryption of secrets in the state file.

exit codes: 0 success, 1 failure, 2 bad usage, 7 changes with --expect-no-changes.`;

function pairs(values: string[] | undefined, flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values ?? []) {
    const eq = v.indexOf("=");
    if (eq <= 0) throw new Error(`${flag} expects key=value, got "${v}"`);
    out[v.slice(0, eq)] = v.slice(eq + 1);
  }
  return out;
}

/**
 * Parses argv (without node and script) and runs the engine; resolves to the process exit code. `run` is
 * {@link runEngine}; the command line's own tests pass a fake to check what reaches it without a run.
 */
export async function main(argv: string[], run: (opts: EngineOptions) => Promise<EngineResult> = runEngine): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        cwd: { type: "string" },
        stack: { type: "string", short: "s" },
        state: { type: "string" },
        config: { type: "string", short: "c", multiple: true },
        secret: { type: "string", multiple: true },
        "config-file": { type: "string" },
        refresh: { type: "boolean", short: "r" },
        "expect-no-changes": { type: "boolean" },
        yes: { type: "boolean", short: "y" },
        target: { type: "string", short: "t", multiple: true },
        "target-dependents": { type: "boolean" },
        replace: { type: "string", multiple: true },
        parallel: { type: "string", short: "p" },
        "clear-pending-creates": { type: "boolean" },
        "skip-preview": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (e) {
    console.error(`${errorText(e)}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const command = positionals[0] as EngineCommand | undefined;
  if (!command || !COMMANDS.includes(command) || positionals.length > 1) {
    console.error(USAGE);
    return 2;
  }
  if (command === "destroy" && values["expect-no-changes"]) {
    // `pulumi destroy` has no such flag (operations/destroy.go).
    console.error(`--expect-no-changes is not a destroy option\n\n${USAGE}`);
    return 2;
  }
  const parallel = values.parallel === undefined ? undefined : Number(values.parallel);
  if (parallel !== undefined && !(Number.isInteger(parallel) && parallel > 0)) {
    console.error(`--parallel expects a positive integer, got "${values.parallel}"\n\n${USAGE}`);
    return 2;
  }
  // Like the Pulumi CLI: the first SIGINT/SIGTERM cancels (steps under way finish and are recorded); the
  // second exits at once, leaving the operations under way as pending operations in the state.
  const cancel = new AbortController();
  const onSignal = (): void => {
    if (!cancel.signal.aborted) {
      cancel.abort();
      return;
    }
    process.stderr.write("terminating immediately: operations under way stay pending in the state\n");
    killChildren();
    process.exit(1);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    const result = await run({
      command,
      projectDir: values.cwd ?? process.cwd(),
      stack: values.stack,
      stateFile: values.state,
      config: pairs(values.config, "--config"),
      secrets: pairs(values.secret, "--secret"),
      configFile: values["config-file"],
      refresh: values.refresh,
      expectNoChanges: values["expect-no-changes"],
      targets: values.target,
      targetDependents: values["target-dependents"],
      replace: values.replace,
      parallel,
      clearPendingCreates: values["clear-pending-creates"],
      signal: cancel.signal,
      onOutput: (line) => process.stdout.write(line + "\n"),
    });
    return result.exitCode;
  } catch (e) {
    console.error(`error: ${errorText(e)}`);
    return 1;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
