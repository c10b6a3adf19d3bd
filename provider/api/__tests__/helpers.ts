/** Test harness: a client on an undici MockAgent with a fake clock (no real waits) and captured logs. */
import { MockAgent } from "undici";
import { createClient, type ClientOptions } from "../client";
import type { Clock } from "../retry";
import { setProgressSink } from "../../context";

export const ORIGIN = "https://api.vmhost.test";
export const BASE_URL = `${ORIGIN}/v1`;
/** A recognisable key: tests scan for it in errors and logs. */
export const API_KEY = "vmh_live_S3CRET-KEY-7f3a9c";

export function mockClient(overrides: Partial<ClientOptions> = {}) {
  const agent = new MockAgent({ enableCallHistory: true });
  agent.disableNetConnect();
  const pool = agent.get(ORIGIN);
  const sleeps: number[] = [];
  let now = Date.UTC(2024, 0, 25, 7, 0, 0);
  const clock: Clock = {
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  };
  const logs: string[] = [];
  const client = createClient({
    baseUrl: BASE_URL,
    apiKey: API_KEY,
    dispatcher: agent,
    clock,
    random: () => 0.5,
    logger: (_entry, line) => logs.push(line),
    ...overrides,
  });
  const calls = () => agent.getCallHistory()?.calls() ?? [];
  return { agent, pool, client, sleeps, logs, calls, clock, advance: (ms: number) => (now += ms) };
}

/** A minimal valid instance-ref envelope. */
export const refBody = (uuid = "i-1") => ({ message: "ok", data: { uuid, hostname: "web-1" } });

/** Collects, per test of the calling suite, the progress lines users see (provider/context.ts progressLog). */
export function captureProgressLines(): { lines: string[] } {
  const captured = { lines: [] as string[] };
  let previous: (line: string) => void;
  beforeEach(() => {
    captured.lines = [];
    previous = setProgressSink((line) => void captured.lines.push(line));
  });
  afterEach(() => setProgressSink(previous));
  return captured;
}
