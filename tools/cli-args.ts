/**
 * Command-line options of the make-target tools (`make soak`, `make bench`): node's parseArgs, strict, plus `--help`.
 * A misspelt option must not start a run that takes many minutes with what the user did not ask for (the bench read
 * its flags by hand and started its 15-minute report on `--help` or `--quik`), nor end in a stack trace.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * The values of `options` parsed from this process's arguments. `--help` prints `usage` and exits 0; an unknown
 * option, a value where none is taken, or a missing value prints what was wrong and `usage`, and exits 2.
 */
export function parseToolArgs<O extends Options>(tool: string, usage: string, options: O): ReturnType<typeof parseArgs<{ options: O; strict: true }>>["values"] {
  const help = process.argv.slice(2).some((a) => a === "--help" || a === "-h");
  if (help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  try {
    return parseArgs({ options, strict: true }).values;
  } catch (error) {
    return exitWithUsage(tool, usage, error instanceof Error ? error.message : String(error));
  }
}

/** Prints what was wrong with the command line and the usage, and exits 2 (for checks of option values). */
export function exitWithUsage(tool: string, usage: string, message: string): never {
  process.stderr.write(`${tool}: ${message}\n\n${usage}\n`);
  process.exit(2);
}
