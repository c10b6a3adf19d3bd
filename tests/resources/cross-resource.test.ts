/**
 * Different resources of one stack in one provider process (one deployment), and other clients of the account:
 * an ambiguous create, or the resolution of a create recorded as unconfirmed, never takes an object another
 * resource holds or that differs from what it asked for (found by the fleet audit); nor a VM another stack or a
 * colleague made under the same hostname (multistack audit). Against the simulator.
 */
process.env.VMHOST_POLL_FAST_MS ??= "20";
process.env.VMHOST_POLL_MAX_MS ??= "200";
import type * as pulumi from "@pulumi/pulumi";
import { createClient, type VmHostClient } from "../../provider/api";
import { configure, resetContext, setProgressSink } from "../../provider/context";
import { providers } from "../../provider";
import { claimedByStack, leavingIdentity, objectsOfThisStack } from "../../provider/resources/common/replacements";
import { forgetDeployment } from "../../provider/registry";
import { forgetPreviewNotes } from "../../provider/resources/common/preflight";
import { startSimulator, type RunningSimulator } from "../../simulator";
import { createRunningInstance, until } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

jest.setTimeout(120_000);
type P = Required<pulumi.dynamic.ResourceProvider>;
const instance = () => providers.Instance as P;
let sim: RunningSimulator;
let client: VmHostClient;
const log: string[] = [];
beforeAll(async () => {
  sim = await startSimulator({ opSeconds: 0.05 });
  client = createClient({ baseUrl: sim.url, apiKey: sim.apiKey, logger: false });
  await configure({ config: { get: (k: string) => ({ "vmhost:apiKey": sim.apiKey, "vmhost:baseUrl": sim.url } as Record<string, string>)[k] } });
  setProgressSink((l) => void log.push(l));
});
afterAll(async () => { resetContext(); await sim.close(); });
afterEach(() => forgetDeployment());
const admin = async (method: string, p: string, body?: unknown) => {
  const r = await fetch(`${sim.adminUrl}${p}`, { method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  return r.json() as Promise<any>;
};
const simState = () => admin("GET", "/state");
const checked = async (p: P, news: Record<string, unknown>, olds: Record<string, unknown> = {}) => {
  const r = await p.check(olds, news);
  expect(r.failures ?? []).toEqual([]);
  return r.inputs as Record<string, unknown>;
};

test("T3 a VM renamed INTO a hostname while another resource's create of it is reset before processing is not taken by that create", async () => {
  const created = await instance().create(await checked(instance(), { ...validCreate, hostname: "t3-other", cpu: 1, memory: 1, storage: 20 }));
  const bId = created.id;
  objectsOfThisStack.clear();
  const bOlds = created.outs as Record<string, unknown>;
  const bNews = await checked(instance(), { ...validCreate, hostname: "t3-web", cpu: 1, memory: 1, storage: 20 }, bOlds);
  await instance().diff(bId, bOlds, bNews);
  const aInputs = await checked(instance(), { ...validCreate, hostname: "t3-web", cpu: 4, memory: 8, storage: 80 });
  await admin("POST", "/faults", { resetNext: { operation: "createInstance", afterProcessing: false } });
  const mark = sim.requests().at(-1)!.seq;
  const aP = instance().create(aInputs);
  // B's update starts when A's POST was reset (the engine runs both at once; this is one of the interleavings)
  await until(() => sim.requests().some((q) => q.seq > mark && q.operation === "createInstance"));
  const bP = instance().update(bId, bOlds, bNews);
  const [aRes, bRes] = await Promise.allSettled([aP, bP]);
  expect(bRes.status).toBe("fulfilled");
  const aId = aRes.status === "fulfilled" ? aRes.value.id : (aRes as PromiseRejectedResult).reason.message;
  expect(aId).not.toBe(bId);
  // B's VM kept its own sizes (A's create did not take it and "make it as declared")
  const vms = (await simState()).instances.filter((i: any) => i.hostname.startsWith("t3-"));
  expect(vms.find((v: any) => v.uuid === bId)).toMatchObject({ hostname: "t3-web", cpu: 1, memoryGb: 1, storageGb: 20 });
});

test("T5 another client's VM of the same hostname (other sizes), made while this create's POST is reset before processing, is neither taken nor a reason to send again", async () => {
  const aInputs = await checked(instance(), { ...validCreate, hostname: "t5-web", cpu: 1, memory: 1, storage: 20 });
  await admin("POST", "/faults", { resetNext: { operation: "createInstance", afterProcessing: false } });
  const mark = sim.requests().at(-1)!.seq;
  const aP = instance().create(aInputs);
  await until(() => sim.requests().some((q) => q.seq > mark && q.operation === "createInstance"));
  // the other stack's create (its own client: another provider process), sent right after ours failed
  const other = createClient({ baseUrl: sim.url, apiKey: sim.apiKey, logger: false });
  const theirs = (await other.instances.create({ locationId: 1, tierId: 2, templateId: 1, hostname: "t5-web", cpu: 2, memory: 2, storage: 20,
    username: "deploy", password: "Other-Stack-42", usePublicIp: false, useDedicatedCpu: null, useSharedCpu: null, vswitch: null, sshKeys: null, includeBackup: null, publicNetwork: null } as any)).uuid;
  // (had the comparison misjudged our own VM, a resend would have made a second one: the user decides instead)
  await expect(aP).rejects.toThrow(`${theirs} appeared meanwhile but differs from what was asked, so it was neither taken nor the request sent again`);
  const vms = (await simState()).instances.filter((i: any) => i.hostname === "t5-web");
  expect(vms.map((v: any) => v.uuid)).toEqual([theirs]);
});

test("T6 an unconfirmed Instance (its create did not happen) removed while another Instance is renamed to its hostname: its delete leaves that VM", async () => {
  // up 1: A (t6-web) recorded as unconfirmed: its create request failed and could not be checked (it did not happen)
  const aInputs = await checked(instance(), { ...validCreate, hostname: "t6-web", cpu: 1, memory: 1, storage: 20 });
  const placeholder = "unconfirmed-1b4e28ba-2fa1-41d2-883f-0016d3cca427";
  const aProps = { ...aInputs, unconfirmedCreate: { what: "instance t6-web in location 1", sentAt: new Date().toISOString(), existing: [], howToFind: 'getInstances({ search: "t6-web" })' } };
  // B exists as t6-api
  const created = await instance().create(await checked(instance(), { ...validCreate, hostname: "t6-api", cpu: 1, memory: 1, storage: 20 }));
  const bId = created.id;
  objectsOfThisStack.clear(); // up 2: a new process
  // up 2: the program drops A and renames B to t6-web. The engine runs B's update, then deletes A at the end (GenerateDeletes).
  const bOlds = created.outs as Record<string, unknown>;
  const bNews = await checked(instance(), { ...validCreate, hostname: "t6-web", cpu: 1, memory: 1, storage: 20 }, bOlds);
  await instance().diff(bId, bOlds, bNews);
  await instance().update(bId, bOlds, bNews);
  await instance().delete(placeholder, aProps);
  const vms = (await simState()).instances.filter((i: any) => i.uuid === bId);
  expect(vms).toHaveLength(1);
});

test("T7 same, but `pulumi refresh` first (as the message advises): the placeholder is not recorded as B's VM", async () => {
  const aInputs = await checked(instance(), { ...validCreate, hostname: "t7-web", cpu: 1, memory: 1, storage: 20 });
  const placeholder = "unconfirmed-2b4e28ba-2fa1-41d2-883f-0016d3cca427";
  const aProps = { ...aInputs, unconfirmedCreate: { what: "instance t7-web in location 1", sentAt: new Date().toISOString(), existing: [], howToFind: 'getInstances({ search: "t7-web" })' } };
  const created = await instance().create(await checked(instance(), { ...validCreate, hostname: "t7-api", cpu: 1, memory: 1, storage: 20 }));
  // B renamed to t7-web by an up (or in the panel) before the refresh
  await client.instances.updateHostname(created.id, { hostname: "t7-web" });
  const read = await instance().read(placeholder, aProps);
  expect(read.id).not.toBe(created.id);
});

test("T8 an unconfirmed Instance renamed in the program (new logical name, same hostname): the old placeholder's delete leaves the new one's VM", async () => {
  const inputs = await checked(instance(), { ...validCreate, hostname: "t8-web", cpu: 1, memory: 1, storage: 20 });
  const placeholder = "unconfirmed-3b4e28ba-2fa1-41d2-883f-0016d3cca427";
  const aProps = { ...inputs, unconfirmedCreate: { what: "instance t8-web in location 1", sentAt: new Date(Date.now() - 60_000).toISOString(), existing: [], howToFind: 'getInstances({ search: "t8-web" })' } };
  objectsOfThisStack.clear(); // up 2: a new process. The engine: create C (new name), then delete A (no longer in the program) at the end.
  const c = await instance().create(inputs);
  await instance().delete(placeholder, aProps);
  const vms = (await simState()).instances.filter((i: any) => i.uuid === c.id);
  expect(vms).toHaveLength(1);
});

test("T9 FirewallRule: an unconfirmed rule renamed in the program: the old placeholder's delete leaves the new resource's rule", async () => {
  const vm = await createRunningInstance(client, "t9-vm");
  const fw = providers.FirewallRule as P;
  const inputs = await checked(fw, { instanceId: vm, protocol: "tcp", port: 22, action: "accept" });
  const placeholder = "unconfirmed-4b4e28ba-2fa1-41d2-883f-0016d3cca427";
  const props = { ...inputs, unconfirmedCreate: { what: `firewall rule tcp/22 (accept) on instance ${vm}`, sentAt: new Date(Date.now() - 60_000).toISOString(), existing: [], howToFind: "panel" } };
  const c = await fw.create(inputs);
  await fw.delete(placeholder, props);
  const rules = (await simState()).firewallRules.filter((r: any) => r.id === c.id);
  expect(rules).toHaveLength(1);
});

test("T7b a refresh in a new process (B not read yet): a VM of the hostname with other sizes than the create asked for is not taken, only named", async () => {
  const aInputs = await checked(instance(), { ...validCreate, hostname: "t7b-web", cpu: 1, memory: 1, storage: 20 });
  const placeholder = "unconfirmed-5b4e28ba-2fa1-41d2-883f-0016d3cca427";
  const aProps = { ...aInputs, unconfirmedCreate: { what: "instance t7b-web in location 1", sentAt: new Date().toISOString(), existing: [], howToFind: 'getInstances({ search: "t7b-web" })' } };
  const created = await instance().create(await checked(instance(), { ...validCreate, hostname: "t7b-api", cpu: 2, memory: 2, storage: 20 }));
  await client.instances.updateHostname(created.id, { hostname: "t7b-web" });
  claimedByStack.clear();
  forgetPreviewNotes();
  objectsOfThisStack.clear();
  expect(await instance().read(placeholder, aProps)).toEqual({});
  expect(log.join("\n")).toContain(`${created.id} appeared too but differs from what the create asked for, so it is not taken for it`);
  await instance().delete(placeholder, aProps);
  expect((await simState()).instances.filter((i: any) => i.uuid === created.id)).toHaveLength(1);
});

test("two Snapshots of one stack with one name on one VM: the second is refused as a clash inside the stack, never told to adopt the first's", async () => {
  const vm = await createRunningInstance(client, "clash-snap-vm");
  const snapshot = providers.Snapshot as P;
  const a = await checked(snapshot, { instanceId: vm, name: "nightly" });
  const b = await checked(snapshot, { instanceId: vm, name: "nightly" });
  const results = await Promise.allSettled([snapshot.create(a), snapshot.create(b)]);
  expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
  const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
  expect(String(refused.reason.message)).toMatch(/belongs to another Snapshot of this stack, so no second one was taken: give this Snapshot another name/);
  expect((await simState()).snapshots.filter((s: any) => s.instanceUuid === vm)).toHaveLength(1);
});

test("two PublicIps of one stack on one VM: the second is refused as a clash inside the stack, never told to adopt the first's address", async () => {
  const vm = await createRunningInstance(client, "clash-ip-vm");
  const pub = providers.PublicIp as P;
  const a = await checked(pub, { instanceId: vm });
  const b = await checked(pub, { instanceId: vm });
  const results = await Promise.allSettled([pub.create(a), pub.create(b)]);
  expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
  const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
  expect(String(refused.reason.message)).toMatch(/held by another PublicIp of this stack: an instance has one public address/);
  expect(String(refused.reason.message)).not.toMatch(/set adoptId/);
});

test("an Instance renamed away frees its hostname for a new Instance of the same up: the create waits for the rename", async () => {
  const created = await instance().create(await checked(instance(), { ...validCreate, hostname: "freed-web" }));
  const bId = created.id;
  claimedByStack.clear();
  forgetPreviewNotes();
  objectsOfThisStack.clear(); // a new process (the next up): it knows B from Diff only
  const bOlds = created.outs as Record<string, unknown>;
  const bNews = await checked(instance(), { ...validCreate, hostname: "freed-old" }, bOlds);
  expect((await instance().diff(bId, bOlds, bNews)).replaces ?? []).toEqual([]);
  // the engine runs A's create and B's update at once; A's create starts first, while B still holds the name
  const creating = instance().create(await checked(instance(), { ...validCreate, hostname: "freed-web" }));
  await instance().update(bId, bOlds, bNews);
  const a = await creating;
  const names = (await simState()).instances.filter((i: any) => [a.id, bId].includes(i.uuid)).map((i: any) => [i.uuid, i.hostname]);
  expect(Object.fromEntries(names)).toEqual({ [a.id]: "freed-web", [bId]: "freed-old" });
});

test("a VM renamed into the hostname a new Instance declares is a clash inside the stack, never a stranger to adopt", async () => {
  const created = await instance().create(await checked(instance(), { ...validCreate, hostname: "into-1" }));
  claimedByStack.clear();
  forgetPreviewNotes();
  objectsOfThisStack.clear(); // the next up: it knows the VM from Diff only
  const olds = created.outs as Record<string, unknown>;
  const news = await checked(instance(), { ...validCreate, hostname: "into-2" }, olds);
  await instance().diff(created.id, olds, news);
  await instance().update(created.id, olds, news);
  // a new Instance of the same name (it depends on the renamed one, so its create comes after the rename)
  const refused = await instance().create(await checked(instance(), { ...validCreate, hostname: "into-2" })).then(() => undefined, (e: unknown) => e);
  expect(String(refused)).toMatch(`instance ${created.id} named into-2 in location 1 belongs to another resource of this stack, so no second one was created`);
  expect(String(refused)).not.toMatch(/adoptId/);
  expect((await simState()).instances.filter((i: any) => i.hostname === "into-2")).toHaveLength(1);
});

test("a rename that fails frees no name: the create waiting for it is refused as a clash inside the stack", async () => {
  const created = await instance().create(await checked(instance(), { ...validCreate, hostname: "kept-web" }));
  claimedByStack.clear();
  forgetPreviewNotes();
  objectsOfThisStack.clear();
  const olds = created.outs as Record<string, unknown>;
  // the rename comes with a disk shrink, which the diff refuses (as the update would) before the rename is noted
  const news = await checked(instance(), { ...validCreate, hostname: "kept-old", storage: 20 }, olds);
  await expect(instance().diff(created.id, olds, news)).rejects.toThrow(/disks cannot shrink/);
  const creating = instance().create(await checked(instance(), { ...validCreate, hostname: "kept-web" })).catch((e: unknown) => e);
  await expect(instance().update(created.id, olds, news)).rejects.toThrow(/disks cannot shrink/);
  expect(String(await creating)).toMatch(`belongs to another resource of this stack, so no second one was created`);
  expect((await simState()).instances.filter((i: any) => i.hostname === "kept-web")).toHaveLength(1);
});

test("the user adopts what an unconfirmed create made (adoptId) and runs up without a refresh: the placeholder's delete leaves that VM", async () => {
  const inputs = await checked(instance(), { ...validCreate, hostname: "uc-adopt" });
  // up 1: the create happened (VM v) but could not be confirmed: recorded as a placeholder
  const v = (await client.instances.create({
    locationId: 1, tierId: 2, templateId: 1, hostname: "uc-adopt", cpu: 2, memory: 4, storage: 40, username: "deploy", password: "Blue-Horse-42",
    usePublicIp: false, useDedicatedCpu: false, useSharedCpu: true, vswitch: null, sshKeys: null, includeBackup: null, publicNetwork: null,
  })).uuid;
  const placeholder = "unconfirmed-6b4e28ba-2fa1-41d2-883f-0016d3cca427";
  const props = { ...inputs, unconfirmedCreate: { what: "instance uc-adopt in location 1", sentAt: new Date().toISOString(), existing: [], howToFind: "panel" } };
  // up 2 (a new process), the program says adoptId: v. The engine: check, diff (replace, delete first), delete, create.
  const news = await checked(instance(), { ...validCreate, hostname: "uc-adopt", adoptId: v }, inputs);
  expect(await instance().diff(placeholder, props, news)).toMatchObject({ replaces: ["unconfirmedCreate"], deleteBeforeReplace: true });
  await instance().delete(placeholder, props);
  expect(log.join("\n")).toContain(`happened (${v}); it is not deleted: a resource of this deployment adopts it (adoptId)`);
  expect((await instance().create(news)).id).toBe(v);
  expect((await simState()).instances.filter((i: any) => i.uuid === v)).toHaveLength(1);
});

test("a PublicIp replaced on its instance (replaceOnChanges) without deleteBeforeReplace is told to use it, not that another PublicIp holds the address", async () => {
  const vm = await createRunningInstance(client, "replace-ip-vm");
  const pub = providers.PublicIp as P;
  const program = { instanceId: vm, rdns: "a.example.com", __replaceOnChanges: ["rdns"] };
  const made = await pub.create(await checked(pub, program));
  const news = await checked(pub, { ...program, rdns: "b.example.com" }, made.outs as Record<string, unknown>);
  expect(await pub.diff(made.id, made.outs, news)).toMatchObject({ replaces: ["rdns"] });
  await expect(pub.create(news)).rejects.toThrow(
    `instance ${vm} still has the address`,
  );
  await expect(pub.create(news)).rejects.toThrow(/a PublicIp replaced on the same instance needs the resource option deleteBeforeReplace: true/);
});

test("a rename that replaceOnChanges turns into a replace frees no name (the old VM keeps it until the end of the up)", async () => {
  const created = await instance().create(await checked(instance(), { ...validCreate, hostname: "roc-web" }));
  const news = await checked(instance(), { ...validCreate, hostname: "roc-web-2", __replaceOnChanges: ["hostname"] }, created.outs as Record<string, unknown>);
  expect(await instance().diff(created.id, created.outs, news)).toMatchObject({ replaces: ["hostname"] });
  expect(leavingIdentity.idsOf("Instance:1/roc-web")).toEqual([]);
  const inPlace = await checked(instance(), { ...validCreate, hostname: "roc-web-2" }, created.outs as Record<string, unknown>);
  await instance().diff(created.id, created.outs, inPlace);
  expect(leavingIdentity.idsOf("Instance:1/roc-web")).toEqual([created.id.toLowerCase()]);
});

test("forgetDeployment (for harnesses that serve several runs from one process) forgets every per-deployment note", async () => {
  const { forgetDeployment } = await import("../../provider/registry");
  const made = await instance().create(await checked(instance(), { ...validCreate, hostname: "forget-web" }));
  const news = await checked(instance(), { ...validCreate, hostname: "forget-web-2" }, made.outs as Record<string, unknown>);
  await instance().diff(made.id, made.outs, news);
  expect(claimedByStack.size + leavingIdentity.idsOf("Instance:1/forget-web").length + objectsOfThisStack.idsOf("Instance:1/forget-web").length).toBeGreaterThan(0);
  forgetDeployment();
  expect([claimedByStack.size, leavingIdentity.idsOf("Instance:1/forget-web"), objectsOfThisStack.idsOf("Instance:1/forget-web")]).toEqual([0, [], []]);
  // an adoption of a VM the forgotten deployment saw held by another resource goes through again
  expect((await instance().create(await checked(instance(), { adoptId: made.id }))).id).toBe(made.id);
});

// Several stacks and people on one account (multistack audit): an ambiguous create of one stack never takes a VM
// another stack (or a colleague in the panel) made under the same hostname.

test("a clone whose request is reset before processing does not take another client's VM of the hostname and tier (other sizes, user, template)", async () => {
  // the source: tier 1, Debian, 1 CPU / 1 GB / 20 GB, user admin
  const source = await createRunningInstance(client, "ms-src");
  const aInputs = await checked(instance(), { cloneFrom: source, hostname: "ms-clone", locationId: 1, tierId: 1, cpu: 2 });
  await admin("POST", "/faults", { resetNext: { operation: "cloneInstance", afterProcessing: false } });
  const mark = sim.requests().at(-1)!.seq;
  const aP = instance().create(aInputs);
  await until(() => sim.requests().some((q) => q.seq > mark && q.operation === "cloneInstance"));
  // another stack (its own provider process) creates a VM of that hostname on the same tier, with its own sizes and user
  const other = createClient({ baseUrl: sim.url, apiKey: sim.apiKey, logger: false });
  const theirs = (await other.instances.create({ locationId: 1, tierId: 1, templateId: 1, hostname: "ms-clone", cpu: 4, memory: 8, storage: 80,
    username: "bob", password: "Other-Stack-42", usePublicIp: false } as any)).uuid;
  const outcome = await aP.then((r) => r.id, (e: Error) => e.message);
  expect(outcome).not.toBe(theirs);
  // the other stack's VM is as it made it (not resized, not renamed, not in this stack)
  const vm = (await simState()).instances.find((i: any) => i.uuid === theirs);
  expect(vm).toMatchObject({ hostname: "ms-clone", cpu: 4, memoryGb: 8, storageGb: 80 });
});

test("a clone whose answer is lost after the API cloned still takes its own clone (and nothing else is made)", async () => {
  const source = await createRunningInstance(client, "ms-src2");
  const aInputs = await checked(instance(), { cloneFrom: source, hostname: "ms-clone2", locationId: 1, tierId: 1, cpu: 2 });
  await admin("POST", "/faults", { resetNext: { operation: "cloneInstance", afterProcessing: true } });
  const { id } = await instance().create(aInputs);
  const vms = (await simState()).instances.filter((i: any) => i.hostname === "ms-clone2");
  expect(vms.map((v: any) => v.uuid)).toEqual([id]);
  expect(vms[0]).toMatchObject({ clonedFrom: source, cpu: 2 });
});

test("an unconfirmed clone's record is not resolved to another client's VM of the hostname and tier (refresh, destroy)", async () => {
  const source = await createRunningInstance(client, "ms-src3");
  const inputs = await checked(instance(), { cloneFrom: source, hostname: "ms-clone3", locationId: 1, tierId: 1 });
  const placeholder = "unconfirmed-6b4e28ba-2fa1-41d2-883f-0016d3cca427";
  const props = { ...inputs, unconfirmedCreate: { what: "instance ms-clone3 in location 1", sentAt: new Date().toISOString(), existing: [], howToFind: 'getInstances({ search: "ms-clone3" })' } };
  const other = createClient({ baseUrl: sim.url, apiKey: sim.apiKey, logger: false });
  const theirs = (await other.instances.create({ locationId: 1, tierId: 1, templateId: 1, hostname: "ms-clone3", cpu: 4, memory: 8, storage: 80,
    username: "bob", password: "Other-Stack-42", usePublicIp: false } as any)).uuid;
  expect(await instance().read(placeholder, props)).toEqual({});
  await instance().delete(placeholder, props);
  expect((await simState()).instances.filter((i: any) => i.uuid === theirs)).toHaveLength(1);
});

test("a create meeting another stack's VM of its hostname (other sizes) is refused saying it differs and may be another stack's, never to adopt those", async () => {
  const other = createClient({ baseUrl: sim.url, apiKey: sim.apiKey, logger: false });
  const theirs = (await other.instances.create({ locationId: 1, tierId: 1, templateId: 1, hostname: "ms-prod", cpu: 4, memory: 8, storage: 80,
    username: "bob", password: "Other-Stack-42", usePublicIp: false } as any)).uuid;
  const inputs = await checked(instance(), { locationId: 1, tierId: 1, templateId: 1, hostname: "ms-prod", cpu: 1, memory: 1, storage: 20, username: "deploy", password: "Blue-Horse-42" });
  const message = await instance().create(inputs).then(() => "created", (e: Error) => e.message);
  expect(message).toContain(`${theirs} differs from what this Instance declares (tier, sizes or user), so unless the program changed since, it is not a VM an interrupted create of this resource made.`);
  expect(message).toContain("It may be another stack's or someone else's on this account");
  expect((await simState()).instances.filter((i: any) => i.hostname === "ms-prod").map((i: any) => i.uuid)).toEqual([theirs]);
});

test("a hostname search over several pages, while another client creates a VM of a matching name, answers each VM once, though the pages showed a row twice", async () => {
  const { SharedHostnameListing } = await import("../../provider/wait/hostname-listing");
  const { collectAll } = await import("../../provider/api/paginate");
  const add = (hostname: string) => admin("POST", "/instances", { hostname });
  await add("shift-old");
  const ours = (await add("shift")).data.uuid as string;
  for (let n = 0; n < 99; n++) await add(`shift-${n}`); // ours is now the 100th newest: the last row of page 1
  const source = {
    list: (q: any, o?: any) => client.instances.list(q, o),
    listAll: (q: any) =>
      collectAll(async (page) => {
        const answer = await client.instances.list({ limit: 100, ...q, page });
        if (page === 1) await add("shift-new"); // another stack's create between the two page reads
        return answer;
      }),
  };
  const listing = new SharedHostnameListing(source as any);
  (listing as any).multiPage = true; // the account spans several pages
  const rows = await listing.named("shift");
  expect(rows.map((r) => r.uuid)).toEqual([ours]);
});

test("a create whose answer is lost after the API acted, while another stack creates its VM of the hostname (other user), takes its own VM only", async () => {
  const aInputs = await checked(instance(), { locationId: 1, tierId: 1, templateId: 1, hostname: "ms-race", cpu: 1, memory: 1, storage: 20, username: "deploy", password: "Blue-Horse-42" });
  await admin("POST", "/faults", { resetNext: { operation: "createInstance", afterProcessing: true } });
  const mark = sim.requests().at(-1)!.seq;
  const aP = instance().create(aInputs);
  await until(() => sim.requests().some((q) => q.seq > mark && q.operation === "createInstance"));
  const other = createClient({ baseUrl: sim.url, apiKey: sim.apiKey, logger: false });
  const theirs = (await other.instances.create({ locationId: 1, tierId: 1, templateId: 1, hostname: "ms-race", cpu: 1, memory: 1, storage: 20,
    username: "ops", password: "Other-Stack-42", usePublicIp: false } as any)).uuid;
  const { id } = await aP;
  const vms = (await simState()).instances.filter((i: any) => i.hostname === "ms-race");
  expect(vms).toHaveLength(2);
  expect(id).not.toBe(theirs);
  expect(vms.find((v: any) => v.uuid === id)).toMatchObject({ username: "deploy" });
});

test("a snapshot whose request is reset before processing does not take a colleague's snapshot of that name on the VM (another description)", async () => {
  const vm = await createRunningInstance(client, "ms-snap-vm");
  const snap = providers.Snapshot as P;
  const inputs = await checked(snap, { instanceId: vm, name: "nightly" });
  await admin("POST", "/faults", { resetNext: { operation: "createSnapshot", afterProcessing: false } });
  const mark = sim.requests().at(-1)!.seq;
  const mine = snap.create(inputs);
  await until(() => sim.requests().some((q) => q.seq > mark && q.operation === "createSnapshot"));
  // a colleague takes a snapshot of the same name in the panel at that moment
  const other = createClient({ baseUrl: sim.url, apiKey: sim.apiKey, logger: false });
  const theirs = (await other.snapshots.create(vm, { name: "nightly", description: "before the kernel upgrade" })).snap_uuid;
  const outcome = await mine.then((r) => r.id, (e: Error) => e.message);
  expect(outcome).not.toBe(theirs);
  expect((await simState()).snapshots.filter((s: any) => s.uuid === theirs)).toHaveLength(1);
});

test("an unconfirmed snapshot's record is not resolved to a colleague's snapshot of that name (another description)", async () => {
  const vm = await createRunningInstance(client, "ms-snap-vm2");
  const snap = providers.Snapshot as P;
  const inputs = await checked(snap, { instanceId: vm, name: "weekly" });
  const placeholder = "unconfirmed-7b4e28ba-2fa1-41d2-883f-0016d3cca427";
  const props = { ...inputs, unconfirmedCreate: { what: `snapshot "weekly" of instance ${vm}`, sentAt: new Date().toISOString(), existing: [], howToFind: "getSnapshots" } };
  const theirs = (await client.snapshots.create(vm, { name: "weekly", description: "mine, by hand" })).snap_uuid;
  expect(await snap.read(placeholder, props)).toEqual({});
  await snap.delete(placeholder, props);
  expect((await simState()).snapshots.filter((s: any) => s.uuid === theirs)).toHaveLength(1);
});
