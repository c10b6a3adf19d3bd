/**
 * The Diff of a refresh (pulumi/pulumi pkg/resource/deploy/step.go RefreshStep.Apply: the refreshed outputs as olds,
 * the last up's inputs as news) must not fail: a failing refresh Diff fails `pulumi refresh`, and the drift it should
 * record never reaches the state. An adopted VM reinstalled with another template in the panel: the refresh Diff
 * finds a replace-forcing difference, which the Diff of an up refuses for an adopted VM (it is never replaced).
 */
import { show, simState, specSuite, vmArgs, admin, type Res } from "./spec-stack";

jest.setTimeout(300_000);
const suite = specSuite();

test("an adopted VM reinstalled with another template in the panel: refresh records it; preview and up refuse, naming templateId", async () => {
  const uuid = (await admin<{ data: { uuid: string } }>(suite.sim, "POST", "/instances", { hostname: "ra-vm", username: "deploy" })).data.uuid;
  const s = await suite.newStack();
  const program: Res[] = [{ type: "Instance", name: "vm", args: vmArgs("ra-vm", { adoptId: uuid }) }];
  const up = await s.run("up", program);
  expect(up.ok ? "" : show(up)).toBe("");
  await admin(suite.sim, "PATCH", `/instances/${uuid}`, { templateId: 2 });
  const refresh = await s.run("refresh", program);
  expect(refresh.ok ? "" : show(refresh)).toBe("");
  expect(s.res("vm")!.outputs).toEqual(expect.objectContaining({ templateId: 2 }));
  // the program still declares template 1: an up would replace an adopted VM, refused at preview and up
  const preview = await s.run("preview", program);
  expect(preview.ok).toBe(false);
  expect(preview.errors.join("\n")).toContain(`instance ${uuid} was adopted (adoptId) and templateId (the VM has 2, the program declares 1)`);
  // declaring the VM's template is the way on
  const fixed = await s.run("up", [{ type: "Instance", name: "vm", args: vmArgs("ra-vm", { adoptId: uuid, templateId: 2 }) }]);
  expect(fixed.ok ? "" : show(fixed)).toBe("");
  expect((await simState(suite.sim)).instances.find((i) => i.uuid === uuid)).toMatchObject({ templateId: 2 });
});

test("an adopted VM with replaceOnChanges: [\"hostname\"], renamed in the panel: refresh records it; preview refuses the replace", async () => {
  const uuid = (await admin<{ data: { uuid: string } }>(suite.sim, "POST", "/instances", { hostname: "ra-roc", username: "deploy" })).data.uuid;
  const s = await suite.newStack();
  const program: Res[] = [{ type: "Instance", name: "vm", args: vmArgs("ra-roc", { adoptId: uuid }), opts: { replaceOnChanges: ["hostname"] } }];
  const up = await s.run("up", program);
  expect(up.ok ? "" : show(up)).toBe("");
  await admin(suite.sim, "PATCH", `/instances/${uuid}`, { hostname: "ra-roc-panel" });
  const refresh = await s.run("refresh", program);
  expect(refresh.ok ? "" : show(refresh)).toBe("");
  expect(s.res("vm")!.outputs).toEqual(expect.objectContaining({ hostname: "ra-roc-panel" }));
  const preview = await s.run("preview", program);
  expect(preview.ok).toBe(false);
  expect(preview.errors.join("\n")).toContain(`Instance ${uuid} was adopted (adoptId) and replaceOnChanges asks to replace it for hostname`);
  expect((await simState(suite.sim)).instances.find((i) => i.uuid === uuid)).toMatchObject({ hostname: "ra-roc-panel" });
});
