/**
 * A password the program passes as a plain string (a literal, or a secret config value read with
 * `config.require`, a common slip) is still a secret in the state: the engine stores inputs as the SDK sends
 * them, and `additionalSecretOutputs` covers only outputs (sdk/nodejs/instance.ts wraps it). Through the local
 * engine and the real language runtime and dynamic-provider host.
 */
import * as fs from "node:fs";
import { show, simState, specSuite, vmArgs, type Res } from "./spec-stack";

jest.setTimeout(300_000);
const suite = specSuite();

test("a plain-string password never appears in the state file, after the create and after changing it", async () => {
  const first = "Plain-Passw0rd-41";
  const second = "Plain-Passw0rd-42";
  const program = (password: string): Res[] => [{ type: "Instance", name: "vm", args: vmArgs("plain-secret-vm", { password }) }];
  const stack = await suite.newStack();
  const up = await stack.run("up", program(first));
  expect(up.ok ? "" : show(up)).toBe("");
  expect(fs.readFileSync(stack.stateFile, "utf8")).not.toContain(first);
  const changed = await stack.run("up", program(second));
  expect(changed.ok ? "" : show(changed)).toBe("");
  const id = stack.res("vm")!.id!;
  expect((await simState(suite.sim)).instances.find((i) => i.uuid === id)).toMatchObject({ password: second });
  expect(fs.readFileSync(stack.stateFile, "utf8")).not.toContain(second);
  const destroy = await stack.run("destroy", program(second));
  expect(destroy.ok ? "" : show(destroy)).toBe("");
});
