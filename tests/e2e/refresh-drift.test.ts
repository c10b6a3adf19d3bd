/**
 * Drift in the panel stays drift at every refresh until the cloud or the program changes, and a change undone in
 * the panel is no drift: each refresh diffs the fresh outputs against the inputs of the last up, because read
 * returns no inputs (the engine would store them: RefreshStep.Apply in pulumi/pulumi pkg/resource/deploy/step.go).
 * Through the local engine and the real dynamic-provider host.
 */
import { admin, show, specSuite, until, vmArgs, simState, type Res } from "./spec-stack";

jest.setTimeout(300_000);
const suite = specSuite();

test("a firewall rule or snapshot changed in the panel is drift at every refresh; undone, it is none", async () => {
  const program: Res[] = [
    { type: "Instance", name: "vm", args: vmArgs("refresh-drift-vm") },
    { type: "FirewallRule", name: "fw", args: { instanceId: "$id:vm", protocol: "tcp", port: 22, action: "accept" } },
    { type: "Snapshot", name: "snap", args: { instanceId: "$id:vm", name: "base" } },
  ];
  const stack = await suite.newStack();
  const up = await stack.run("up", program);
  expect(up.ok ? "" : show(up)).toBe("");
  const rule = stack.res("fw")!.id!;
  const snap = stack.res("snap")!.id!;
  const refreshIsClean = async (): Promise<boolean> => (await stack.run("refresh", program, { expectNoChanges: true })).ok;
  expect(await refreshIsClean()).toBe(true);

  await admin(suite.sim, "PATCH", `/firewall-rules/${rule}`, { destinationPort: "2222" });
  await admin(suite.sim, "PATCH", `/snapshots/${snap}`, { name: "renamed" });
  expect(await refreshIsClean()).toBe(false);
  expect(await refreshIsClean()).toBe(false); // still drift: the cloud is not as the program declares
  await admin(suite.sim, "PATCH", `/firewall-rules/${rule}`, { destinationPort: "22" });
  await admin(suite.sim, "PATCH", `/snapshots/${snap}`, { name: "base" });
  expect(await refreshIsClean()).toBe(true); // undone in the panel: as declared again

  // drift left in place is put back by the next up
  await admin(suite.sim, "PATCH", `/firewall-rules/${rule}`, { destinationPort: "2222" });
  expect(await refreshIsClean()).toBe(false);
  const fix = await stack.run("up", program);
  expect(fix.ok ? "" : show(fix)).toBe("");
  await until("rule back on 22", async () => (await simState(suite.sim)).firewallRules.find((r) => r.id === rule)?.destinationPort === "22");
  expect(await refreshIsClean()).toBe(true);
  const destroy = await stack.run("destroy", program);
  expect(destroy.ok ? "" : show(destroy)).toBe("");
});

test("ignoreChanges keeps a change made in the panel after a refresh: no drift, and the next up leaves it", async () => {
  const program: Res[] = [
    { type: "Instance", name: "vm", args: vmArgs("ignore-changes-vm", { powerState: "running" }), opts: { ignoreChanges: ["powerState", "cpu", "memory"] } },
  ];
  const s = await suite.newStack();
  const up = await s.run("up", program);
  expect(up.ok ? "" : show(up)).toBe("");
  const id = s.res("vm")!.id!;
  await admin(suite.sim, "PATCH", `/instances/${id}`, { powerState: "stopped", cpu: 2, memory: 2 });
  const refreshed = await s.run("refresh", program);
  expect(refreshed.ok ? "" : show(refreshed)).toBe("");
  const check = await s.run("preview", program, { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
  const again = await s.run("up", program);
  expect(again.ok ? "" : show(again)).toBe("");
  expect((await simState(suite.sim)).instances.find((i) => i.uuid === id)).toMatchObject({ status: "Stopped", cpu: 2, memoryGb: 2 });
  // a property not ignored is still put back
  await admin(suite.sim, "PATCH", `/instances/${id}`, { hostname: "renamed-in-panel" });
  const fix = await s.run("up", program, { refresh: true });
  expect(fix.ok ? "" : show(fix)).toBe("");
  expect((await simState(suite.sim)).instances.find((i) => i.uuid === id)).toMatchObject({ hostname: "ignore-changes-vm", status: "Stopped", cpu: 2 });
  const destroy = await s.run("destroy", program);
  expect(destroy.ok ? "" : show(destroy)).toBe("");
});
