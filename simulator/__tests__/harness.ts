/**
 * Test harness for the simulator's own tests: plain fetch against a simulator started in-process on
 * port 0. Not used by the client: these tests speak the wire format directly.
 */
import { ManualClock } from "../clock";
import { startSimulator, type RunningSimulator, type SimulatorOptions } from "../index";

/** Parsed JSON as the tests inspect it (test-only: bodies are checked field by field, not typed). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/** An HTTP answer as the tests see it. */
export interface Answer {
  status: number;
  headers: Headers;
  body: Json;
}

/** Request options: query parameters, a form body (arrays become `k[]`), or a JSON body. */
export interface CallOptions {
  query?: Record<string, string | number>;
  form?: Record<string, string | number | boolean | string[] | null | undefined>;
  json?: unknown;
  /** The key to send; default the simulator's; null sends none. */
  apiKey?: string | null;
}

/** Encodes a form the way the client does: booleans 1/0, arrays `k[]=`, null/undefined left out. */
export function encodeForm(fields: NonNullable<CallOptions["form"]>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) {
    if (v === null || v === undefined) continue;
    if (Array.isArray(v)) for (const item of v) params.append(`${k}[]`, item);
    else params.append(k, typeof v === "boolean" ? (v ? "1" : "0") : String(v));
  }
  return params.toString();
}

/** A started simulator with helpers for /v1 and /__sim calls. */
export class TestSim {
  constructor(readonly sim: RunningSimulator, readonly clock: ManualClock | undefined) {}

  /** Calls the API: `call("GET", "/instance", {query})`. */
  async call(method: string, path: string, opts: CallOptions = {}): Promise<Answer> {
    const url = new URL(this.sim.url + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: "application/json" };
    const key = opts.apiKey === undefined ? this.sim.apiKey : opts.apiKey;
    if (key !== null) headers["x-apikey"] = key;
    let body: string | undefined;
    if (opts.form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = encodeForm(opts.form);
    } else if (opts.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(opts.json);
    }
    const res = await fetch(url, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text === "" ? undefined : JSON.parse(text) };
  }

  /** Calls the admin API with a JSON body. */
  async admin(method: string, path: string, json?: unknown): Promise<Answer> {
    const res = await fetch(this.sim.adminUrl + path, {
      method,
      headers: { "content-type": "application/json" },
      ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
    });
    return { status: res.status, headers: res.headers, body: await res.json() };
  }

  /** `GET /__sim/state`. */
  async state(): Promise<Json> {
    return (await this.admin("GET", "/state")).body;
  }

  /** Moves the manual clock forward (the tests' only way to let operations finish). */
  advance(seconds: number): void {
    if (!this.clock) throw new Error("this TestSim runs on the system clock");
    this.clock.advanceSeconds(seconds);
  }

  /** Creates an instance with sensible defaults and returns its uuid (status `creating`). */
  async createInstance(overrides: NonNullable<CallOptions["form"]> = {}): Promise<string> {
    const res = await this.call("POST", "/instance/create", {
      form: {
        location_id: 1, tier_id: 1, template_id: 1, hostname: "web-1", cpu: 2, memory: 2, storage: 30,
        username: "admin", password: "s3cretpass", use_public_ip: true, ...overrides,
      },
    });
    if (res.status !== 200) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data.uuid as string;
  }

  /** Creates an instance and lets its create operation finish (status Running). */
  async runningInstance(overrides: NonNullable<CallOptions["form"]> = {}): Promise<string> {
    const uuid = await this.createInstance(overrides);
    this.advance(OP_SECONDS);
    return uuid;
  }

  /** The instance detail `data` (throws unless 200). */
  async detail(uuid: string): Promise<Json> {
    const res = await this.call("GET", `/instance/${uuid}/detail`);
    if (res.status !== 200) throw new Error(`detail ${uuid}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  }

  close(): Promise<void> {
    return this.sim.close();
  }
}

/** Operation duration used with the manual clock. */
export const OP_SECONDS = 2;

/** Starts a simulator on a manual clock (operations take {@link OP_SECONDS} simulated seconds). */
export async function startTestSim(opts: SimulatorOptions = {}): Promise<TestSim> {
  const clock = new ManualClock();
  const sim = await startSimulator({ opSeconds: OP_SECONDS, clock, ...opts });
  return new TestSim(sim, clock);
}
