/**
 * The Snapshot provider against the simulator: check before any call, diff, create/read/update/delete,
 * drift, 404 semantics, adopt, and a failing snapshot recorded with its id.
 */
import { createRunningInstance, until, waitUntilRunning } from "./attachment-helpers";
import type * as pulumi from "@pulumi/pulumi";
import { createClient, type Snapshot, type VmHostClient } from "../../provider/api";
import { configure, getClient, resetContext, setProgressSink } from "../../provider/context";
import { ProviderError, ResourceInitError } from "../../provider/resources/common/errors";
import { UNKNOWN_VALUE } from "../../provider/resources/common/check";
import { snapshotProvider } from "../../provider/resources/snapshot/provider";
import type { SnapshotInputs, SnapshotOutputs } from "../../provider/resources/snapshot/inputs";
import { providers } from "../../provider";
import { durationsFor, forgetDurations } from "../../provider/wait/durations";
import { startSimulator, type RunningSimulator } from "../../simulator";

/** Pulumi calls providers with untyped property bags; so do these tests. */
const provider = snapshotProvider as pulumi.dynamic.ResourceProvider;

let sim: RunningSimulator;
let client: VmHostClient;
let restoreSink: (line: string) => void;

/** Requests that reached /v1 since `since` (the log's seq). */
const apiRequests = (since = 0) => sim.requests().filter((r) => r.seq > since && r.path.startsWith("/v1"));
const lastSeq = () => sim.requests().at(-1)?.seq ?? 0;
const writes = (since: number) => apiRequests(since).filter((r) => r.method !== "GET");

let hostCounter = 0;
async function newInstance(): Promise<string> {
  return createRunningInstance(client, `snap-test-${++hostCounter}`);
}

const checked = async (news: Record<string, unknown>): Promise<SnapshotInputs> => {
  const r = await provider.check!({}, news);
  expect(r.failures).toBeUndefined();
  return r.inputs as SnapshotInputs;
};

beforeAll(async () => {
  sim = await startSimulator({ opSeconds: 0.05 });
  client = createClient({ baseUrl: sim.url, apiKey: sim.apiKey, logger: false });
  await configure({ config: { get: (k: string) => ({ "vmhost:apiKey": sim.apiKey, "vmhost:baseUrl": sim.url } as Record<string, string>)[k] } });
  restoreSink = setProgressSink(() => undefined);
});
afterAll(async () => {
  setProgressSink(restoreSink);
  resetContext();
  await sim.close();
});

it("is the provider the serialized stub finds by name (providers.Snapshot)", async () => {
  // registered under its name (wrapped by the shared behaviour of provider/registry.ts): its own check answers
  const vm = "6f1c2a3b-0000-4000-8000-000000000001";
  const bad = await providers.Snapshot.check!({}, { instanceId: vm });
  expect(bad.failures?.map((f) => f.property)).toContain("name");
});

describe("Snapshot check", () => {
  it("refuses bad inputs, naming each property, without any API call", async () => {
    const vm = "6f1c2a3b-0000-4000-8000-000000000001";
    const bad: [Record<string, unknown>, string][] = [
      [{ name: "s" }, "instanceId"],
      [{ instanceId: "web-1", name: "s" }, "instanceId"],
      [{ instanceId: vm }, "name"],
      [{ instanceId: vm, name: "" }, "name"],
      [{ instanceId: vm, name: "x".repeat(51) }, "name"],
      [{ instanceId: vm, name: "before/upgrade" }, "name"],
      [{ instanceId: vm, name: "s", description: "d".repeat(256) }, "description"],
      [{ instanceId: vm, name: "s", description: 42 }, "description"],
      [{ instanceId: vm, name: "s", adoptId: "latest" }, "adoptId"],
      [{ instanceId: vm, name: "s", timeouts: { create: "soon" } }, "timeouts.create"],
      [{ instanceId: vm, name: "s", timeouts: { update: "5m" } }, "timeouts.update"],
    ];
    const before = lastSeq();
    for (const [news, property] of bad) {
      const r = await provider.check!({}, news);
      expect(r.failures?.map((f) => f.property)).toContain(property);
    }
    expect(apiRequests(before)).toEqual([]);
  });
});

describe("Snapshot diff", () => {
  const olds = {
    instanceId: "6f1c2a3b-0000-4000-8000-000000000001", name: "a", description: "d", status: "Ready", declaredName: "a", declaredDescription: "d",
  } as SnapshotOutputs;
  it.each<[string, Partial<SnapshotInputs> | Record<string, unknown>, boolean, string[]]>([
    ["same inputs: no change", { instanceId: olds.instanceId, name: "a", description: "d" }, false, []],
    ["new name: replace", { instanceId: olds.instanceId, name: "b", description: "d" }, true, ["name"]],
    ["instance unknown in preview: replace", { instanceId: UNKNOWN_VALUE, name: "a", description: "d" }, true, ["instanceId"]],
    ["timeouts only: update without replacement", { instanceId: olds.instanceId, name: "a", description: "d", timeouts: { delete: "1m" } }, true, []],
  ])("%s", async (_what, news, changes, replaces) => {
    const d = await provider.diff!("id", olds, news);
    expect(d.changes).toBe(changes);
    expect(d.replaces).toEqual(replaces);
  });
});

