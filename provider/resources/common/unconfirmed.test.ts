import type * as pulumi from "@pulumi/pulumi";
import { resetContext, setProgressSink } from "../../context";
import { ProviderError, ResourceInitError } from "./errors";
import { UnconfirmedWriteError } from "./reconcile";
import { UNCONFIRMED_KEY, withUnconfirmedCreates } from "./unconfirmed";
import { claimedByStack } from "./replacements";

// each case is a deployment of its own: ids held by the stack in one case mean nothing in the next
beforeEach(() => claimedByStack.clear());

type Provider = Parameters<typeof withUnconfirmedCreates>[0];

/** A resource whose create's outcome is unknown; records which ids its read/delete were called with. */
function fakeResource() {
  const calls: string[] = [];
  const provider: Provider = {
    check: async (_olds, news) => ({ inputs: news }),
    diff: async () => ({ changes: false }),
    create: async () => {
      throw new UnconfirmedWriteError("the request for vm web-1 failed ambiguously; it may exist", "vm web-1", new Date(0), ["old"], "the panel");
    },
    read: async (id, props) => (calls.push(`read ${id} ${JSON.stringify(props)}`), { id, props: { ...props, read: true } }),
    update: async (id) => (calls.push(`update ${id}`), { outs: {} }),
    delete: async (id, props) => void calls.push(`delete ${id} ${JSON.stringify(props)}`),
  };
  return { provider, calls };
}

/** Runs a create that fails unconfirmed; answers what the engine records (id and properties). */
async function recorded(p: Provider): Promise<ResourceInitError> {
  const error = await p.create({ hostname: "web-1" }).then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ResourceInitError);
  return error as ResourceInitError;
}

beforeAll(() => {
  resetContext();
  setProgressSink(() => undefined);
});

