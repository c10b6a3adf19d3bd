/**
 * What `up` refuses before changing anything, `preview` refuses too: a pull request's preview that passes must not be
 * followed by an up that fails after the merge. Through the local engine and the real dynamic-provider host, against
 * the simulator: each program's preview fails with the up's message (resource, property, the way out) and writes
 * nothing, and the up after it refuses the same way. Preview calls Check and Diff, never Create or Update (pulumi/pulumi
 * pkg/resource/deploy/step_generator.go), so each refusal is made there: a disk smaller than the VM's, a tier without
 * the VM's dedicated CPUs (an Instance's Diff, and its Check when it adopts the VM), a snapshot renamed in the panel
 * (tests/e2e/snapshot-replace.test.ts), an object to adopt that is not there, two attachments that cannot both hold, and
 * two Instances of one hostname.
 * A refresh, whose Diff shows the same drift, still succeeds (common/refresh-diffs.ts).
 */
import { simRequests, type SimRequest } from "./helpers";
import { admin, show, simState, specSuite, vmArgs, type Res, type SpecStack } from "./spec-stack";

jest.setTimeout(300_000);
const suite = specSuite();

const JKT_NET_1 = "f8aaaff3-480f-475d-88d8-5464b9ee310d";
const JKT_NET_2 = "5d9df75b-eddc-4b4c-bba8-cf358958f15e";
const JKT_DISK = "5d1492a6-7da6-4a96-988f-348b6a24cfa9";
const MISSING = "0e0e0e0e-0000-4000-8000-00000000abcd";

/** The simulator's request log so far, to tell which requests a run made. */
const mark = async (): Promise<number> => (await simRequests(suite.sim)).length;
const writesSince = async (at: number): Promise<SimRequest[]> => (await simRequests(suite.sim)).slice(at).filter((r) => r.method !== "GET");
const madeInPanel = async (hostname: string, extra: Record<string, unknown> = {}): Promise<string> =>
  (await admin<{ data: { uuid: string } }>(suite.sim, "POST", "/instances", { hostname, username: "deploy", ...extra })).data.uuid;

/**
 * Runs `commands` of `program`: each fails with `message` (every part of it) and writes nothing. (An up refused at the
 * Check of one resource may have started another's step already: `upMayWrite`.)
 */
async function refused(
  s: SpecStack, program: Res[], message: string[],
  { commands = ["preview", "up"], refresh, upMayWrite = false }: { commands?: ("preview" | "up")[]; refresh?: boolean; upMayWrite?: boolean } = {},
): Promise<void> {
  for (const command of commands) {
    const at = await mark();
    const r = await s.run(command, program, { refresh });
    if (r.ok) throw new Error(`${command} passed:\n${show(r)}`);
    for (const part of message) expect(r.errors.join("\n")).toContain(part);
    if (command === "preview" || !upMayWrite) expect(await writesSince(at)).toEqual([]);
  }
}

test("a disk grown in the panel: preview --refresh refuses the smaller declared disk, naming storage and the way out; refresh records it", async () => {
  const s = await suite.newStack();
  const program: Res[] = [{ type: "Instance", name: "vm", args: vmArgs("pr-disk") }];
  const up = await s.run("up", program);
  expect(up.ok ? "" : show(up)).toBe("");
  const vm = s.res("vm")!.id!;
  await admin(suite.sim, "PATCH", `/instances/${vm}`, { storage: 40 });
  const refusal = [
    `pulumi-nodejs:dynamic/vmhost:Instance "vm": instance ${vm} has a 40 GB disk and the program declares storage: 20; disks cannot shrink. Declare storage: 40 (or more)`,
    "pulumi up --replace <urn of this Instance>",
    "Nothing was changed.",
  ];
  await refused(s, program, refusal, { commands: ["preview"], refresh: true });
  // the refresh alone shows the drift and records it (its Diff is not the plan's); the up after it refuses
  const refresh = await s.run("refresh", program);
  expect(refresh.ok ? "" : show(refresh)).toBe("");
  expect(s.res("vm")!.outputs).toEqual(expect.objectContaining({ storage: 40 }));
  await refused(s, program, refusal);
  // and so does a smaller disk written in the program
  await refused(s, [{ type: "Instance", name: "vm", args: vmArgs("pr-disk", { storage: 30 }) }], [`has a 40 GB disk and the program declares storage: 30; disks cannot shrink`], { commands: ["preview"] });
  expect((await simState(suite.sim)).instances.find((i) => i.uuid === vm)).toMatchObject({ storageGb: 40 });
  const fixed = await s.run("preview", [{ type: "Instance", name: "vm", args: vmArgs("pr-disk", { storage: 40 }) }]);
  expect(fixed.ok ? "" : show(fixed)).toBe("");
});

