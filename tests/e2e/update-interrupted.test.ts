/**
 * Updates interrupted the hard way (update audit): examples/basic-vm installed from the packed tarball, its `up` killed
 * (SIGKILL of the engine, the program and the provider host) while an update's operation runs, then `up` again,
 * `refresh` and `preview --refresh --expect-no-changes`. The killed run leaves the state from before the update (the
 * real engine writes nothing for a step that never returned) and a pending operation. Judged on the simulator's state.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { ExampleStack, REPO, TestSimulator, VM_PASSWORD, expectOk, simRequests, simState, startTestSimulator, stateResources } from "./helpers";

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

const admin = async (method: string, p: string, body?: unknown): Promise<unknown> => {
  const res = await fetch(`${sim.adminUrl}${p}`, { method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
  return res.json();
};
const vmOf = async (uuid: string) => (await simState(sim)).instances.find((i) => i.uuid === uuid);
const lastSeq = async () => (await simRequests(sim)).at(-1)?.seq ?? 0;

/** Polls the simulator (a bounded loop, not a timed sleep) until `check` holds. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (const started = Date.now(); !(await check()); await delay(50)) {
    if (Date.now() - started > 120_000) throw new Error(`${what}: not reached within 120 s`);
  }
}

/** `vmhost-local-engine up` in a process group of its own, killed (SIGKILL, every process of it) once `condition` holds. */
async function upKilledWhile(s: ExampleStack, config: Record<string, string>, condition: () => Promise<boolean>): Promise<void> {
  const args = [path.join(REPO, "bin", "vmhost-local-engine.js"), "up", "--cwd", s.dir, "--state", s.stateFile, "--config", `vmhost:baseUrl=${sim.url}`];
  for (const [k, v] of Object.entries(config)) args.push("--config", `${k}=${v}`);
  args.push("--secret", `vmhost:apiKey=${sim.apiKey}`, "--secret", `vmPassword=${VM_PASSWORD}`);
  const child = spawn(process.execPath, args, { env: { ...process.env, VMHOST_API_KEY: "", VMHOST_BASE_URL: "" }, stdio: "ignore", detached: true });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await until("the update's operation to run", condition);
  process.kill(-child.pid!, "SIGKILL");
  await exited;
}

async function expectConverged(s: ExampleStack, config: Record<string, string>): Promise<void> {
  expectOk(await s.run("refresh", { config }));
  const check = await s.run("preview", { config, refresh: true, expectNoChanges: true });
  if (check.exitCode !== 0) throw new Error(`preview --refresh --expect-no-changes exited ${check.exitCode}\n${check.stdout}`);
}

const small = { cpu: "1", memory: "1", storage: "20" };

test("resize + rename killed while the resize runs: the next up sends no second resize, renames, and converges", async () => {
  const hostname = "upd-killed-resize";
  const s = await ExampleStack.create("basic-vm", sim, { hostname, ...small });
  stacks.push(s);
  expectOk(await s.run("up"));
  const vm = stateResources(s.stateText()).find((r) => r.name === "vm")!.id!;
  await admin("POST", "/faults", { stickNext: { kind: "resize", count: 1 } });
  const changed = { hostname: `${hostname}-b`, cpu: "2", memory: "2", storage: "30" };
  const since = await lastSeq();
  await upKilledWhile(s, changed, async () => (await vmOf(vm))?.status === "resizing");
  await admin("POST", `/instances/${vm}/finish-operation`, { outcome: "success" });
  expectOk(await s.run("up", { config: changed }));
  expect((await simRequests(sim)).filter((r) => r.seq > since && r.operation === "resizeInstance")).toHaveLength(1);
  expect(await vmOf(vm)).toMatchObject({ cpu: 2, memoryGb: 2, storageGb: 30, hostname: `${hostname}-b`, status: "Running" });
  await expectConverged(s, changed);
  expectOk(await s.run("destroy", { config: changed }));
});

test("tier change killed while it runs, which then fails (VM in Error): the next up repairs it, changes the tier, and converges", async () => {
  // update audit: the next up sent the tier change to the broken VM and failed, asking for one more up to start it
  const hostname = "upd-killed-tier";
  const s = await ExampleStack.create("basic-vm", sim, { hostname, ...small });
  stacks.push(s);
  expectOk(await s.run("up"));
  const vm = stateResources(s.stateText()).find((r) => r.name === "vm")!.id!;
  await admin("POST", "/faults", { stickNext: { kind: "changeTier", count: 1 } });
  const changed = { hostname, ...small, tierId: "2" };
  await upKilledWhile(s, changed, async () => (await vmOf(vm))?.status === "resizing");
  await admin("POST", `/instances/${vm}/finish-operation`, { outcome: "failure" });
  expect(await vmOf(vm)).toMatchObject({ status: "Error", tierId: 1 });
  const since = await lastSeq();
  expectOk(await s.run("up", { config: changed }));
  expect((await simRequests(sim)).filter((r) => r.seq > since && (r.operation === "startInstance" || r.operation === "changeTier")).map((r) => r.operation)).toEqual([
    "startInstance",
    "changeTier",
  ]);
  expect(await vmOf(vm)).toMatchObject({ tierId: 2, status: "Running" });
  await expectConverged(s, changed);
  expectOk(await s.run("destroy", { config: changed }));
});