describe("withUnconfirmedCreates", () => {
  it("records the create under a placeholder id with the inputs and what existed before, naming refresh, up and destroy", async () => {
    const { provider } = fakeResource();
    const error = await recorded(withUnconfirmedCreates(provider, async () => []));
    expect(error.id).toMatch(/^unconfirmed-[0-9a-f-]{36}$/);
    expect(error.properties).toEqual({
      hostname: "web-1",
      [UNCONFIRMED_KEY]: { what: "vm web-1", sentAt: "1970-01-01T00:00:00.000Z", existing: ["old"], howToFind: "the panel" },
    });
    expect(error.message).toMatch(/may exist.*recorded in the stack as unconfirmed.*pulumi refresh.*pulumi up.*pulumi destroy/);
  });

  it("refresh resolves to the one new object when a shifting paged list shows its row twice", async () => {
    const { provider, calls } = fakeResource();
    const p = withUnconfirmedCreates(provider, async () => ["old", "new", "new"]);
    const { id, properties } = await recorded(p);
    expect(await p.read(id, properties)).toMatchObject({ id: "new" });
    expect(calls).toEqual([`read new ${JSON.stringify({ hostname: "web-1" })}`]);
  });

  it("diff of a placeholder is a replace that deletes first; of a real id, the resource's own", async () => {
    const { provider } = fakeResource();
    const p = withUnconfirmedCreates(provider, async () => []);
    const { id, properties } = await recorded(p);
    expect(await p.diff(id, properties, {})).toEqual({ changes: true, replaces: [UNCONFIRMED_KEY], deleteBeforeReplace: true });
    expect(await p.diff("real", {}, {})).toEqual({ changes: false });
  });

  it("refresh takes the one object that appeared (not one listed before), without the record", async () => {
    const { provider, calls } = fakeResource();
    const p = withUnconfirmedCreates(provider, async () => ["old", "new"]);
    const { id, properties } = await recorded(p);
    expect(await p.read(id, properties)).toEqual({ id: "new", props: { hostname: "web-1", read: true } });
    expect(calls).toEqual([`read new {"hostname":"web-1"}`]);
  });

  it("refresh drops the record and destroy does nothing when nothing appeared", async () => {
    const { provider, calls } = fakeResource();
    const p = withUnconfirmedCreates(provider, async () => ["old"]);
    const { id, properties } = await recorded(p);
    expect(await p.read(id, properties)).toEqual({});
    await p.delete(id, properties);
    expect(calls).toEqual([]);
  });

  it("destroy deletes the one object that appeared", async () => {
    const { provider, calls } = fakeResource();
    const p = withUnconfirmedCreates(provider, async () => ["new", "old"]);
    const { id, properties } = await recorded(p);
    await p.delete(id, properties);
    expect(calls).toEqual([`delete new {"hostname":"web-1"}`]);
  });

  it("takes none when several appeared, naming them (refresh and destroy fail; nothing is deleted)", async () => {
    const { provider, calls } = fakeResource();
    const p = withUnconfirmedCreates(provider, async () => ["a", "old", "b"]);
    const { id, properties } = await recorded(p);
    await expect(p.read(id, properties)).rejects.toThrow(/2 objects may be the vm web-1 .*\(a, b\).*set adoptId/);
    await expect(p.delete(id, properties)).rejects.toThrow(ProviderError);
    expect(calls).toEqual([]);
  });

  it("refuses an update of a placeholder, naming pulumi refresh; passes real ids through", async () => {
    const { provider, calls } = fakeResource();
    const p = withUnconfirmedCreates(provider, async () => []);
    const { id, properties } = await recorded(p);
    await expect(p.update(id, properties, {})).rejects.toThrow(/run `pulumi refresh`/);
    await p.update("real", {}, {});
    expect(calls).toEqual(["update real"]);
  });

  it("a state without the record fails clearly instead of guessing", async () => {
    const { provider } = fakeResource();
    const p = withUnconfirmedCreates(provider, async () => ["x"]);
    await expect(p.delete("unconfirmed-1", { hostname: "web-1" })).rejects.toThrow(/lacks the record of this unconfirmed create/);
  });

  it("the failure's message and single reason are the write's message and what happens next; its cause is the write's error", async () => {
    const { provider } = fakeResource();
    const error = await recorded(withUnconfirmedCreates(provider, async () => []));
    expect(error.message).toMatch(/^the request for vm web-1 failed ambiguously; it may exist It is recorded in the stack as unconfirmed \(id unconfirmed-[0-9a-f-]{36}\), so it is not lost: `pulumi refresh` looks for it/);
    expect(error.reasons).toEqual([error.message]);
    expect(error.cause).toBeInstanceOf(UnconfirmedWriteError);
  });
  it("says what refresh and destroy found and did", async () => {
    const lines: string[] = [];
    const previous = setProgressSink((line) => void lines.push(line));
    try {
      const gone = withUnconfirmedCreates(fakeResource().provider, async () => ["old"]);
      const first = await recorded(gone);
      await gone.read(first.id, first.properties);
      await gone.delete(first.id, first.properties);
      const made = withUnconfirmedCreates(fakeResource().provider, async () => ["old", "new"]);
      const second = await recorded(made);
      await made.read(second.id, second.properties);
      await made.delete(second.id, second.properties);
      expect(lines).toEqual([
        `${first.id}: the unconfirmed create of vm web-1 did not happen; dropping the record`,
        `${first.id}: the unconfirmed create of vm web-1 did not happen; nothing to delete`,
        `${second.id}: the unconfirmed create of vm web-1 happened: recording it as new`,
        `${second.id}: the unconfirmed create of vm web-1 happened (new): deleting it`,
      ]);
    } finally {
      setProgressSink(previous);
    }
  });
  it("other create failures pass through unchanged", async () => {
    const { provider } = fakeResource();
    const refused = new ProviderError("hostname: taken");
    const p = withUnconfirmedCreates({ ...provider, create: async () => Promise.reject(refused) }, async () => []);
    await expect(p.create({})).rejects.toBe(refused);
  });
});

// (the type of the wrapped provider stays the dynamic provider's)
const _typed: pulumi.dynamic.ResourceProvider = withUnconfirmedCreates(fakeResource().provider, async () => []);
void _typed;
