/**
 * Updates the host refuses: a VM with dedicated CPUs whose program leaves dedicatedCpu unmanaged (adopted; a clone
 * of a dedicated source) moved to a tier without dedicated CPUs is refused before any write, naming dedicatedCpu;
 * a refusal by the host (422) says the program must change, not that a re-run finishes it.
 */
import "./instance-env";
import { providers } from "../../provider";
import { forgetDeployment } from "../../provider/registry";
import { harnessSuite, up, type FullProvider } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

const instance = providers.Instance as FullProvider;
const h = harnessSuite();

it("an adopted dedicated-CPU VM moved to a tier without dedicated CPUs is refused before any write, naming dedicatedCpu; with dedicatedCpu: false it goes through", async () => {
  const made = await h().admin<{ data: { uuid: string } }>("POST", "/instances", {
    hostname: "ded-adopt", locationId: 1, tierId: 3, templateId: 2, cpu: 2, memory: 2, storage: 20, dedicatedCpu: true, username: "ops", password: "Blue-Horse-42",
  });
  const program = { adoptId: made.data.uuid, locationId: 1, tierId: 3, templateId: 2, hostname: "ded-adopt", cpu: 2, memory: 2, storage: 20, username: "ops", password: "Blue-Horse-42" };
  const vm = await up(instance, program);
  forgetDeployment(); // the next up: a new provider process
  const moved = (await instance.check(vm.inputs, { ...program, tierId: 1 })).inputs;
  expect(await instance.diff(vm.id, vm.outs, moved)).toMatchObject({ changes: true, replaces: [] });
  const mark = h().mark();
  await expect(instance.update(vm.id, vm.outs, moved)).rejects.toThrow(
    `tierId: the Basic tier (1) has no dedicated CPUs, and instance ${vm.id} has them: set dedicatedCpu: false on this Instance`,
  );
  expect(h().operationsSince(mark).filter((op) => op && !/^(get|list)/.test(op))).toEqual([]);
  // the way out it names
  const shared = (await instance.check(vm.inputs, { ...program, tierId: 1, dedicatedCpu: false })).inputs;
  await instance.update(vm.id, vm.outs, shared);
  expect((await h().state()).instances.find((i) => i.uuid === vm.id)).toMatchObject({ tierId: 1, dedicatedCpu: false });
});

it("an update the host refuses (422) says to change the program, not that the next up retries it", async () => {
  const vm = await up(instance, { ...validCreate, hostname: "refused-update" });
  const elsewhere = (await h().state()).publicIps.find((p) => p.locationId !== 1 && p.instanceUuid === null)!;
  // (check would refuse it at preview; the host's own refusal is what this test is about)
  const error = (await instance.update(vm.id, vm.outs, { ...vm.inputs, publicNetworkId: elsewhere.uuid }).then(() => undefined, (e: unknown) => e)) as Error;
  expect(error.message).toMatch(/HTTP 422/);
  expect(error.message).toContain("change the program as the host's message says before the next `pulumi up`");
  expect(error.message).not.toContain("retries what is left");
});
