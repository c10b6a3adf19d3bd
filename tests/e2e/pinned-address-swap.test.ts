/**
 * Two Instances swapping the reserved addresses they pin (publicNetworkId), both replaced in the same up, through
 * the local engine and the real dynamic-provider host. The engine diffs the second Instance only after the first
 * one's create has begun, so the first create meets its address on a VM it does not yet know is being replaced.
 */
import { show, simState, specSuite, vmArgs, type Res } from "./spec-stack";

jest.setTimeout(300_000);
const suite = specSuite();

test("swapping pinned addresses with a replace goes through in one up, and neither of your addresses is released", async () => {
  const free = (await simState(suite.sim)).publicIps.filter((p) => p.seeded && p.instanceUuid === null && (p as { locationId?: number }).locationId === 1);
  const [r1, r2] = [free[0]!.uuid, free[1]!.uuid];
  const before: Res[] = [
    { type: "Instance", name: "a", args: vmArgs("pin-a", { publicNetworkId: r1 }) },
    { type: "Instance", name: "b", args: vmArgs("pin-b", { publicNetworkId: r2 }) },
  ];
  const s = await suite.newStack();
  const up = await s.run("up", before);
  expect(up.ok ? "" : show(up)).toBe("");
  const after: Res[] = [
    { type: "Instance", name: "a", args: vmArgs("pin-a", { templateId: 2, publicNetworkId: r2 }) },
    { type: "Instance", name: "b", args: vmArgs("pin-b", { templateId: 2, publicNetworkId: r1 }) },
  ];
  const swapped = await s.run("up", after);
  expect(swapped.ok ? "" : show(swapped)).toBe("");
  const [a, b] = [s.res("a")!.id!, s.res("b")!.id!];
  const truth = await simState(suite.sim);
  expect(truth.instances.filter((i) => i.hostname.startsWith("pin-")).map((i) => [i.uuid, i.publicIpUuid]).sort()).toEqual([[a, r2], [b, r1]].sort());
  const check = await s.run("preview", after, { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
  const destroyed = await s.run("destroy", after);
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
});
