/**
 * The `vmhost-sim` command:
 *
 *     vmhost-sim [--port N] [--host H] [--api-key K] [--latency-ms N] [--op-seconds N] [--seed S]
 *                [--error-rate R] [--error-status 500|502|503|504] [--rate-limit N]
 *
 * The first stdout line is `listening on <base url>` (tools wait for it); the second gives the API key.
 * It serves until SIGINT or SIGTERM.
 */
import { parseArgs } from "node:util";
import type { FaultsInput } from "./faults";
import { startSimulator, type RunningSimulator } from "./index";

const USAGE = `usage: vmhost-sim [--port N] [--host H] [--api-key K] [--latency-ms N] [--op-seconds N] [--seed S]
                  [--error-rate 0..1] [--error-status 500|502|503|504] [--rate-limit N]`;

function numberFlag(name: string, value: string | undefined, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < min) throw new Error(`--${name} needs a number >= ${min}, got "${value}"`);
  return n;
}

/** Parses the command line and starts the simulator. Exported for in-process tests. */
export async function main(argv: string[], out: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<RunningSimulator> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      "api-key": { type: "string" },
      "latency-ms": { type: "string" },
      "op-seconds": { type: "string" },
      seed: { type: "string" },
      "error-rate": { type: "string" },
      "error-status": { type: "string" },
      "rate-limit": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) {
    out(USAGE);
    process.exit(0);
  }
  const faults: FaultsInput = {};
  const errorRate = numberFlag("error-rate", values["error-rate"]);
  if (errorRate !== undefined) faults.errorRate = errorRate;
  const errorStatus = numberFlag("error-status", values["error-status"]);
  if (errorStatus !== undefined) faults.errorStatus = errorStatus as 500 | 502 | 503 | 504;
  const rateLimit = numberFlag("rate-limit", values["rate-limit"]);
  if (rateLimit !== undefined) faults.rateLimitPerSecond = rateLimit;
  const latencyMs = numberFlag("latency-ms", values["latency-ms"]);
  if (latencyMs !== undefined) faults.latencyMs = latencyMs;
  const port = numberFlag("port", values.port);
  const opSeconds = numberFlag("op-seconds", values["op-seconds"]);
  const sim = await startSimulator({
    ...(port !== undefined ? { port } : {}),
    ...(values.host !== undefined ? { host: values.host } : {}),
    ...(values["api-key"] !== undefined ? { apiKey: values["api-key"] } : {}),
    ...(opSeconds !== undefined ? { opSeconds } : {}),
    ...(values.seed !== undefined ? { seed: values.seed } : {}),
    faults,
  });
  out(`listening on ${sim.url}`);
  out(`api key: ${sim.apiKey}`);
  out(`admin: ${sim.adminUrl}`);
  return sim;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (sim) => {
      const stop = (): void => {
        void sim.close().then(() => process.exit(0));
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    },
    (err: unknown) => {
      process.stderr.write(`vmhost-sim: ${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`);
      process.exit(2);
    },
  );
}
