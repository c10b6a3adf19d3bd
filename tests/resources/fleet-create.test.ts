/**
 * Concurrent Instance creates (a fleet in one `up`) against the simulator: they share the pre-create hostname
 * listing (provider/wait/hostname-listing.ts) without weakening the duplicate guard.
 * - many creates at once: one listing request for all of them, each VM created exactly once, nothing read twice;
 * - a create in such a batch still refuses to make a twin of a VM with its hostname that the stack does not know;
 * - a create answered ambiguously inside a batch finds its VM with a listing taken AFTER its POST (a listing from
 *   before the POST would show nothing and the create would be sent again: a second VM).
 */
import { providers } from "../../provider";
import { configure, getClient, resetContext, setProgressSink } from "../../provider/context";
import { forgetDurations } from "../../provider/wait/durations";
import { ProviderError } from "../../provider/resources/common/errors";
import { objectsOfThisStack, replacementsInProgress } from "../../provider/resources/common/replacements";
import type { InstanceOutputs } from "../../provider/resources/instance/inputs";
import { startHarness, type FullProvider, type SimHarness } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

const instance = () => providers.Instance as FullProvider;
let h: SimHarness;

beforeAll(async () => {
  h = await startHarness();
  resetContext();
  setProgressSink(() => undefined);
});
afterAll(async () => {
  await h?.close();
});
afterEach(async () => {
  await h.clearFaults();
  replacementsInProgress.clear();
  objectsOfThisStack.clear();
});

/** Checks every input set (as the engine does before creating), then runs all creates at once. */
async function createAll(hostnames: string[]): Promise<PromiseSettledResult<{ id: string; outs: InstanceOutputs }>[]> {
  const checked = await Promise.all(hostnames.map((hostname) => instance().check({}, { ...validCreate, hostname })));
  for (const c of checked) expect(c.failures ?? []).toEqual([]);
  return Promise.allSettled(checked.map(async (c) => (await instance().create(c.inputs)) as { id: string; outs: InstanceOutputs }));
}

const namedInSim = async (hostname: string) => (await h.state()).instances.filter((i) => i.hostname === hostname);

describe("a fleet's creates share the pre-create hostname listing", () => {
  it("ten creates at once: one listing request before the creates, each VM created once with complete outputs", async () => {
    const hostnames = Array.from({ length: 10 }, (_, i) => `fleet-share-${i}`);
    await createAll(["fleet-warm"]); // reads the catalogue once, as the preview's checks of a real up do
    // Nothing known about create durations (a fresh process): this test is about the shared listing and one detail
    // read per VM, seen by the list ticks; reads at a learned end are tested in tests/wait-instance.test.ts.
    forgetDurations();
    const mark = h.sim.requests().at(-1)!.seq;
    const results = await createAll(hostnames);
    expect(results.map((r) => r.status)).toEqual(hostnames.map(() => "fulfilled"));
    const log = h.sim.requests().filter((r) => r.seq > mark);
    const firstCreate = log.findIndex((r) => r.operation === "createInstance");
    const listingsBefore = log.slice(0, firstCreate).filter((r) => r.operation === "listInstances");
    expect(listingsBefore.map((r) => r.query)).toEqual(["limit=100&page=1"]); // one listing, no per-hostname search
    expect(log.filter((r) => r.query.includes("search="))).toEqual([]);
    expect(log.filter((r) => r.operation === "createInstance")).toHaveLength(10);
    // Each VM's detail is read once (when the shared list shows it settled): no second read for the outputs.
    const detailReads = log.filter((r) => r.operation === "getInstance");
    expect(detailReads).toHaveLength(10);
    for (const [i, r] of results.entries()) {
      const { outs } = (r as PromiseFulfilledResult<{ id: string; outs: InstanceOutputs }>).value;
      expect(outs).toMatchObject({ hostname: hostnames[i], cpu: 2, memory: 4, storage: 40, status: "Running", username: "deploy" });
      expect(await namedInSim(hostnames[i]!)).toHaveLength(1);
    }
  });

  it("a create in a batch still refuses beside a VM with its hostname that the stack does not manage", async () => {
    const stranger = await h.newInstance("fleet-twin-2"); // e.g. left by an interrupted up
    const hostnames = Array.from({ length: 5 }, (_, i) => `fleet-twin-${i}`);
    const results = await createAll(hostnames);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled"]);
    const refused = (results[2] as PromiseRejectedResult).reason as Error;
    expect(refused).toBeInstanceOf(ProviderError);
    expect(refused.message).toContain(`adoptId: "${stranger}"`);
    expect((await namedInSim("fleet-twin-2")).map((i) => i.uuid)).toEqual([stranger]); // no twin
    for (const n of [0, 1, 3, 4]) expect(await namedInSim(`fleet-twin-${n}`)).toHaveLength(1);
  });

  it("a create reset after the API made the VM, in a batch, adopts that VM instead of sending again", async () => {
    // The first create POST of the batch takes effect but its answer is lost: the create must look with a listing
    // taken after that POST (one from before it shows nothing, and the create would be sent a second time).
    await h.setFaults({ resetNext: { operation: "createInstance", afterProcessing: true } });
    const hostnames = Array.from({ length: 6 }, (_, i) => `fleet-amb-${i}`);
    const results = await createAll(hostnames);
    expect(results.map((r) => r.status)).toEqual(hostnames.map(() => "fulfilled"));
    const ids = new Set<string>();
    for (const [i, r] of results.entries()) {
      const vms = await namedInSim(hostnames[i]!);
      expect(vms).toHaveLength(1); // exactly one VM per create, the reset one included
      expect((r as PromiseFulfilledResult<{ id: string }>).value.id).toBe(vms[0]!.uuid);
      ids.add(vms[0]!.uuid);
    }
    expect(ids.size).toBe(6);
    expect(h.sim.requests().filter((r) => r.operation === "createInstance" && r.reset)).toHaveLength(1);
  });
});

describe("one client for every resource type", () => {
  it("the host's configure, called once per resource type with the same config, keeps the client (one poller, one catalogue)", async () => {
    const config = (baseUrl: string, more: Record<string, string> = {}) => ({
      get: (k: string) => ({ "vmhost:apiKey": h.sim.apiKey, "vmhost:baseUrl": baseUrl, ...more })[k],
    });
    try {
      await configure({ config: config(h.sim.url) }); // e.g. for Instance
      const first = getClient();
      await configure({ config: config(h.sim.url) }); // e.g. for PublicIp: the same stack config
      expect(getClient()).toBe(first);
      await configure({ config: config(h.sim.url, { "vmhost:requestTimeout": "90s" }) }); // a changed setting: a new client
      expect(getClient()).not.toBe(first);
      await configure({ config: config(`${h.sim.url}/`.replace("/v1/", "/v2")) }); // another configuration: another client
      expect(getClient()).not.toBe(first);
    } finally {
      resetContext();
    }
  });
});
