/**
 * Request logging. With `VMHOST_LOG=debug` every HTTP attempt writes one line to stderr:
 * `vmhost: GET /instance/3f2c.../detail 200 123ms retry=0 op=getInstance`. The provider can route the same
 * entries through Pulumi's log by passing `logger` to `createClient`. The API key is never part of an entry
 * (it only travels in the `x-apikey` header) and every line is redacted once more before it is written.
 */

import { redact } from "./errors";

/** One logged HTTP attempt. */
export interface RequestLogEntry {
  /** Operation id. */
  operation: string;
  method: string;
  /** Path with ids filled and the query string included (never the key). */
  path: string;
  /** HTTP status, or undefined when no answer arrived. */
  status: number | undefined;
  /** Duration of this attempt in ms. */
  durationMs: number;
  /** 0 for the first attempt, 1 for the first retry, ... */
  retry: number;
  /** Short failure description when no answer arrived (e.g. `ECONNRESET`). */
  error?: string;
}

/** Receives log entries and their formatted line. */
export type RequestLogger = (entry: RequestLogEntry, line: string) => void;

/** Formats an entry as one line (without the `vmhost: ` prefix: whoever writes the line adds it once). */
export function formatLogLine(entry: RequestLogEntry): string {
  const status = entry.status === undefined ? `ERR${entry.error ? `(${entry.error})` : ""}` : String(entry.status);
  return `${entry.method} ${entry.path} ${status} ${Math.round(entry.durationMs)}ms retry=${entry.retry} op=${entry.operation}`;
}

/** Writes each line to stderr. */
export const stderrLogger: RequestLogger = (_entry, line) => {
  process.stderr.write(`vmhost: ${line}\n`);
};

/** True when `VMHOST_LOG` asks for debug logging (`debug`, case-insensitive). */
export function debugLoggingEnabled(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  return (env.VMHOST_LOG ?? "").trim().toLowerCase() === "debug";
}

/** Wraps a logger so every line has `secret` removed (belt and braces: entries never contain it). */
export function redactingLogger(logger: RequestLogger, secret: string): RequestLogger {
  return (entry, line) => {
    const cleanEntry = { ...entry, path: redact(entry.path, secret), ...(entry.error === undefined ? {} : { error: redact(entry.error, secret) }) };
    logger(cleanEntry, redact(line, secret));
  };
}
