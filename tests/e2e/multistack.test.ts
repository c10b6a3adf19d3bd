/**
 * Two stacks of one program on one account (multistack audit): staging and prod, or two CI jobs, run against the
 * same API account, through the local engine. Judged on the simulator's state.
 */
import { ExampleStack, TestSimulator, expectOk, simState, startTestSimulator, stateResources } from "./helpers";

jest.setTimeout(300_000);

let sim: TestSimulator;
const stacks: ExampleStack[] = [];
beforeAll(async () => {
  sim = await startTestSimulator();
}, 120_000);
afterAll(async () => {
  await sim?.close();
  for (const s of stacks) s.remove();
});
async function stack(config: Record<string, string>): Promise<ExampleStack> {
  const s = await ExampleStack.create("basic-vm", sim, config);
  stacks.push(s);
  return s;
}
const idOf = (s: ExampleStack) => stateResources(s.stateText()).find((r) => r.name === "vm")?.id;

test("two stacks of one program (one hostname) run up at the same moment: each VM is in exactly one state, none touched by the other", async () => {
  const staging = await stack({ hostname: "ms-same", cpu: "1" });
  const prod = await stack({ hostname: "ms-same", cpu: "2" });
  const [a, b] = await Promise.all([staging.run("up"), prod.run("up")]);
  const vms = (await simState(sim)).instances.filter((i) => i.hostname === "ms-same");
  const ids = [a.ok ? idOf(staging) : undefined, b.ok ? idOf(prod) : undefined].filter((x) => x !== undefined);
  // nothing lost: every VM the API made is in a state; never one VM in two states
  expect(new Set(ids).size).toBe(ids.length);
  expect(vms.map((v) => v.uuid).sort()).toEqual([...ids].sort());
  if (a.ok) expect(vms.find((v) => v.uuid === idOf(staging))).toMatchObject({ cpu: 1 });
  if (b.ok) expect(vms.find((v) => v.uuid === idOf(prod))).toMatchObject({ cpu: 2 });
  // a refused one says the VM may be another stack's
  for (const r of [a, b]) if (!r.ok) expect(r.errors.join("\n")).toMatch(/may be another stack's/);
});

test("the second stack of one program meets the first's VM: the refusal says it may be another stack's, and not to adopt it", async () => {
  const prod = await stack({ hostname: "ms-seq", cpu: "2" });
  expectOk(await prod.run("up"));
  const staging = await stack({ hostname: "ms-seq", cpu: "1" });
  const r = await staging.run("up");
  expect(r.ok).toBe(false);
  const text = r.errors.join("\n");
  expect(text).toMatch(/another stack/);
  const vms = (await simState(sim)).instances.filter((i) => i.hostname === "ms-seq");
  expect(vms).toHaveLength(1);
  expect(vms[0]).toMatchObject({ uuid: idOf(prod), cpu: 2 });
});
