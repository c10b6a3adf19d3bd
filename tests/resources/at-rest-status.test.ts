/**
 * A VM at rest in a status word some panels show for an order (Pending: awaiting payment or activation) or a suspended
 * service, with operation_flag 0: it is idle, so it can be deleted (design.md: whatever status the VM is in). Read as an
 * operation (normalize.ts operationFlagOf), its delete waited until its deadline.
 */
import "./instance-env";
import { providers } from "../../provider";
import { resetContext } from "../../provider/context";
import { startSimulator, type RunningSimulator } from "../../simulator";
import type { FullProvider } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

const instance = providers.Instance as FullProvider;
let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ opSeconds: 0.05 });
  process.env.VMHOST_API_KEY = sim.apiKey;
  process.env.VMHOST_BASE_URL = sim.url;
  resetContext();
});
afterAll(() => sim.close());

it.each(["Pending", "Suspended", "Stopped"])("a VM at rest in status %s is deleted", async (status) => {
  const inputs = (await instance.check({}, { ...validCreate, hostname: `rest-${status.toLowerCase()}`, timeouts: { delete: "20s" } })).inputs;
  const created = await instance.create(inputs);
  await fetch(`${sim.adminUrl}/instances/${created.id}`, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ status }) });
  const t0 = Date.now();
  const err = await instance.delete(created.id, { ...created.outs, ...inputs }).then(() => undefined, (e: unknown) => e);
  expect(err).toBeUndefined();
  expect(Date.now() - t0).toBeLessThan(10_000);
}, 60_000);
