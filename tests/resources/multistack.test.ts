/**
 * Several stacks and people on one account (multistack audit): an ambiguous create of one stack never takes a VM
 * another stack (or a colleague in the panel) made under the same hostname. Against the simulator.
 */
process.env.VMHOST_POLL_FAST_MS ??= "20";
process.env.VMHOST_POLL_MAX_MS ??= "200";
import type * as pulumi from "@pulumi/pulumi";
import { createClient, type VmHostClient } from "../../provider/api";
import { configure, resetContext, setProgressSink } from "../../provider/context";
import { providers } from "../../provider";
import { forgetDeployment } from "../../provider/registry";
import { startSimulator, type RunningSimulator } from "../../simulator";
import { createRunningInstance, until } from "./attachment-helpers";

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
