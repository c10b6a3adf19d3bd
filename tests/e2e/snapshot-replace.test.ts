/**
 * `pulumi up --replace` of a Snapshot, through the local engine and the real dynamic-provider host, checked against
 * the simulator's state. The engine skips Diff for it and replaces create-before-delete (pulumi/pulumi
 * pkg/resource/deploy/step_generator.go, diff() and isTargetedReplace), so the new snapshot meets the old one of its
 * name, which the provider cannot tell from one left by an interrupted up: refused, naming deleteBeforeReplace; with
 * that option the old one is deleted first and the replace goes through.
 */
import { show, simState, specSuite, vmArgs, type Res } from "./spec-stack";

jest.setTimeout(300_000);
const suite = specSuite();

test("up --replace of a Snapshot says deleteBeforeReplace is needed (nothing changed), and with it replaces the snapshot", async () => {
  const program = (opts?: Record<string, unknown>): Res[] => [
    { type: "Instance", name: "vm", args: vmArgs("snap-replace") },
    { type: "Snapshot", name: "snap", args: { instanceId: "$id:vm", name: "base" }, ...(opts ? { opts } : {}) },
  ];
  const s = await suite.newStack();
  const up = await s.run("up", program());
  expect(up.ok ? "" : show(up)).toBe("");
  const vm = s.res("vm")!.id!;
  const first = s.res("snap")!.id!;
  const snapshots = async () => (await simState(suite.sim)).snapshots.filter((x) => x.instanceUuid === vm).map((x) => x.uuid);

  const refused = await s.run("up", program(), { replace: [s.res("snap")!.urn] });
  expect(refused.ok).toBe(false);
  expect(refused.errors.join("\n")).toContain(
    "(Replacing this Snapshot with `pulumi up --replace` keeping its name needs the resource option deleteBeforeReplace: true",
  );
  expect(await snapshots()).toEqual([first]);
  expect(s.res("snap")!.id).toBe(first);

  const replaced = await s.run("up", program({ deleteBeforeReplace: true }), { replace: [s.res("snap")!.urn] });
  expect(replaced.ok ? "" : show(replaced)).toBe("");
  const second = s.res("snap")!.id!;
  expect(second).not.toBe(first);
  expect(await snapshots()).toEqual([second]);
  const destroy = await s.run("destroy", program({ deleteBeforeReplace: true }));
  expect(destroy.ok ? "" : show(destroy)).toBe("");
});