describe("Snapshot lifecycle", () => {
  let vm: string;
  beforeAll(async () => {
    vm = await newInstance();
  });

  it("creates a Ready snapshot, reads back the same outputs, records timeouts without an API write, and deletes it", async () => {
    const inputs = await checked({ instanceId: vm, name: "before-upgrade", description: "taken by a test" });
    const created = await provider.create(inputs);
    expect(created.outs).toEqual(
      expect.objectContaining({ instanceId: vm, name: "before-upgrade", description: "taken by a test", status: "Ready", isCurrentState: true }),
    );
    expect(created.outs.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect((await client.snapshots.list(vm)).map((s) => s.id)).toContain(created.id);

    // refresh right after up shows no change
    const read = await provider.read!(created.id, created.outs);
    expect(read.id).toBe(created.id);
    expect(read.props).toEqual(created.outs);
    // an id in another letter case is the same snapshot, not one gone (satellites audit)
    expect((await provider.read!(created.id.toUpperCase(), created.outs)).props).toEqual(created.outs);
    expect((await provider.diff!(created.id, read.props as SnapshotOutputs, inputs)).changes).toBe(false);

    // timeouts change in place and need no API write
    const since = lastSeq();
    const newInputs = await checked({ instanceId: vm, name: "before-upgrade", description: "taken by a test", timeouts: { delete: "2m" } });
    const updated = await provider.update!(created.id, created.outs, newInputs);
    expect(updated.outs).toEqual({ ...created.outs, timeouts: { delete: "2m" } });
    expect(writes(since)).toEqual([]);

    await provider.delete!(created.id, updated.outs as SnapshotOutputs);
    expect((await client.snapshots.list(vm)).map((s) => s.id)).not.toContain(created.id);
    // deleting again is fine (already gone) and sends nothing
    const again = lastSeq();
    await provider.delete!(created.id, updated.outs as SnapshotOutputs);
    expect(writes(again)).toEqual([]);
  });

  it.each(["Completed", "Tersedia", "Done"])("a host whose finished snapshot reads %p: the create ends when it is taken, not at its deadline", async (word) => {
    // simulator audit: a finished word the provider did not list made the create wait until timeouts.create
    sim.setFaults({ wire: { snapshotReady: word } });
    try {
      const inputs = await checked({ instanceId: vm, name: `word-${word}`, timeouts: { create: "20s" } });
      const created = await provider.create(inputs);
      expect(created.outs).toMatchObject({ name: `word-${word}`, status: word });
      const read = await provider.read!(created.id, created.outs);
      expect((await provider.diff!(created.id, read.props as SnapshotOutputs, inputs)).changes).toBe(false);
      await provider.delete!(created.id, created.outs);
    } finally {
      sim.setFaults({ wire: null });
    }
  });

  it("a status word not known as finished or failed is waited on, never taken as finished, and named", async () => {
    // review: taken as finished once the instance was idle, a snapshot still being taken was recorded as a restore point
    sim.setFaults({ wire: { snapshotReady: "Zzz" } });
    const said: string[] = [];
    setProgressSink((line) => void said.push(line));
    try {
      const error = await provider.create(await checked({ instanceId: vm, name: "word-unknown", timeouts: { create: "3s" } })).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ResourceInitError);
      expect((error as Error).message).toMatch(/did not become Ready: .*last status seen: Zzz/);
      expect(said.join("\n")).toContain('status "Zzz" is not a word this provider knows as finished or failed, so it waits');
    } finally {
      setProgressSink(() => undefined);
      sim.setFaults({ wire: null });
    }
  });

  it("a delete the API ends with status Error: the error says the snapshot is still there and how to finish the job; the next delete does", async () => {
    const created = await provider.create(await checked({ instanceId: vm, name: "del-fails", description: "d" }));
    sim.setFaults({ failNext: { kind: "snapshotDelete" } });
    // audit (destroy): "snapshot … to be deleted failed: the API reports status Error", nothing about what is left
    await expect(provider.delete!(created.id, created.outs)).rejects.toThrow(
      `snapshot ${created.id} of instance ${vm} was not deleted: the API reports status Error for it after its delete, and it is still listed (it may bill). It stays in the stack: the next \`pulumi destroy\``,
    );
    expect((await client.snapshots.list(vm)).find((s) => s.id === created.id)?.status).toBe("Error");
    await provider.delete!(created.id, created.outs);
    expect((await client.snapshots.list(vm)).map((s) => s.id)).not.toContain(created.id);
  });

  it("shows drift: a snapshot deleted out of band reads as gone", async () => {
    const created = await provider.create(await checked({ instanceId: vm, name: "drift" }));
    await client.snapshots.delete(vm, created.id);
    // the delete takes an operation's time in the simulator: poll its list, failing after 10 s instead of hanging
    for (const deadline = Date.now() + 10_000; (await client.snapshots.list(vm)).some((s) => s.id === created.id); ) {
      if (Date.now() > deadline) throw new Error(`snapshot ${created.id} still listed 10 s after its delete`);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await provider.read!(created.id, created.outs)).toEqual({});
  });

  it("treats an unknown snapshot, or one whose instance is gone, as gone (read {} and delete succeeds)", async () => {
    const unknownId = "0b7e9c1d-0000-4000-8000-0000000000ff";
    const props = { instanceId: vm, name: "x", description: "d" } as SnapshotOutputs;
    expect(await provider.read!(unknownId, props)).toEqual({});
    await provider.delete!(unknownId, props);

    const doomed = await newInstance();
    const created = await provider.create(await checked({ instanceId: doomed, name: "orphan" }));
    await fetch(`${sim.adminUrl}/instances/${doomed}`, {
      method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ deleted: true }),
    });
    expect(await provider.read!(created.id, created.outs)).toEqual({});
    await provider.delete!(created.id, created.outs);
  });

  it("adopts an existing snapshot without taking a new one, and refuses one that differs from the declaration", async () => {
    const { snap_uuid } = await client.snapshots.create(vm, { name: "nightly", description: "made in the panel" });
    await waitUntilRunning(client, vm);

    const since = lastSeq();
    const adopted = await provider.create(await checked({ instanceId: vm, name: "nightly", description: "made in the panel", adoptId: snap_uuid }));
    expect(adopted.id).toBe(snap_uuid);
    expect(adopted.outs).toEqual(expect.objectContaining({ status: "Ready", adoptId: snap_uuid }));
    expect(writes(since)).toEqual([]);

    const mismatch = provider.create(await checked({ instanceId: vm, name: "nightly", adoptId: snap_uuid }));
    await expect(mismatch).rejects.toThrow(ProviderError);
    await expect(mismatch).rejects.toThrow(/description is "made in the panel"/);
    await expect(provider.create(await checked({ instanceId: vm, name: "x", adoptId: "0b7e9c1d-0000-4000-8000-0000000000fe" }))).rejects.toThrow(
      /has no such snapshot/,
    );
  });

  it("refuses to take a snapshot beside one of its name it does not manage, naming it and the adoptId that would manage it", async () => {
    const { snap_uuid } = await client.snapshots.create(vm, { name: "left-behind", description: "from an interrupted up" });
    await waitUntilRunning(client, vm);
    const since = lastSeq();
    const error = await provider.create(await checked({ instanceId: vm, name: "left-behind" })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toContain(`already has a snapshot named "left-behind" (${snap_uuid})`);
    expect((error as Error).message).toContain(`set adoptId: "${snap_uuid}"`);
    expect(writes(since)).toEqual([]);
    expect((await client.snapshots.list(vm)).filter((s) => s.name === "left-behind").map((s) => s.id)).toEqual([snap_uuid]);
  });

  it("a diff that replaces nothing never lets a create stand beside a snapshot of the same name", async () => {
    const host = await newInstance();
    const kept = await provider.create(await checked({ instanceId: host, name: "nightly" }));
    // an in-place change only: no replacement is under way
    expect((await provider.diff!(kept.id, kept.outs, await checked({ instanceId: host, name: "nightly", timeouts: { delete: "5m" } }))).replaces ?? []).toEqual([]);
    // (held by a resource of this stack: refused as a clash, not with advice to adopt it)
    await expect(provider.create(await checked({ instanceId: host, name: "nightly" }))).rejects.toThrow(
      `name: snapshot ${kept.id} named "nightly" of instance ${host} belongs to another Snapshot of this stack, so no second one was taken`,
    );
    await provider.delete!(kept.id, kept.outs);
  });

  it("refuses to adopt a snapshot of an instance that does not exist, naming the instance", async () => {
    const missingVm = "6f1c2a3b-0000-4000-8000-0000000000ee";
    await expect(
      provider.create(await checked({ instanceId: missingVm, name: "x", adoptId: "0b7e9c1d-0000-4000-8000-0000000000fd" })),
    ).rejects.toThrow(`cannot adopt snapshot 0b7e9c1d-0000-4000-8000-0000000000fd: instance ${missingVm} does not exist`);
  });

  it("refuses an in-place update of a snapshot deleted out of band, and says to refresh", async () => {
    const created = await provider.create(await checked({ instanceId: vm, name: "vanishing" }));
    await provider.delete!(created.id, created.outs);
    const since = lastSeq();
    await expect(
      provider.update!(created.id, created.outs, await checked({ instanceId: vm, name: "vanishing", timeouts: { delete: "1m" } })),
    ).rejects.toThrow(new RegExp(`snapshot ${created.id} of instance ${vm} no longer exists: run pulumi refresh`));
    expect(writes(since)).toEqual([]);
  });

  it("deletes successfully when the instance is deleted while the snapshot's delete runs, and fails on any other refusal", async () => {
    const admin = (uuid: string, patch: Record<string, unknown>) =>
      fetch(`${sim.adminUrl}/instances/${uuid}`, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify(patch) });
    const doomed = await newInstance();
    const created = await provider.create(await checked({ instanceId: doomed, name: "goes-with-its-vm" }));
    const spy = jest.spyOn(getClient().snapshots, "delete").mockImplementation(async () => {
      await admin(doomed, { deleted: true });
      throw new Error("connection reset while the instance was being deleted");
    });
    try {
      await expect(provider.delete!(created.id, created.outs)).resolves.toBeUndefined();
    } finally {
      spy.mockRestore();
    }

    const kept = await provider.create(await checked({ instanceId: vm, name: "refused-delete" }));
    const failing = jest.spyOn(getClient().snapshots, "delete").mockRejectedValue(new Error("the host refused"));
    try {
      await expect(provider.delete!(kept.id, kept.outs)).rejects.toThrow("the host refused");
    } finally {
      failing.mockRestore();
    }
    expect((await client.snapshots.list(vm)).some((s) => s.id === kept.id)).toBe(true);
    await provider.delete!(kept.id, kept.outs);
  });

  it("reads, updates and deletes the snapshot its id names when the instance has several", async () => {
    const host = await newInstance();
    const first = await provider.create(await checked({ instanceId: host, name: "first" }));
    const second = await provider.create(await checked({ instanceId: host, name: "second" }));
    const read = await provider.read!(second.id, second.outs);
    expect(read.props).toEqual(expect.objectContaining({ name: "second" }));
    const updated = await provider.update!(second.id, second.outs, await checked({ instanceId: host, name: "second", timeouts: { delete: "1m" } }));
    expect(updated.outs).toEqual(expect.objectContaining({ name: "second", timeouts: { delete: "1m" } }));
    await provider.delete!(second.id, updated.outs as SnapshotOutputs);
    expect((await client.snapshots.list(host)).map((s) => s.name)).toEqual(["first"]);
    // deleting it again sends nothing, though another snapshot is listed
    const since = lastSeq();
    await provider.delete!(second.id, updated.outs as SnapshotOutputs);
    expect(writes(since)).toEqual([]);
    await provider.delete!(first.id, first.outs);
  });

  it("replaces a snapshot whose description changed under the same name: the new one is taken beside the old one", async () => {
    const host = await newInstance();
    const old = await provider.create(await checked({ instanceId: host, name: "weekly", description: "v1" }));
    const news = await checked({ instanceId: host, name: "weekly", description: "v2" });
    // the registered provider, as the engine gets it: it notes the old snapshot as being replaced
    expect((await providers.Snapshot.diff!(old.id, old.outs, news)).replaces).toEqual(["description"]);
    const replacement = await provider.create(news); // create-before-delete: the old "weekly" still exists here
    expect(replacement.outs).toEqual(expect.objectContaining({ name: "weekly", description: "v2", status: "Ready" }));
    await provider.delete!(old.id, old.outs);
    expect((await client.snapshots.list(host)).map((s) => s.id)).toEqual([replacement.id]);
  });

  // audit F2: renamed in the panel, then `pulumi up --refresh` (examples/ci on every merge) replaced it: a new snapshot of
  // the disk as it is now, and this restore point deleted, with no question.
  it("a snapshot renamed or re-described in the panel is never replaced: refresh keeps the declared values, preview's diff and update refuse, naming them", async () => {
    const host = await newInstance();
    const inputs = await checked({ instanceId: host, name: "baseline" });
    const created = await provider.create(inputs);
    expect(created.outs).toEqual(expect.objectContaining({ declaredName: "baseline", declaredDescription: "Created by Pulumi" }));
    const panel = (patch: Record<string, unknown>) =>
      fetch(`${sim.adminUrl}/snapshots/${created.id}`, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify(patch) });
    expect((await panel({ name: "keep-pre-incident" })).ok).toBe(true);

    const refreshed = (await provider.read!(created.id, created.outs)).props as SnapshotOutputs;
    expect(refreshed).toEqual({ ...created.outs, name: "keep-pre-incident", isCurrentState: refreshed.isCurrentState });
    // the registered provider, as the engine gets it (replaceOnChanges, ignoreChanges and the rest around it). The Diff the
    // engine calls to show what the refresh found (right after its Read): a change, never a replace, so the refresh records
    // the panel's name. The Diff of a preview or up (after Check) and the update refuse it before any API call, also with
    // replaceOnChanges on name: never a replace.
    const since = lastSeq();
    expect(await providers.Snapshot.diff!(created.id, refreshed, inputs)).toEqual(expect.objectContaining({ changes: true, replaces: [] }));
    const refusal = new RegExp(`^snapshot ${created.id} of instance ${host}: its name is "keep-pre-incident" and the program declares "baseline"\\. It was changed outside Pulumi`);
    for (const news of [inputs, { ...inputs, __replaceOnChanges: ["name"] }, { ...inputs, __replaceOnChanges: ["*"] }]) {
      await expect(providers.Snapshot.diff!(created.id, refreshed, news)).rejects.toThrow(refusal);
    }
    await expect(providers.Snapshot.update!(created.id, refreshed, inputs)).rejects.toThrow(refusal);
    expect(writes(since)).toEqual([]);
    expect((await client.snapshots.list(host)).map((s) => s.id)).toEqual([created.id]);

    // ignoreChanges: the panel's name is kept with no change (no drift), and an update for another reason (timeouts)
    // sends nothing and keeps the declared name: the program's is not seen, and the panel's is not the program's
    const ignoring = { ...inputs, __ignoreChanges: ["name"] };
    expect(await providers.Snapshot.diff!(created.id, refreshed, ignoring)).toEqual(expect.objectContaining({ changes: false }));
    const timed = { ...ignoring, timeouts: { delete: "5m" } };
    expect(await providers.Snapshot.diff!(created.id, refreshed, timed)).toEqual(expect.objectContaining({ changes: true, replaces: [] }));
    const kept = (await providers.Snapshot.update!(created.id, refreshed, timed)).outs as SnapshotOutputs;
    expect(kept).toEqual(expect.objectContaining({ name: "keep-pre-incident", declaredName: "baseline", timeouts: { delete: "5m" } }));
    expect(writes(since)).toEqual([]);
    expect((await providers.Snapshot.diff!(created.id, kept, timed)).changes).toBe(false);
    // the option removed again: the panel's rename is refused as before (not taken for a rename in the program)
    await expect(providers.Snapshot.update!(created.id, kept, { ...inputs, timeouts: { delete: "5m" } })).rejects.toThrow(/changed outside Pulumi/);

    // the program declaring the panel's values: an update records it, sending nothing; then nothing to do, and a
    // description changed in the panel then is refused too
    const declared = await checked({ instanceId: host, name: "keep-pre-incident" });
    expect(await provider.diff!(created.id, refreshed, declared)).toEqual(expect.objectContaining({ changes: true, replaces: [] }));
    const recorded = await provider.update!(created.id, refreshed, declared);
    expect(recorded.outs).toEqual(expect.objectContaining({ name: "keep-pre-incident", declaredName: "keep-pre-incident" }));
    expect(writes(since)).toEqual([]);
    expect((await provider.diff!(created.id, recorded.outs, declared)).changes).toBe(false);
    expect((await panel({ description: "do not delete" })).ok).toBe(true);
    const again = (await provider.read!(created.id, recorded.outs)).props as SnapshotOutputs;
    expect((await provider.diff!(created.id, again, declared)).replaces).toEqual([]);
    await expect(provider.update!(created.id, again, declared)).rejects.toThrow(
      /its description is "do not delete" and the program declares "Created by Pulumi"\. .*deleteBeforeReplace: true for that run/,
    );
    // a change in the program still replaces (the documented ForceNew), once the program declares what the snapshot has
    const described = await checked({ instanceId: host, name: "keep-pre-incident", description: "do not delete" });
    const settled = (await provider.update!(created.id, again, described)).outs as SnapshotOutputs;
    expect((await provider.diff!(created.id, settled, described)).changes).toBe(false);
    expect((await provider.diff!(created.id, settled, { ...described, name: "next" })).replaces).toEqual(["name"]);
    expect(writes(since)).toEqual([]);
    await provider.delete!(created.id, settled);
  });

  it("refuses to read a state without instanceId, naming the snapshot", async () => {
    await expect(provider.read!("0b7e9c1d-0000-4000-8000-0000000000fc", {})).rejects.toThrow(
      "cannot read snapshot 0b7e9c1d-0000-4000-8000-0000000000fc: the state has no instanceId",
    );
  });

  it("fails a read whose list answers a server error, instead of reporting the snapshot gone (refresh would drop it)", async () => {
    const created = await provider.create(await checked({ instanceId: vm, name: "outage" }));
    const spy = jest.spyOn(getClient().snapshots, "list").mockRejectedValue(new Error("HTTP 500 from the host"));
    try {
      await expect(provider.read!(created.id, created.outs)).rejects.toThrow("HTTP 500 from the host");
    } finally {
      spy.mockRestore();
    }
    await provider.delete!(created.id, created.outs);
  });

  it("never takes a second snapshot after an ambiguous failure: the one that appeared is adopted", async () => {
    // the connection is cut after the API processed the request: the client cannot know it worked
    sim.setFaults({ resetNext: { operation: "createSnapshot", afterProcessing: true } });
    const before = lastSeq();
    const created = await provider.create(await checked({ instanceId: vm, name: "cut-off" }));
    expect(created.outs.status).toBe("Ready");
    const posts = apiRequests(before).filter((r) => r.method === "POST" && r.path.endsWith("/snapshot/create"));
    expect(posts.map((r) => r.status)).toEqual([null]); // sent once, and its answer never arrived
    expect((await client.snapshots.list(vm)).filter((s) => s.name === "cut-off").map((s) => s.id)).toEqual([created.id]);
    await provider.delete!(created.id, created.outs);
  });

  it("records a snapshot that ends in Error with its id (initialization failure), so destroy can remove it", async () => {
    sim.setFaults({ failNext: { kind: "snapshot" } });
    const inputs = await checked({ instanceId: vm, name: "doomed" });
    const error = await provider.create(inputs).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ResourceInitError);
    const init = error as ResourceInitError;
    const listed = (await client.snapshots.list(vm)).find((s) => s.id === init.id);
    expect(listed?.status).toBe("Error");
    expect(init.message).toMatch(new RegExp(`^snapshot ${init.id} of instance ${vm} did not become Ready: .*status Error`));
    expect(init.cause).toBeDefined();
    expect(init.properties).toEqual(expect.objectContaining({ status: "Error", name: "doomed" }));
    expect(init.reasons).toEqual([expect.stringMatching(/status Error/)]);
    // the recorded snapshot can be destroyed
    await provider.delete!(init.id, init.properties as SnapshotOutputs);
    expect((await client.snapshots.list(vm)).some((s) => s.id === init.id)).toBe(false);
  });

  it("the next up replaces a snapshot recorded in Error (a new one beside it, then the failed one deleted), never reports it done", async () => {
    sim.setFaults({ failNext: { kind: "snapshot" } });
    const inputs = await checked({ instanceId: vm, name: "retake" });
    const init = (await provider.create(inputs).then(() => undefined, (e: unknown) => e)) as ResourceInitError;
    const failed = init.properties as SnapshotOutputs;
    // the registered provider, as the engine gets it: the replace also notes the failed one as being replaced
    expect(await providers.Snapshot.diff!(init.id, failed, inputs)).toMatchObject({ changes: true, replaces: ["status"] });
    const retaken = await provider.create(inputs); // beside the failed one of the same name
    expect(retaken.outs.status).toBe("Ready");
    await provider.delete!(init.id, failed);
    expect((await client.snapshots.list(vm)).filter((s) => s.name === "retake").map((s) => s.id)).toEqual([retaken.id]);
    // the update the engine forces for init errors, on a snapshot still in Error, fails and records its status
    sim.setFaults({ failNext: { kind: "snapshot" } });
    const again = (await provider.create(await checked({ instanceId: vm, name: "retake-2" })).then(() => undefined, (e: unknown) => e)) as ResourceInitError;
    const recordedWithoutStatus = { ...(again.properties as SnapshotOutputs), status: undefined } as unknown as SnapshotOutputs;
    const update = await provider.update!(again.id, recordedWithoutStatus, await checked({ instanceId: vm, name: "retake-2" })).then(() => undefined, (e: unknown) => e);
    expect(update).toBeInstanceOf(ResourceInitError);
    expect((update as ResourceInitError).message).toMatch(/is in status Error: its take failed and it cannot be repaired; `pulumi up` again takes a new one/);
    expect((update as ResourceInitError).properties).toEqual(expect.objectContaining({ status: "Error" }));
    await provider.delete!(again.id, again.properties as SnapshotOutputs);
    await provider.delete!(retaken.id, retaken.outs);
  });

  it("an adopted snapshot in Error is never replaced (the new one would adopt it again): the up fails saying what to do", async () => {
    sim.setFaults({ failNext: { kind: "snapshot" } });
    const made = (await provider.create(await checked({ instanceId: vm, name: "adopt-failed" })).then(() => undefined, (e: unknown) => e)) as ResourceInitError;
    const inputs = await checked({ instanceId: vm, name: "adopt-failed", adoptId: made.id });
    const adopted = (await provider.create(inputs).then(() => undefined, (e: unknown) => e)) as ResourceInitError;
    expect(adopted).toBeInstanceOf(ResourceInitError);
    const outs = adopted.properties as SnapshotOutputs;
    expect(await providers.Snapshot.diff!(made.id, outs, inputs)).toMatchObject({ replaces: [] });
    await expect(provider.update!(made.id, outs, inputs)).rejects.toThrow(/\(adopted\) is in status Error, and an adopted snapshot is never replaced .*remove adoptId/);
    await provider.delete!(made.id, outs);
  });

  it("a snapshot in Error whose program adopts ANOTHER snapshot (one an interrupted retake made) is replaced by adopting that one", async () => {
    sim.setFaults({ failNext: { kind: "snapshot" } });
    const inputs = await checked({ instanceId: vm, name: "adopt-other" });
    const failed = (await provider.create(inputs).then(() => undefined, (e: unknown) => e)) as ResourceInitError;
    // what an interrupted retake left: a Ready snapshot of the name in no state; the refusal advised adopting it
    const other = await client.snapshots.create(vm, { name: "adopt-other", description: inputs.description });
    for (let looks = 0; (await client.snapshots.list(vm)).find((x) => x.id === other.snap_uuid)?.status !== "Ready"; looks++) {
      if (looks > 500) throw new Error(`snapshot ${other.snap_uuid} not Ready within 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const adopting = await checked({ instanceId: vm, name: "adopt-other", adoptId: other.snap_uuid });
    // even with the adoptId recorded in the state by an earlier run's failed update (soak: stuck at every up)
    for (const olds of [failed.properties, { ...(failed.properties as object), adoptId: other.snap_uuid }] as SnapshotOutputs[])
      expect(await providers.Snapshot.diff!(failed.id, olds, adopting)).toMatchObject({ changes: true, replaces: ["status"] });
    const taken = await providers.Snapshot.create!(adopting);
    expect(taken.id).toBe(other.snap_uuid);
    await providers.Snapshot.delete!(failed.id, failed.properties as SnapshotOutputs); // the old half: the failed one
    expect((await client.snapshots.list(vm)).filter((x) => x.name === "adopt-other").map((x) => x.id)).toEqual([other.snap_uuid]);
    await provider.delete!(taken.id, taken.outs as SnapshotOutputs);
  });

  it("ends a stuck snapshot at its deadline with an error naming it and its last status", async () => {
    sim.setFaults({ stickNext: { kind: "snapshot" } });
    const error = await provider.create(await checked({ instanceId: vm, name: "stuck", timeouts: { create: "1s" } })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ResourceInitError);
    expect((error as ResourceInitError).message).toMatch(/timed out/);
    expect((error as ResourceInitError).message).toContain(`waiting for snapshot "stuck" of instance ${vm} (last status seen:`);
    expect((error as ResourceInitError).id).toMatch(/^[0-9a-f-]{36}$/);
    await fetch(`${sim.adminUrl}/instances/${vm}`, {
      method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ cancelOperation: true }),
    });
  });

  it("the update the next up forces on a snapshot recorded unfinished waits for it to be Ready, never records it done before", async () => {
    sim.setFaults({ stickNext: { kind: "snapshot" } });
    const inputs = await checked({ instanceId: vm, name: "late", timeouts: { create: "1s" } });
    const init = (await provider.create(inputs).then(() => undefined, (e: unknown) => e)) as ResourceInitError;
    expect(init).toBeInstanceOf(ResourceInitError);
    const recorded = init.properties as SnapshotOutputs;
    expect(recorded.status).not.toBe("Ready");
    const before = lastSeq();
    const updating = provider.update!(init.id, recorded, inputs);
    // the update has seen it unfinished (two list reads: the look, then the wait's first) before it ends
    await until(() => apiRequests(before).filter((r) => r.operation === "listSnapshots").length >= 2);
    await fetch(`${sim.adminUrl}/instances/${vm}/finish-operation`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ outcome: "success" }),
    });
    expect((await updating).outs).toEqual(expect.objectContaining({ status: "Ready", name: "late" }));
    await provider.delete!(init.id, recorded);
  });
});

describe("Snapshot waits on what the host's list shows", () => {
  let vm: string;
  beforeAll(async () => {
    vm = await newInstance();
    // another snapshot on the same VM: every record below must be of the snapshot its id names
    await provider.create(await checked({ instanceId: vm, name: "neighbour" }));
  });
  afterEach(() => jest.restoreAllMocks());

  const patchInstance = (patch: Record<string, unknown>) =>
    fetch(`${sim.adminUrl}/instances/${vm}`, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify(patch) });

  /** From the moment createSnapshot answers, the provider's reads of the list go through `view`. */
  function afterCreateAnswers(view: (list: Awaited<ReturnType<VmHostClient["snapshots"]["list"]>>, id: string) => typeof list): void {
    const snapshots = getClient().snapshots;
    const list = snapshots.list.bind(snapshots);
    const create = snapshots.create.bind(snapshots);
    jest.spyOn(snapshots, "create").mockImplementation(async (...args) => {
      const answer = await create(...args);
      jest.spyOn(snapshots, "list").mockImplementation(async (...a) => view(await list(...a), answer.snap_uuid));
      return answer;
    });
  }

  it("a snapshot the list keeps showing unfinished fails at the deadline, recorded as the list shows it", async () => {
    afterCreateAnswers((list, id) => list.map((s) => (s.id === id ? { ...s, status: "Pending" } : s)));
    const error = await provider.create(await checked({ instanceId: vm, name: "slow", timeouts: { create: "1s" } })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResourceInitError);
    const init = error as ResourceInitError;
    expect(init.message).toMatch(
      new RegExp(`^snapshot ${init.id} of instance ${vm} did not become Ready: timed out after .* waiting for snapshot ${init.id} of instance ${vm} to be Ready \\(last status seen: Pending\\)`),
    );
    expect(init.properties).toMatchObject({ name: "slow", status: "Pending" });
    jest.restoreAllMocks();
    await provider.delete!(init.id, init.properties as SnapshotOutputs);
  });

  it("a snapshot that vanishes from the list before it is Ready fails, recorded with its id and the declared inputs", async () => {
    afterCreateAnswers((list, id) => list.filter((s) => s.id !== id));
    const error = await provider.create(await checked({ instanceId: vm, name: "vanishing" })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResourceInitError);
    const init = error as ResourceInitError;
    expect(init.message).toBe(
      `snapshot ${init.id} of instance ${vm} did not become Ready: snapshot ${init.id} of instance ${vm} to be Ready failed: ` +
        `snapshot ${init.id} disappeared from instance ${vm}'s list`,
    );
    expect(init.properties).toEqual({ instanceId: vm, name: "vanishing", description: "Created by Pulumi", declaredName: "vanishing", declaredDescription: "Created by Pulumi" });
    jest.restoreAllMocks();
    await provider.delete!(init.id, { ...init.properties, status: "Ready" } as SnapshotOutputs);
  });

  it("delete returns only once the list no longer shows the snapshot; one shown in Error fails; one shown past the deadline names the wait", async () => {
    const snapshots = getClient().snapshots;
    const list = snapshots.list.bind(snapshots);
    const take = async (name: string, timeouts?: Record<string, string>) =>
      provider.create(await checked({ instanceId: vm, name, ...(timeouts ? { timeouts } : {}) }));

    // still listed for a while after the host finished the delete
    const lagging = await take("lagging");
    const stale = (await list(vm)).find((s) => s.id === lagging.id)!;
    let lag = true;
    let reads = 0;
    jest.spyOn(snapshots, "list").mockImplementation(async (id) => {
      const now = await list(id);
      reads++;
      return lag && !now.some((s) => s.id === stale.id) ? [...now, stale] : now;
    });
    let done = false;
    const deleting = provider.delete!(lagging.id, lagging.outs).finally(() => (done = true));
    const start = reads;
    while (reads < start + 3) await new Promise((r) => setTimeout(r, 10)); // polled (each read is a request), not a sleep for timing
    expect(done).toBe(false);
    lag = false;
    await deleting;
    jest.restoreAllMocks();

    for (const [name, status, timeouts, message] of [
      ["failing", "Error", undefined, "the API reports status Error"],
      ["stuck", "Deleting", { delete: "1s" }, "timed out after"],
    ] as const) {
      const snap = await take(name, timeouts);
      const shown = { ...(await list(vm)).find((s) => s.id === snap.id)!, status };
      jest.spyOn(snapshots, "list").mockImplementation(async (id) => [...(await list(id)).filter((s) => s.id !== snap.id), shown]);
      const error = await provider.delete!(snap.id, snap.outs).catch((e: unknown) => e);
      jest.restoreAllMocks();
      expect((error as Error).message).toContain(message);
      if (status === "Deleting") expect((error as Error).message).toContain(`waiting for snapshot ${snap.id} of instance ${vm} to be deleted (last status seen: Deleting)`);
    }
  });

  it("a delete behind an operation that never ends fails at the deadline naming the wait, having sent nothing", async () => {
    const snap = await provider.create(await checked({ instanceId: vm, name: "behind-busy", timeouts: { delete: "1s" } }));
    sim.setFaults({ stickNext: { kind: "stop" } });
    await client.instances.stop(vm);
    const since = lastSeq();
    await expect(provider.delete!(snap.id, snap.outs)).rejects.toThrow(
      new RegExp(`^timed out after .* waiting for deletion of snapshot ${snap.id} of instance ${vm}: instance ${vm} to be idle`),
    );
    expect(writes(since)).toEqual([]);
    await patchInstance({ cancelOperation: true });
    await client.instances.start(vm).catch(() => undefined);
    await waitUntilRunning(client, vm);
  });

  it("refusals name everything: a snapshot of our name we do not manage, an adoption whose name and description differ", async () => {
    const { snap_uuid } = await client.snapshots.create(vm, { name: "foreign", description: "panel" });
    await waitUntilRunning(client, vm);
    await expect(provider.create(await checked({ instanceId: vm, name: "foreign" }))).rejects.toThrow(
      new Error(
        `name: instance ${vm} already has a snapshot named "foreign" (${snap_uuid}) that this resource does not manage, so no second one was ` +
          `taken. It may be left by an interrupted pulumi up. To manage it, set adoptId: "${snap_uuid}" (never on a snapshot another Snapshot of this stack declares: ` +
          "with `--target` or `--exclude` the provider cannot tell which those are); otherwise delete it or choose another name. (Replacing this Snapshot " +
          "with `pulumi up --replace` keeping its name needs the resource option deleteBeforeReplace: true: the engine tells the provider " +
          "nothing of a --replace, so its old snapshot cannot be told from one left behind.)",
      ),
    );
    await expect(provider.create(await checked({ instanceId: vm, name: "other", description: "mine", adoptId: snap_uuid }))).rejects.toThrow(
      new Error(
        `cannot adopt snapshot ${snap_uuid} as declared: its name is "foreign" and its description is "panel". A snapshot cannot be changed, ` +
          "so set these inputs to its values (otherwise the next up would replace the adopted snapshot).",
      ),
    );
  });
});

