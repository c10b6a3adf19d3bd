/**
 * Instance status words the provider did not know (the simulator's `wire.statusWords`): the panels' Indonesian
 * ("Berjalan", "Mati", "Gagal", "Sedang dibuat"), another case ("RUNNING"), or a host's own word. A word whose meaning
 * is certain is read as such; any other is never taken as a VM that is fine: the create looks again for a bounded
 * time, then fails naming the word, with the VM recorded (its id). (real-api-facts audit, item 4: "Gagal" after a
 * failed create was recorded as a good VM; "Sedang dibuat" with operation_flag 0 as a finished create; a declared
 * powerState with "Berjalan" waited until its deadline.)
 */
process.env.VMHOST_UNKNOWN_STATUS_GRACE_MS = "1000";
import "./instance-env";
import { providers } from "../../provider";
import { ResourceInitError } from "../../provider/resources/common/errors";
import { forgetDeployment } from "../../provider/registry";
import { harnessSuite, preview, type FullProvider } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

const instance = providers.Instance as FullProvider;
const h = harnessSuite();
afterEach(() => h().clearFaults());

const INDONESIAN = { Running: "Berjalan", Stopped: "Mati", Error: "Gagal", creating: "Sedang dibuat", stopping: "Sedang dimatikan", starting: "Sedang dinyalakan" };
const simVm = async (hostname: string) => (await h().state()).instances.filter((i) => i.hostname === hostname);

async function create(hostname: string, extra: Record<string, unknown> = {}) {
  const program = { ...validCreate, hostname, timeouts: { create: "30s", update: "30s" }, ...extra };
  const checked = await instance.check({}, program);
  expect(checked.failures ?? []).toEqual([]);
  let ok: Awaited<ReturnType<FullProvider["create"]>> | undefined;
  let error: ResourceInitError | undefined;
  await instance.create(checked.inputs).then((c) => (ok = c), (e: unknown) => (error = e as ResourceInitError));
  forgetDeployment();
  return { ok, error, program };
}

it.each([
  ["Berjalan", "running", "Running"],
  ["Mati", "stopped", "Stopped"],
])("%s is %s: the create with that powerState ends at once, and a preview after it shows no change", async (_word, powerState, simStatus) => {
  await h().setFaults({ wire: { statusWords: INDONESIAN } });
  const hostname = `word-${powerState}`;
  const { ok, error, program } = await create(hostname, { powerState });
  expect(error).toBeUndefined();
  expect((ok!.outs as { powerState: string }).powerState).toBe(powerState);
  expect((await simVm(hostname)).map((v) => [v.uuid, v.status])).toEqual([[ok!.id, simStatus]]);
  const read = await instance.read(ok!.id, ok!.outs);
  expect(await preview(instance, ok!.id, read.props, program)).toMatchObject({ changes: false });
});

it.each([
  ["operation_flag set", {}],
  ["operation_flag always 0", { operationFlag: false }],
])("a create that fails is reported when the host says Gagal (%s), with the VM recorded", async (_label, wire) => {
  await h().setFaults({ wire: { statusWords: INDONESIAN, ...wire }, failNext: { kind: "create" } });
  const hostname = `word-gagal-${Object.keys(wire).length}`;
  const { ok, error } = await create(hostname);
  expect(ok).toBeUndefined();
  const [vm] = await simVm(hostname);
  expect(vm!.status).toBe("Error");
  expect(error).toBeInstanceOf(ResourceInitError);
  expect(error!.id).toBe(vm!.uuid);
  expect(error!.message).toContain("the instance reports status Gagal");
});

it("a create still 'Sedang dibuat' with operation_flag 0 is waited for, not recorded as done", async () => {
  await h().setFaults({ wire: { statusWords: INDONESIAN, operationFlag: false }, stickNext: { kind: "create" } });
  const hostname = "word-sedang-dibuat";
  const pending = create(hostname, { timeouts: { create: "3s" } });
  const { ok, error } = await pending;
  expect(ok).toBeUndefined();
  const [vm] = await simVm(hostname);
  expect(vm!.status).toBe("creating");
  expect(error).toBeInstanceOf(ResourceInitError);
  expect(error!.id).toBe(vm!.uuid);
  expect(error!.message).toContain("Sedang dibuat");
});

