import { debugLoggingEnabled, formatLogLine, redactingLogger, type RequestLogEntry } from "../log";

const entry = (path: string): RequestLogEntry =>
  ({ method: "GET", path, status: 200, durationMs: 12.4, retry: 0, operation: "listInstances" }) as RequestLogEntry;

describe("request log lines", () => {
  it("VMHOST_LOG=debug (any case, spaces around) turns debug lines on; anything else or nothing leaves them off", () => {
    expect(debugLoggingEnabled({ VMHOST_LOG: "debug" })).toBe(true);
    expect(debugLoggingEnabled({ VMHOST_LOG: " DEBUG " })).toBe(true);
    expect(debugLoggingEnabled({ VMHOST_LOG: "info" })).toBe(false);
    expect(debugLoggingEnabled({})).toBe(false);
  });

  it("a key that shows up in a line or a path is replaced by [REDACTED], in the line and the entry", () => {
    const seen: Array<{ entry: RequestLogEntry; line: string }> = [];
    const log = redactingLogger((e, line) => seen.push({ entry: e, line }), "key-1234");
    const e = entry("/instance?search=key-1234");
    log(e, formatLogLine(e));
    expect(seen[0]!.line).toBe("GET /instance?search=[REDACTED] 200 12ms retry=0 op=listInstances");
    expect(seen[0]!.entry.path).toBe("/instance?search=[REDACTED]");
  });

  it("a key shorter than four characters is replaced where it stands as a word, not inside words (ordinary text stays); a four-character one everywhere", () => {
    const seen: string[] = [];
    const paths: string[] = [];
    const short = redactingLogger((e, line) => (seen.push(line), paths.push(e.path)), "abc");
    short(entry("/instance?search=abc"), "vmhost: GET /instance?search=abc 200 op=abcde");
    expect(seen).toEqual(["vmhost: GET /instance?search=[REDACTED] 200 op=abcde"]);
    expect(paths).toEqual(["/instance?search=[REDACTED]"]);
    const four = redactingLogger((e, line) => (seen.push(line), paths.push(e.path)), "abcd");
    four(entry("/abcd"), "vmhost: GET /abcd 200");
    expect(seen[1]).toBe("vmhost: GET /[REDACTED] 200");
    expect(paths[1]).toBe("/[REDACTED]");
  });

  it("a failed attempt is logged as ERR with its error code", () => {
    const failed = { ...entry("/instance"), status: undefined, error: "ECONNRESET" } as RequestLogEntry;
    expect(formatLogLine(failed)).toBe("GET /instance ERR(ECONNRESET) 12ms retry=0 op=listInstances");
    expect(formatLogLine({ ...failed, error: undefined } as RequestLogEntry)).toBe("GET /instance ERR 12ms retry=0 op=listInstances");
  });
});