/**
 * What a snapshot wait learns (provider/wait/instance.ts learnFromWait): when the snapshot most likely became Ready
 * (or left the list after its delete), between the last list that showed it in progress and the first that showed
 * it done, not when that list was answered. A noticed time runs up to a poll interval late, and the next wait (this
 * run or the next: durations are kept per host) would sleep that much past the end. A host whose snapshot stays in
 * progress after the instance's operation ended is played by a list that shows it so for two more reads, with a
 * 600 ms poll interval (the snapshot list of a new VM is read at the interval set when it is first read).
 */
describe("what a snapshot wait learns", () => {
  const INTERVAL_MS = 600;
  /** When the wait of `kind` began: it asks for the kind's usual duration right as it starts. */
  const waitStart = (kind: string): { at?: number; restore: () => void } => {
    const store = durationsFor(getClient().baseUrl);
    const real = store.expected.bind(store);
    const seen: { at?: number; restore: () => void } = { restore: () => spy.mockRestore() };
    const spy = jest.spyOn(store, "expected").mockImplementation((k: string) => {
      if (k === kind) seen.at ??= Date.now();
      return real(k);
    });
    return seen;
  };
  /**
   * The learned duration is the true end (from the wait's start), not the next list's answer, which came up to an
   * interval later: learning that would put the end that much late.
   */
  const expectLearnedEnd = (learned: number | undefined, trueEndMs: number): void => {
    expect(learned).toBeDefined();
    expect(learned!).toBeGreaterThanOrEqual(trueEndMs - 20);
    expect(learned!).toBeLessThan(trueEndMs + INTERVAL_MS * 0.75);
  };
  const fastBefore = process.env.VMHOST_POLL_FAST_MS;
  let vm: string;
  let made: pulumi.dynamic.CreateResult;
  beforeAll(async () => {
    process.env.VMHOST_POLL_FAST_MS = String(INTERVAL_MS);
    vm = await newInstance();
  });
  afterAll(() => {
    if (fastBefore === undefined) delete process.env.VMHOST_POLL_FAST_MS;
    else process.env.VMHOST_POLL_FAST_MS = fastBefore;
    forgetDurations();
  });

  it("learns when the snapshot became Ready (between two lists), not when it was noticed", async () => {
    const c = getClient();
    forgetDurations();
    const real = c.snapshots.list.bind(c.snapshots);
    // The host's list after the instance's operation ended: the snapshot shows "creating" twice more, then Ready.
    let inProgressAnswers = 0;
    let readyFrom: number | undefined;
    const began = waitStart("snapshot-create-ready");
    const list = jest.spyOn(c.snapshots, "list").mockImplementation(async (instanceId: string) => {
      const rows: Snapshot[] = await real(instanceId);
      if (!rows.some((x) => x.status === "Ready") || readyFrom !== undefined) return rows;
      if (++inProgressAnswers === 2) readyFrom = Date.now(); // Ready from just after this answer
      return rows.map((x) => (x.status === "Ready" ? { ...x, status: "creating" } : x));
    });
    try {
      made = await provider.create!(await checked({ instanceId: vm, name: "learned" }));
      expect(made.outs).toMatchObject({ status: "Ready" });
    } finally {
      list.mockRestore();
      began.restore();
    }
    expect(readyFrom).toBeDefined();
    const trueEndMs = readyFrom! - began.at!;
    expectLearnedEnd(durationsFor(c.baseUrl).expected("snapshot-create-ready"), trueEndMs);
  });

  it("learns when the deleted snapshot left the list, not when that was noticed", async () => {
    const c = getClient();
    const real = c.snapshots.list.bind(c.snapshots);
    const shown = (await real(vm)).find((x) => x.id === made.id)!;
    // After the instance's operation ended, the list still shows the snapshot "deleting" twice, then no more.
    let stillListed = 0;
    let goneFrom: number | undefined;
    const began = waitStart("snapshot-delete-gone");
    const list = jest.spyOn(c.snapshots, "list").mockImplementation(async (instanceId: string) => {
      const rows: Snapshot[] = await real(instanceId);
      if (rows.some((x) => x.id === made.id) || goneFrom !== undefined) return rows;
      if (++stillListed === 2) goneFrom = Date.now();
      return [...rows, { ...shown, status: "deleting" }];
    });
    try {
      await provider.delete!(made.id, made.outs);
    } finally {
      list.mockRestore();
      began.restore();
    }
    expect(goneFrom).toBeDefined();
    const trueEndMs = goneFrom! - began.at!;
    expectLearnedEnd(durationsFor(c.baseUrl).expected("snapshot-delete-gone"), trueEndMs);
  });
});
