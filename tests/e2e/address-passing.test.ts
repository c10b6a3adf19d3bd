/**
 * A reserved address passed from one Instance to another in one up (the giver pins another address, the taker pins
 * this one), through the local engine and the real dynamic-provider host. The engine runs the two steps at once, so
 * the taker's request may reach the host while the giver still holds the address.
 */
import { show, simState, specSuite, vmArgs, type Res } from "./spec-stack";

jest.setTimeout(300_000);
const suite = specSuite();

/** The user's reserved addresses (seeded) on no VM in location 1, and the addresses the API made that sit on no VM. */
async function addresses(): Promise<{ free: string[]; madeUnassigned: string[] }> {
  const ips = (await simState(suite.sim)).publicIps as { uuid: string; seeded: boolean; instanceUuid: string | null; locationId?: number }[];
  return {
    free: ips.filter((p) => p.seeded && p.instanceUuid === null && p.locationId === 1).map((p) => p.uuid),
    madeUnassigned: ips.filter((p) => !p.seeded && p.instanceUuid === null).map((p) => p.uuid),
  };
}

test.each([
  ["a new Instance pins it", undefined],
  ["an Instance with an address of its own pins it instead", { publicIp: true }],
])("an address one Instance gives up (pinning another) goes to another in the same up when %s", async (_case, bBefore) => {
  const { free, madeUnassigned } = await addresses();
  const [p, q] = [free[0]!, free[1]!];
  const tag = bBefore ? "pass-own" : "pass-new";
  const before: Res[] = [{ type: "Instance", name: "a", args: vmArgs(`${tag}-a`, { publicNetworkId: p }) }];
  if (bBefore) before.push({ type: "Instance", name: "b", args: vmArgs(`${tag}-b`, bBefore) });
  const s = await suite.newStack();
  const first = await s.run("up", before);
  expect(first.ok ? "" : show(first)).toBe("");
  // the taker declared first: the engine starts its step first
  const after: Res[] = [
    { type: "Instance", name: "b", args: vmArgs(`${tag}-b`, { publicNetworkId: p }) },
    { type: "Instance", name: "a", args: vmArgs(`${tag}-a`, { publicNetworkId: q }) },
  ];
  const passed = await s.run("up", after);
  expect(passed.ok ? "" : show(passed)).toBe(""); // failed (the taker ran first: 422) before the fix; the next up went through
  const [a, b] = [s.res("a")!.id!, s.res("b")!.id!];
  const truth = await simState(suite.sim);
  expect(truth.instances.filter((i) => i.hostname.startsWith(tag)).map((i) => [i.uuid, i.publicIpUuid]).sort()).toEqual([[a, q], [b, p]].sort());
  const check = await s.run("preview", after, { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
  const destroyed = await s.run("destroy", after);
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
  const left = await addresses();
  expect(left.free).toEqual(expect.arrayContaining([p, q])); // the user's addresses stay in the account
  expect(left.madeUnassigned.sort()).toEqual([...madeUnassigned].sort()); // b's own address released with its VM
});

test("an Instance unpinning a reserved address (publicIp: true instead) gives it back, so another one of the up can pin it", async () => {
  const { free, madeUnassigned } = await addresses();
  const p = free[0]!;
  const s = await suite.newStack();
  const first = await s.run("up", [
    { type: "Instance", name: "a", args: vmArgs("unpin-a", { publicNetworkId: p }) },
    { type: "Instance", name: "b", args: vmArgs("unpin-b", { publicIp: true }) },
  ]);
  expect(first.ok ? "" : show(first)).toBe("");
  const after: Res[] = [
    { type: "Instance", name: "b", args: vmArgs("unpin-b", { publicNetworkId: p }) },
    { type: "Instance", name: "a", args: vmArgs("unpin-a", { publicIp: true }) },
  ];
  const passed = await s.run("up", after);
  expect(passed.ok ? "" : show(passed)).toBe(""); // a kept p and b was refused at every up before the fix
  const [a, b] = [s.res("a")!.id!, s.res("b")!.id!];
  const truth = await simState(suite.sim);
  expect(truth.instances.find((i) => i.uuid === b)?.publicIpUuid).toBe(p);
  const aHolds = truth.instances.find((i) => i.uuid === a)?.publicIpUuid;
  expect(aHolds).toEqual(expect.any(String));
  expect(aHolds).not.toBe(p);
  expect(s.res("a")!.outputs).toMatchObject({ publicIp: true, publicIpId: aHolds, madePublicIpId: aHolds });
  const check = await s.run("preview", after, { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
  const destroyed = await s.run("destroy", after);
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
  const left = await addresses();
  expect(left.free).toContain(p); // the user's address stays in the account
  expect(left.madeUnassigned.sort()).toEqual([...madeUnassigned].sort()); // the addresses the API gave a and b are released
});

test("two Instances swap their pinned reserved addresses in place in one up", async () => {
  const { free } = await addresses();
  const [p, q] = [free[0]!, free[1]!];
  const s = await suite.newStack();
  const first = await s.run("up", [
    { type: "Instance", name: "a", args: vmArgs("swap-a", { publicNetworkId: p }) },
    { type: "Instance", name: "b", args: vmArgs("swap-b", { publicNetworkId: q }) },
  ]);
  expect(first.ok ? "" : show(first)).toBe("");
  const swapped: Res[] = [
    { type: "Instance", name: "a", args: vmArgs("swap-a", { publicNetworkId: q }) },
    { type: "Instance", name: "b", args: vmArgs("swap-b", { publicNetworkId: p }) },
  ];
  const up = await s.run("up", swapped);
  expect(up.ok ? "" : show(up)).toBe(""); // each held what the other pins: both refused at every up before the fix
  const [a, b] = [s.res("a")!.id!, s.res("b")!.id!];
  const truth = await simState(suite.sim);
  expect(truth.instances.find((i) => i.uuid === a)!.publicIpUuid).toBe(q);
  expect(truth.instances.find((i) => i.uuid === b)!.publicIpUuid).toBe(p);
  const check = await s.run("preview", swapped, { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
  const destroyed = await s.run("destroy", swapped);
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
  // your reserved addresses stay in your account
  const left = (await simState(suite.sim)).publicIps;
  expect([p, q].map((x) => left.find((ip) => ip.uuid === x)?.instanceUuid)).toEqual([null, null]);
});

test("a new Instance pinning the address of an Instance the program removes: refused with the way out, which works", async () => {
  const { free } = await addresses();
  const p = free[0]!;
  const s = await suite.newStack();
  const first = await s.run("up", [{ type: "Instance", name: "old", args: vmArgs("giver-old", { publicNetworkId: p }) }]);
  expect(first.ok ? "" : show(first)).toBe("");
  const after: Res[] = [{ type: "Instance", name: "new", args: vmArgs("giver-new", { publicNetworkId: p }) }];
  const refused = await s.run("up", after);
  expect(refused.ok).toBe(false);
  // the host's bare 422 before
  expect(refused.errors.join("\n")).toContain(`publicNetworkId: the host refused reserved address ${p} also after the rest of this up had run, and no VM was created`);
  expect(refused.errors.join("\n")).toContain("run one `pulumi up` without this pin (or without this Instance), then pin it again");
  expect((await simState(suite.sim)).instances.filter((i) => i.hostname === "giver-new")).toEqual([]);
  // the way out the message names
  const without = await s.run("up", [{ type: "Instance", name: "new", args: vmArgs("giver-new") }]);
  expect(without.ok ? "" : show(without)).toBe("");
  const pinnedAgain = await s.run("up", after);
  expect(pinnedAgain.ok ? "" : show(pinnedAgain)).toBe("");
  expect((await simState(suite.sim)).instances.find((i) => i.uuid === s.res("new")!.id)!.publicIpUuid).toBe(p);
  const destroyed = await s.run("destroy", after);
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
});

test("a swap that cannot complete (the other Instance's update is refused) leaves each VM its address", async () => {
  const { free } = await addresses();
  const [p, q] = [free[0]!, free[1]!];
  const s = await suite.newStack();
  const first = await s.run("up", [
    { type: "Instance", name: "a", args: vmArgs("swapfail-a", { publicNetworkId: p }) },
    { type: "Instance", name: "b", args: vmArgs("swapfail-b", { publicNetworkId: q, storage: 30 }) },
  ]);
  expect(first.ok ? "" : show(first)).toBe("");
  const [a, b] = [s.res("a")!.id!, s.res("b")!.id!];
  // b also asks for a smaller disk: its update is refused before any request, so it never gives q up
  const up = await s.run("up", [
    { type: "Instance", name: "a", args: vmArgs("swapfail-a", { publicNetworkId: q }) },
    { type: "Instance", name: "b", args: vmArgs("swapfail-b", { publicNetworkId: p, storage: 20 }) },
  ]);
  expect(up.ok).toBe(false);
  const truth = await simState(suite.sim);
  expect(truth.instances.find((i) => i.uuid === a)!.publicIpUuid).toBe(p); // left with none before the fix
  expect(truth.instances.find((i) => i.uuid === b)!.publicIpUuid).toBe(q);
  const destroyed = await s.run("destroy", [
    { type: "Instance", name: "a", args: vmArgs("swapfail-a", { publicNetworkId: p }) },
    { type: "Instance", name: "b", args: vmArgs("swapfail-b", { publicNetworkId: q, storage: 30 }) },
  ]);
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
});
