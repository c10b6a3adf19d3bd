/**
 * One object, one resource: adoptions that meet another resource of the stack holding (or adopting) the same
 * object, an adoption that fails while the engine goes on deleting, and the adoption's wait under the create's one
 * deadline. Provider methods in the real engine's order, checked against the simulator's state.
 */
import "./instance-env";
import { providers } from "../../provider";
import { forgetDeployment } from "../../provider/registry";
import { deploymentActivity } from "../../provider/resources/common/activity";
import type { InstanceOutputs } from "../../provider/resources/instance/inputs";
import { setProgressSink } from "../../provider/context";
import { harnessSuite, up, type FullProvider } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

const instance = providers.Instance as FullProvider;
const h = harnessSuite();
const base = { ...validCreate, tierId: 1, templateId: 2, cpu: 1, memory: 1, storage: 20, username: "admin" };

beforeEach(() => forgetDeployment());

async function checked(inputs: Record<string, unknown>): Promise<Record<string, unknown>> {
  return (await instance.check({}, inputs)).inputs as Record<string, unknown>;
}

async function hostnameOf(uuid: string): Promise<string | undefined> {
  return (await h().instance(uuid))?.hostname;
}

it("two new Instances adopting one VM in one up: one adopts it, the other is refused before any write", async () => {
  const x = await h().newInstance("dbl-x");
  forgetDeployment();
  const a = await checked({ ...base, hostname: "dbl-a", adoptId: x });
  const b = await checked({ ...base, hostname: "dbl-b", adoptId: x });
  const results = await Promise.allSettled([instance.create(a), instance.create(b)]);
  const ok = results.filter((r): r is PromiseFulfilledResult<{ id: string; outs: unknown }> => r.status === "fulfilled");
  expect(ok).toHaveLength(1);
  const refused = results.find((r): r is PromiseRejectedResult => r.status === "rejected")!;
  expect(String(refused.reason.message)).toMatch(/adopted by another resource of this stack in this up/);
  // the VM is as the one adopter declares it, and nobody renamed it back
  expect(await hostnameOf(x)).toBe((ok[0]!.value.outs as InstanceOutputs).hostname);
});

it("an Instance adopting a VM another Instance adopted in an earlier up is refused, and nothing changes", async () => {
  const x = await h().newInstance("dbl2-x");
  const r = await up<InstanceOutputs>(instance, { ...base, hostname: "dbl2-x", adoptId: x });
  forgetDeployment(); // the next up: R unchanged (diffed), A added with the same adoptId
  expect((await instance.diff(r.id, r.outs, await checked(r.inputs))).changes).toBe(false);
  await expect(instance.create(await checked({ ...base, hostname: "dbl2-a", adoptId: x }))).rejects.toThrow(/belongs to another resource of this stack/);
  expect(await hostnameOf(x)).toBe("dbl2-x");
});

it("the other order: an adoption recorded first, then the Diff of the Instance that adopted it earlier refuses", async () => {
  const x = await h().newInstance("dbl3-x");
  const r = await up<InstanceOutputs>(instance, { ...base, hostname: "dbl3-x", adoptId: x });
  forgetDeployment(); // R waits for another provider's resource: its Diff comes after A's create
  await instance.create(await checked({ ...base, hostname: "dbl3-a", adoptId: x }));
  await expect(instance.diff(r.id, r.outs, await checked(r.inputs))).rejects.toThrow(/another resource of this stack adopts it in this up/);
});

it("a failed adoption keeps the delete of the resource that held the VM from succeeding (up --continue-on-error)", async () => {
  const r = await up<InstanceOutputs>(instance, { ...base, hostname: "coe-x" });
  forgetDeployment(); // the next up: R left the program, A adopts its VM, and A's create fails before recording it
  const a = await checked({ ...base, hostname: "coe-x", adoptId: r.id, timeouts: { create: "2s" } });
  await h().setFaults({ errorRate: 1, errorStatus: 503 });
  try {
    await expect(instance.create(a)).rejects.toThrow();
  } finally {
    await h().clearFaults();
  }
  // the engine goes on with the deletes (ContinueOnError): R's must fail, so R stays in the state
  await expect(instance.delete(r.id, r.outs)).rejects.toThrow(/its adoption failed/);
  expect(await h().instance(r.id)).toBeDefined();
});

it("a delete-before-replace of an adopted Instance (up --replace) leaves the VM to the replacement's adoption", async () => {
  const x = await h().newInstance("dbr-x");
  const r = await up<InstanceOutputs>(instance, { ...base, hostname: "dbr-x", adoptId: x });
  forgetDeployment(); // up --replace with deleteBeforeReplace: Check, the old half's delete, then the create
  const again = await checked(r.inputs);
  await instance.delete(r.id, r.outs);
  expect(await h().instance(x)).toBeDefined();
  expect((await instance.create(again)).id).toBe(x);
});

it("a new Instance taking the name of a VM another resource adopts and renames away in the same up waits for it", async () => {
  const x = await h().newInstance("ars-web");
  forgetDeployment();
  const web = await checked({ ...base, hostname: "ars-web" });
  const legacy = await checked({ ...base, hostname: "ars-web-old", adoptId: x });
  const [made, adopted] = await Promise.all([instance.create(web), instance.create(legacy)]);
  expect(adopted.id).toBe(x);
  expect(made.id).not.toBe(x);
  expect(await hostnameOf(x)).toBe("ars-web-old");
  expect(await hostnameOf(made.id)).toBe("ars-web");
});

it("an adoption's wait for the rest of the up counts against timeouts.create, says so, and fails before any write", async () => {
  const x = await h().newInstance("dl-x");
  forgetDeployment();
  const lines: string[] = [];
  const previous = setProgressSink((line) => lines.push(line));
  let endOther!: () => void;
  const other = deploymentActivity.track(() => new Promise<void>((resolve) => (endOther = resolve))); // a long operation of this up
  const mark = h().mark();
  try {
    const inputs = await checked({ ...base, hostname: "dl-y", cpu: 2, adoptId: x, timeouts: { create: "1s" } });
    // one deadline for the whole create: the wait used it up, so nothing is written (it once got its own, and the
    // adoption then went on under a fresh one)
    await expect(instance.create(inputs)).rejects.toThrow(/timed out after 1s \(timeouts\.create\) waiting for this up's other operations/);
  } finally {
    endOther();
    await other;
    setProgressSink(previous);
  }
  expect(lines.some((l) => l.includes(`adopting Instance ${x}: waiting until this up's other operations have ended`))).toBe(true);
  expect(h().methodsSince(mark).filter((m) => m !== "GET")).toEqual([]);
  expect(await hostnameOf(x)).toBe("dl-x");
});

it("a Diff that replaces leaves the deployment quiet (its create may be the adoption that waits); one that updates in place does not", async () => {
  // (soak-367: a replacement's own Diff counted as activity, and its adoption waited the quiet pause after it, three
  // ups in a row running out of a 1 s timeouts.create while the VM it was to adopt stayed in no state)
  const old = await up<InstanceOutputs>(instance, { ...base, hostname: "self-diff" });
  forgetDeployment();
  expect((await instance.diff(old.id, old.outs, await checked({ ...base, hostname: "self-diff", username: "other" }))).replaces).toContain("username");
  expect(deploymentActivity.isQuiet()).toBe(true);
  // an update in place is about to start: not quiet (an address it gives up may be what another step waits for)
  expect((await instance.diff(old.id, old.outs, await checked({ ...base, hostname: "self-diff", cpu: 2 }))).replaces ?? []).toEqual([]);
  expect(deploymentActivity.isQuiet()).toBe(false);
});
