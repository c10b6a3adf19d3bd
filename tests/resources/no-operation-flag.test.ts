/**
 * A host whose `operation_flag` stays 0 while operations run (real-api-facts.md: the samples only ever show 0; the
 * simulator's `wire.operationFlag: false`): the status word (`creating`, `stopping`, …) tells that one runs. A create
 * is waited for until it ends, so one that ends in Error is reported (it was recorded as a finished create in status
 * `creating`, and the `up` passed), and a write after it is sent once, not refused as busy until the operation ends.
 */
import "./instance-env";
import { providers } from "../../provider";
import { createClient } from "../../provider/api";
import { resetContext } from "../../provider/context";
import { ResourceInitError } from "../../provider/resources/common/errors";
import { startSimulator, type RunningSimulator } from "../../simulator";
import type { FullProvider } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

const instance = providers.Instance as FullProvider;
let sim: RunningSimulator;
beforeAll(async () => {
  // operations long enough that the provider's first look comes while they run
  sim = await startSimulator({ opSeconds: 0.6, faults: { wire: { operationFlag: false } } });
  process.env.VMHOST_API_KEY = sim.apiKey;
  process.env.VMHOST_BASE_URL = sim.url;
  resetContext();
});
afterAll(() => sim.close());
const simInstance = async (hostname: string) =>
  ((await (await fetch(`${sim.adminUrl}/state`)).json()) as { instances: { uuid: string; hostname: string; status: string }[] }).instances.filter((i) => i.hostname === hostname);

it("the simulator variant: operation_flag and active_operation 0 while a create runs; the client reads the flag from the status", async () => {
  const client = createClient({ baseUrl: sim.url, apiKey: sim.apiKey, logger: false });
  const { uuid } = await client.instances.create({ locationId: 1, tierId: 1, templateId: 2, hostname: "no-flag-raw", cpu: 1, memory: 1, storage: 20, username: "ops", password: "Blue-Horse-42", usePublicIp: false });
  const raw = (await (await fetch(`${sim.url}/instance?search=no-flag-raw`, { headers: { "x-apikey": sim.apiKey } })).json()) as {
    data: { active_operation: number; data: { status: string; operation_flag: number }[] };
  };
  expect([raw.data.active_operation, raw.data.data[0]!.status, raw.data.data[0]!.operation_flag]).toEqual([0, "creating", 0]);
  expect((await client.instances.get(uuid)).operation_flag).toBe(1);
});

it("a create that ends in Error is reported with the VM's id, not recorded as a finished create", async () => {
  sim.setFaults({ failNext: { kind: "create" } });
  const inputs = (await instance.check({}, { ...validCreate, hostname: "no-flag-failed" })).inputs;
  const error = await instance.create(inputs).then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ResourceInitError);
  const [vm] = await simInstance("no-flag-failed");
  expect(vm!.status).toBe("Error");
  expect((error as ResourceInitError).id).toBe(vm!.uuid);
  expect((error as Error).message).toContain("did not become ready");
  expect((error as Error).message).toContain("the instance reports status Error");
});

it("a create then a stop: the stop is sent once the create has ended, once", async () => {
  const inputs = (await instance.check({}, { ...validCreate, hostname: "no-flag-stopped", powerState: "stopped" })).inputs;
  const mark = sim.requests().length;
  const created = await instance.create(inputs);
  expect((created.outs as { status: string }).status).toBe("Stopped");
  expect((await simInstance("no-flag-stopped")).map((i) => [i.uuid, i.status])).toEqual([[created.id, "Stopped"]]);
  const writes = sim.requests().slice(mark).filter((r) => r.method !== "GET").map((r) => `${r.operation} ${r.status}`);
  expect(writes).toEqual(["createInstance 200", "stopInstance 200"]);
});