test("a VM with dedicated CPUs moved to a tier without them (dedicatedCpu unset): preview refuses, adopting or later, naming tierId and dedicatedCpu", async () => {
  const uuid = await madeInPanel("pr-dedicated", { tierId: 3, dedicatedCpu: true });
  const refusal = (id: string) => [
    `tierId: the Basic tier (1) has no dedicated CPUs, and instance ${id} has them: set dedicatedCpu: false on this Instance`,
    "Nothing was changed.",
  ];
  // adopted onto the Basic tier: the adoption's tier change was refused by the API after the VM was recorded
  const adopting = await suite.newStack();
  await refused(adopting, [{ type: "Instance", name: "vm", args: vmArgs("pr-dedicated", { adoptId: uuid, tierId: 1 }) }], refusal(uuid));
  expect(adopting.state().resources.filter((r) => r.name === "vm")).toEqual([]);
  // adopted as it is, then moved
  const s = await suite.newStack();
  const up = await s.run("up", [{ type: "Instance", name: "vm", args: vmArgs("pr-dedicated", { adoptId: uuid, tierId: 3 }) }]);
  expect(up.ok ? "" : show(up)).toBe("");
  await refused(s, [{ type: "Instance", name: "vm", args: vmArgs("pr-dedicated", { adoptId: uuid, tierId: 1 }) }], refusal(uuid));
  expect((await simState(suite.sim)).instances.find((i) => i.uuid === uuid)).toMatchObject({ tierId: 3, dedicatedCpu: true });
  // the way out it names
  const moved = await s.run("preview", [{ type: "Instance", name: "vm", args: vmArgs("pr-dedicated", { adoptId: uuid, tierId: 1, dedicatedCpu: false }) }]);
  expect(moved.ok ? "" : show(moved)).toBe("");
});

test("adoptId naming nothing there: preview refuses each resource's adoption, naming adoptId and how to find the right id", async () => {
  const vm = await madeInPanel("pr-adopt");
  const cases: [Res, string][] = [
    [{ type: "Snapshot", name: "snap", args: { instanceId: vm, name: "base", adoptId: MISSING } },
      `cannot adopt snapshot ${MISSING}: instance ${vm} has no such snapshot (see getSnapshots({ instanceId: "${vm}" })): set adoptId to one of its snapshots, or remove adoptId to take a new snapshot`],
    [{ type: "FirewallRule", name: "rule", args: { instanceId: vm, protocol: "tcp", port: 22, action: "accept", adoptId: MISSING } },
      `cannot adopt firewall rule ${MISSING}: instance ${vm} has no such rule (see getFirewallRules({ instanceId: "${vm}" })): set adoptId to one of its rules, or remove adoptId to create the rule`],
    [{ type: "PublicIp", name: "ip", args: { instanceId: vm, adoptId: MISSING } },
      `cannot adopt address ${MISSING}: instance ${vm} holds no public address; adoptId must be the uuid of the address the instance has now (see getInstance: publicIp.ipId)`],
    [{ type: "BlockStorageAttachment", name: "disk", args: { instanceId: vm, blockStorageId: JKT_DISK, adoptId: JKT_DISK } },
      `cannot adopt ${JKT_DISK}: it is not attached to instance ${vm}; remove adoptId to attach it`],
    [{ type: "VswitchAttachment", name: "net", args: { instanceId: vm, vswitchId: JKT_NET_1, adoptId: `${vm}/${JKT_NET_1}` } },
      `cannot adopt ${vm}/${JKT_NET_1}: instance ${vm} is on no private network, not on ${JKT_NET_1}; remove adoptId to attach it`],
  ];
  for (const [resource, message] of cases) {
    const s = await suite.newStack();
    await refused(s, [resource], [`pulumi-nodejs:dynamic/vmhost:${resource.type} "${resource.name}": invalid inputs: adoptId: ${message}`]);
  }
});

test("two attachments that cannot both hold: preview refuses the second, naming the property and to declare one", async () => {
  const vm = await madeInPanel("pr-attach");
  const networks = await suite.newStack();
  // (the up refuses at the second one's Check, when the first one's join may have started: preview is what tells)
  await refused(networks, [
    { type: "VswitchAttachment", name: "a", args: { instanceId: vm, vswitchId: JKT_NET_1 } },
    { type: "VswitchAttachment", name: "b", args: { instanceId: vm, vswitchId: JKT_NET_2 } },
  ], ['invalid inputs: vswitchId: VswitchAttachment: another VswitchAttachment of this stack puts instance', "an instance is on one private network at a time", "Declare one VswitchAttachment per instance (remove one of the two). Nothing was changed."], { upMayWrite: true });
  const disks = await suite.newStack();
  await refused(disks, [
    { type: "BlockStorageAttachment", name: "a", args: { instanceId: vm, blockStorageId: JKT_DISK } },
    { type: "BlockStorageAttachment", name: "b", args: { instanceId: vm, blockStorageId: JKT_DISK } },
  ], [`invalid inputs: blockStorageId: BlockStorageAttachment: block storage ${JKT_DISK} on instance ${vm} (blockStorageId and instanceId) is already declared by another BlockStorageAttachment of this program`, "Declare each attachment once"], { upMayWrite: true });
});

test("two Instances declaring one hostname in one location: preview refuses the second, naming hostname", async () => {
  const s = await suite.newStack();
  // (the up refuses the second at its Check, when the first one's create may have started: preview is what tells)
  await refused(s, [
    { type: "Instance", name: "a", args: vmArgs("pr-twice") },
    { type: "Instance", name: "b", args: vmArgs("pr-twice") },
  ], ["invalid inputs: hostname: another Instance of this program declares hostname pr-twice in location 1", "Give this Instance another hostname. Nothing was changed."], { upMayWrite: true });
  expect((await simState(suite.sim)).instances.filter((i) => i.hostname === "pr-twice").length).toBeLessThanOrEqual(1);
});
