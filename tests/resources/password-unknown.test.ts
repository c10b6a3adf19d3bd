/**
 * A password is write-only: the API never shows it. An update whose password request may have been done (its answer
 * lost) records the password as unknown, so the next up sets the declared one, whichever it is.
 */
import "./instance-env";
import { providers } from "../../provider";
import { forgetDeployment } from "../../provider/registry";
import type { InstanceOutputs } from "../../provider/resources/instance/inputs";
import { ResourceInitError } from "../../provider/resources/common/errors";
import { harnessSuite, up, type FullProvider } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

const instance = providers.Instance as FullProvider;
const h = harnessSuite();

it("a password change whose answer was lost is recorded unknown: a program declaring the old password again sets it", async () => {
  const first = "First-Passw0rd-1";
  const vm = await up<InstanceOutputs>(instance, { ...validCreate, hostname: "pw-lost", password: first });
  forgetDeployment();
  const second = (await instance.check(vm.inputs, { ...vm.inputs, password: "Second-Passw0rd-2" })).inputs;
  // the host sets it, and every answer is lost (the connection reset after the host processed the request)
  await h().setFaults({ resetNext: { operation: "setPassword", count: 10, afterProcessing: true } });
  const failure = await instance.update(vm.id, vm.outs, second).then(() => undefined, (e: unknown) => e);
  await h().clearFaults();
  expect(failure).toBeInstanceOf(ResourceInitError);
  expect((await h().admin<{ instances: { uuid: string; password: string }[] }>("GET", "/state")).instances.find((i) => i.uuid === vm.id)?.password).toBe("Second-Passw0rd-2");
  const recorded = (failure as ResourceInitError).properties as unknown as InstanceOutputs;
  expect(recorded.password).toBeUndefined();
  // the user goes back to the first password: the next up must send it (recorded as the first, it planned nothing)
  forgetDeployment();
  const back = (await instance.check(recorded, { ...vm.inputs, password: first })).inputs;
  expect(await instance.diff(vm.id, recorded, back)).toMatchObject({ changes: true });
  await instance.update(vm.id, recorded, back);
  expect((await h().admin<{ instances: { uuid: string; password: string }[] }>("GET", "/state")).instances.find((i) => i.uuid === vm.id)?.password).toBe(first);
});
