/**
 * Shared set-up of the PublicIp / VswitchAttachment / BlockStorageAttachment provider tests: a simulator
 * with 50 ms operations, the provider's client pointed at it through the environment, instances created
 * directly with the API client, and the simulator's admin API (state, out-of-band changes, request log).
 */
// Waits poll every 20 ms instead of 250 ms (poll.ts reads these once, when it loads: set them first).
process.env.VMHOST_POLL_FAST_MS ??= "20";
process.env.VMHOST_POLL_MAX_MS ??= "200";

import type * as pulumi from "@pulumi/pulumi";
import { createClient, type VmHostClient } from "../../provider/api";
import { resetContext, setProgressSink } from "../../provider/context";
import { Deadline, pollUntil } from "../../provider/wait/poll";
import { startSimulator, type RunningSimulator } from "../../simulator";

/** A provider with every method present (ours all implement them). */
export type FullProvider = Required<pulumi.dynamic.ResourceProvider>;

/** The simulator's state dump (`GET /__sim/state`), the parts these tests read. */
export interface SimState {
  instances: {
    uuid: string;
    hostname: string;
    locationId: number;
    status: string;
    vswitchUuid: string | null;
    publicIpUuid: string | null;
    publicIpAddress: string | null;
    rdns: string | null;
    blockStorageIds: string[];
    operationFlag: number;
  }[];
  publicIps: { uuid: string; address: string; locationId: number; instanceUuid: string | null; seeded: boolean; rdns: string | null }[];
  vswitches: { uuid: string; name: string; locationId: number; networkIp: string }[];
  blockStorages: { uuid: string; name: string; sizeGb: number; locationId: number; instanceUuid: string | null }[];
}

/** Waits (at most 10 s) until the instance runs with no operation in progress. */
export async function waitUntilRunning(client: VmHostClient, uuid: string): Promise<void> {
  await pollUntil({
    what: `test instance ${uuid} to run`,
    deadline: new Deadline(10_000),
    poll: async () => {
      const d = await client.instances.get(uuid);
      return d.operation_flag === 0 && d.status === "Running" ? { done: true, value: d } : { done: false, status: d.status };
    },
  });
}

/** Creates a small instance directly with the API client (not through a provider) and waits until it runs. */
export async function createRunningInstance(client: VmHostClient, hostname: string, locationId = 1): Promise<string> {
  const created = await client.instances.create({
    locationId, tierId: 1, templateId: 2, hostname, cpu: 1, memory: 1, storage: 20,
    username: "admin", password: "Blue-Horse-42", usePublicIp: false,
  });
  await waitUntilRunning(client, created.uuid);
  return created.uuid;
}

/** A running simulator plus helpers. */
export class SimHarness {
  constructor(
    readonly sim: RunningSimulator,
    readonly client: VmHostClient,
  ) {}

  async admin<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.sim.adminUrl}${path}`, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as T;
    if (!res.ok) throw new Error(`admin ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }

  state(): Promise<SimState> {
    return this.admin<SimState>("GET", "/state");
  }

  async instance(uuid: string): Promise<SimState["instances"][number] | undefined> {
    return (await this.state()).instances.find((i) => i.uuid === uuid);
  }

  /** Changes an instance as someone else would (console, another tool): drift. */
  outOfBand(uuid: string, patch: Record<string, unknown>): Promise<unknown> {
    return this.admin("PATCH", `/instances/${uuid}`, patch);
  }

  setFaults(faults: Record<string, unknown>): Promise<unknown> {
    return this.admin("POST", "/faults", faults);
  }

  clearFaults(): Promise<unknown> {
    return this.admin("DELETE", "/faults");
  }

  /** Position in the request log, for {@link operationsSince}. */
  mark(): number {
    return this.sim.requests().length;
  }

  /** Operation ids of the /v1 requests made since `mark`. */
  operationsSince(mark: number): (string | null)[] {
    return this.sim.requests().slice(mark).map((r) => r.operation);
  }

  /** HTTP methods of the /v1 requests made since `mark` (a change recorded without a write shows only GETs). */
  methodsSince(mark: number): string[] {
    return this.sim.requests().slice(mark).map((r) => r.method);
  }

  /** Creates a Running instance in `locationId` without a public address or a private network. */
  async newInstance(hostname: string, locationId = 1): Promise<string> {
    return createRunningInstance(this.client, hostname, locationId);
  }

  close(): Promise<void> {
    return this.sim.close();
  }
}

/** Starts a simulator and points the provider's client at it (env: VMHOST_BASE_URL, VMHOST_API_KEY). */
export async function startHarness(): Promise<SimHarness> {
  const sim = await startSimulator({ opSeconds: 0.05 });
  process.env.VMHOST_API_KEY = sim.apiKey;
  process.env.VMHOST_BASE_URL = sim.url;
  return new SimHarness(sim, createClient({ baseUrl: sim.url, apiKey: sim.apiKey }));
}

/**
 * A test file's harness: started (and the provider's context reset) before its tests, closed after them. Call it at
 * the top level of the file; the returned function gives the harness inside tests.
 */
export function harnessSuite(): () => SimHarness {
  let h: SimHarness | undefined;
  beforeAll(async () => {
    h = await startHarness();
    resetContext();
  });
  afterAll(() => h?.close());
  return () => {
    if (!h) throw new Error("the harness starts in beforeAll: call it inside tests");
    return h;
  };
}

/**
 * The provider's progress lines of a test file, collected from its first test to its last (the sink is put back
 * after them). Call it at the top level of the file.
 */
export function progressSuite(): string[] {
  const said: string[] = [];
  let previous: ((line: string) => void) | undefined;
  beforeAll(() => {
    previous = setProgressSink((line) => said.push(line));
  });
  afterAll(() => {
    if (previous) setProgressSink(previous);
  });
  return said;
}

/** check then create, as the engine does; the check must pass. */
export async function up<O>(provider: FullProvider, inputs: Record<string, unknown>): Promise<{ id: string; outs: O; inputs: Record<string, unknown> }> {
  const checked = await provider.check({}, inputs);
  expect(checked.failures ?? []).toEqual([]);
  const created = await provider.create(checked.inputs);
  return { id: created.id, outs: created.outs as O, inputs: checked.inputs as Record<string, unknown> };
}

/** check then diff, as a preview does: what the engine would do with the program's inputs. */
export async function preview(
  provider: FullProvider,
  id: string,
  olds: unknown,
  inputs: Record<string, unknown>,
): Promise<pulumi.dynamic.DiffResult> {
  const checked = await provider.check(olds, inputs);
  expect(checked.failures ?? []).toEqual([]);
  return provider.diff(id, olds, checked.inputs);
}

/** Polls a condition on what the simulator saw (not a timed sleep): resolves once it holds, fails after 10 s. */
export async function until(condition: () => boolean): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > 10_000) throw new Error("condition not reached within 10 s");
    await new Promise((r) => setTimeout(r, 10));
  }
}