it("a word the provider does not know is looked at for a bounded time, then refused by name (the VM recorded)", async () => {
  await h().setFaults({ wire: { statusWords: { Running: "Provisioned" } } });
  const hostname = "word-unknown";
  const { ok, error } = await create(hostname);
  expect(ok).toBeUndefined();
  const [vm] = await simVm(hostname);
  expect(error).toBeInstanceOf(ResourceInitError);
  expect(error!.id).toBe(vm!.uuid);
  expect(error!.message).toContain('settled in status "Provisioned", a word that says neither that it runs nor that it is stopped');
});

it("another case (RUNNING, STOPPED) reads as the word", async () => {
  await h().setFaults({ wire: { statusWords: { Running: "RUNNING", Stopped: "STOPPED", creating: "CREATING", stopping: "STOPPING" } } });
  const { ok, error } = await create("word-upper", { powerState: "stopped" });
  expect(error).toBeUndefined();
  expect((ok!.outs as { powerState: string }).powerState).toBe("stopped");
  expect((await simVm("word-upper"))[0]!.status).toBe("Stopped");
});

it("a stop that ends in a word the provider does not know says so, not that it was changed outside Pulumi", async () => {
  const { ok, error } = await create("word-stop-unknown");
  expect(error).toBeUndefined();
  await h().setFaults({ wire: { statusWords: { Stopped: "Nonaktif" } } });
  const news = (await instance.check(ok!.outs as Record<string, unknown>, { ...validCreate, hostname: "word-stop-unknown", powerState: "stopped", timeouts: { update: "30s" } })).inputs;
  const failure = (await instance.update(ok!.id, ok!.outs, news).then(() => undefined, (e: unknown) => e)) as Error;
  expect((await simVm("word-stop-unknown"))[0]!.status).toBe("Stopped");
  expect(failure.message).toContain('the instance reports status "Nonaktif", a word this provider does not know as running, stopped or failed');
  expect(failure.message).not.toContain("changed outside Pulumi");
});

it("the looks at a word the provider does not know teach no create duration (only the create's own wait does)", async () => {
  // Each look used to run the create's wait again, which learned the time of that look (a few ms: the VM was settled)
  // as a create's duration, so the usual create duration kept for this host became a few ms (durations.ts).
  const { DurationStore } = await import("../../provider/wait/durations");
  const learn = jest.spyOn(DurationStore.prototype, "learn");
  try {
    await h().setFaults({ wire: { statusWords: { Running: "Provisioned" } } });
    const { error } = await create("word-unknown-durations");
    expect(error).toBeInstanceOf(ResourceInitError);
    expect(learn.mock.calls.filter(([kind]) => kind === "create")).toHaveLength(1);
  } finally {
    learn.mockRestore();
  }
});

it("the next up after a create refused for an unknown word does not record that VM as done while the word stays", async () => {
  // The engine updates a resource recorded with an initialization error, with no change (step_generator.go, "continue
  // awaiting initialization"); that update planned nothing and recorded the VM, status "Rusak", as done.
  await h().setFaults({ wire: { statusWords: { Running: "Rusak" } } });
  const { error, program } = await create("word-unknown-next-up");
  expect(error).toBeInstanceOf(ResourceInitError);
  const props = error!.properties as Record<string, unknown>;
  const news = (await instance.check(props, program)).inputs;
  expect(await instance.diff(error!.id, props, news)).toMatchObject({ changes: false });
  const again = await instance.update(error!.id, props, news).then(() => undefined, (e: unknown) => e as ResourceInitError);
  forgetDeployment();
  expect(again).toBeInstanceOf(ResourceInitError);
  expect(again!.message).toContain('settled in status "Rusak"');
  // once the host says a word that is certain, the same update records it
  await h().clearFaults();
  const done = await instance.update(error!.id, again!.properties as Record<string, unknown>, news);
  forgetDeployment();
  expect((done.outs as { status: string }).status).toBe("Running");
});
