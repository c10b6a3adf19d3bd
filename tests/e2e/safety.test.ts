/**
 * The safety promise end to end (issue 9, points 3-7): examples/basic-vm installed from the packed tarball,
 * run by the local engine (real language runtime and dynamic-provider host; init failures recorded with the
 * error's properties exactly as the real engine does) against the simulator. Every check is made on the
 * simulator's own state, not on what the provider believes.
 * Each test uses its own stack and hostname.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { ExampleStack, REPO, TestSimulator, VM_PASSWORD, expectOk, simRequests, simState, startTestSimulator, stateResources } from "./helpers";

// Each test runs the engine several times (a few seconds each); leave room for a loaded machine.
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

async function stack(hostname: string, config: Record<string, string> = {}): Promise<ExampleStack> {
  const s = await ExampleStack.create("basic-vm", sim, { hostname, ...config });
  stacks.push(s);
  return s;
}

const admin = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${sim.adminUrl}${path}`, { method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<unknown>;
};
const named = async (hostname: string) => (await simState(sim)).instances.filter((i) => i.hostname === hostname);
const reservedAddresses = async () => (await simState(sim)).publicIps.filter((p) => p.instanceUuid === null).length;

/** Polls the simulator (a bounded loop, not a timed sleep) until `check` holds. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > 120_000) throw new Error(`${what}: not reached within 120 s`);
    await delay(50);
  }
}

test("a create that fails is recorded; the next up repairs the VM (never 'success' while in Error); refresh and destroy work", async () => {
  const s = await stack("safe-error");
  await admin("POST", "/faults", { failNext: { kind: "create" } });
  const first = await s.run("up");
  expect(first.ok).toBe(false);
  const [vm] = await named("safe-error");
  expect(vm).toMatchObject({ status: "Error" });
  // recorded with its id, as the real engine records an initialization failure
  expect(stateResources(s.stateText()).find((r) => r.name === "vm")?.id).toBe(vm!.uuid);

  const second = expectOk(await s.run("up"));
  expect(second.steps.find((st) => st.name === "vm")?.op).toBe("update");
  expect((await named("safe-error")).map((v) => [v.uuid, v.status])).toEqual([[vm!.uuid, "Running"]]);

  expectOk(await s.run("refresh"));
  expectOk(await s.run("destroy"));
  expect(await named("safe-error")).toEqual([]);
});

/** The arguments of `vmhost-local-engine up` of stack `s` against the simulator, with `config` beside the credentials. */
function upArgs(s: ExampleStack, config: Record<string, string>): string[] {
  const args = [path.join(REPO, "bin", "vmhost-local-engine.js"), "up", "--cwd", s.dir, "--state", s.stateFile, "--config", `vmhost:baseUrl=${sim.url}`];
  for (const [k, v] of Object.entries(config)) args.push("--config", `${k}=${v}`);
  return [...args, "--secret", `vmhost:apiKey=${sim.apiKey}`, "--secret", `vmPassword=${VM_PASSWORD}`];
}
const engineEnv = () => ({ ...process.env, VMHOST_API_KEY: "", VMHOST_BASE_URL: "" });

/**
 * `vmhost-local-engine up` as a user runs it, interrupted the hard way (Ctrl-C twice, or CI's cancel): the
 * engine exits at once and the create under way stays a pending operation in the state, with no id.
 */
async function upKilledWhile(s: ExampleStack, hostname: string, condition: () => Promise<boolean>): Promise<void> {
  const child = spawn(process.execPath, upArgs(s, { hostname }), { env: engineEnv(), stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  await until("the create to be under way", condition);
  // Two separate signals: sent back to back, the OS may merge them into one (a graceful cancel, which waits
  // for the create). The second goes once the engine has said it is cancelling.
  child.kill("SIGINT");
  await until("the engine to start cancelling", async () => /cancel/i.test(output));
  child.kill("SIGINT");
  expect(await exited).toBe(1);
}

/** `vmhost-local-engine up` in a process group of its own, killed (SIGKILL, every process of it) once `condition` holds. */
async function upSigkilledWhile(s: ExampleStack, config: Record<string, string>, condition: () => Promise<boolean>): Promise<void> {
  const child = spawn(process.execPath, upArgs(s, config), { env: engineEnv(), stdio: "ignore", detached: true });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await until("the update's operation to run", condition);
  process.kill(-child.pid!, "SIGKILL");
  await exited;
}

test("an up killed while the VM is created: the next up makes no second VM and names adoptId; adopting converges", async () => {
  const s = await stack("safe-interrupted");
  await admin("POST", "/faults", { stickNext: { kind: "create" } });
  await upKilledWhile(s, "safe-interrupted", async () => (await named("safe-interrupted")).length === 1);
  const [orphan] = await named("safe-interrupted");
  expect(stateResources(s.stateText()).find((r) => r.name === "vm")).toBeUndefined(); // only a pending create
  await admin("POST", `/instances/${orphan!.uuid}/finish-operation`, { outcome: "success" });

  const next = await s.run("up");
  expect(next.ok).toBe(false);
  expect(next.errors.join("\n")).toContain(`adoptId: "${orphan!.uuid}"`);
  expect((await named("safe-interrupted")).map((v) => v.uuid)).toEqual([orphan!.uuid]);

  // the way out the message names
  expectOk(await s.run("up", { config: { adoptId: orphan!.uuid } }));
  expect((await named("safe-interrupted")).map((v) => v.uuid)).toEqual([orphan!.uuid]);
  expectOk(await s.run("destroy", { config: { adoptId: orphan!.uuid } }));
  expect(await named("safe-interrupted")).toEqual([]);
});

test("an adopted VM is never replaced: a replace-forcing change fails the preview and the VM stays", async () => {
  // a VM made elsewhere (in the panel, by another tool), as basic-vm declares it by default; the stack adopts it
  const made = (await admin("POST", "/instances", {
    hostname: "safe-adopted", locationId: 1, tierId: 1, templateId: 1, cpu: 1, memory: 1, storage: 20,
    username: "deploy", password: VM_PASSWORD, publicIp: true,
  })) as { data: { uuid: string } };
  const uuid = made.data.uuid;
  const s = await stack("safe-adopted", { adoptId: uuid });
  expectOk(await s.run("up"));
  const preview = await s.run("preview", { config: { username: "someone-else" } });
  expect(preview.ok).toBe(false);
  expect(preview.errors.join("\n")).toMatch(/adopted .*username.*never replaced/);
  const up = await s.run("up", { config: { username: "someone-else" } });
  expect(up.ok).toBe(false);
  expect((await named("safe-adopted")).map((v) => v.uuid)).toEqual([uuid]);
});

test("publicIp true -> false -> true reuses the address; destroy releases it: no reserved address piles up", async () => {
  const reservedBefore = await reservedAddresses();
  const s = await stack("safe-toggle");
  const first = expectOk(await s.run("up"));
  const address = first.outputs.ipAddress;
  expectOk(await s.run("up", { config: { publicIp: "false" } }));
  expect(await reservedAddresses()).toBe(reservedBefore + 1);
  const again = expectOk(await s.run("up", { config: { publicIp: "true" } }));
  expect(again.outputs.ipAddress).toBe(address);
  expect(await reservedAddresses()).toBe(reservedBefore);
  expectOk(await s.run("up", { config: { publicIp: "false" } }));
  expectOk(await s.run("destroy", { config: { publicIp: "false" } }));
  expect(await reservedAddresses()).toBe(reservedBefore);
});

test("a timeout names the key of the operation that ran out (vmhost:updateTimeout bounds an update)", async () => {
  const s = await stack("safe-timeout");
  expectOk(await s.run("up"));
  await admin("POST", "/faults", { stickNext: { kind: "resize" } });
  const r = await s.run("up", { config: { cpu: "2", "vmhost:updateTimeout": "2s" } });
  expect(r.ok).toBe(false);
  expect(r.errors.join("\n")).toMatch(/timed out after .* waiting for .*resize.*raise timeouts\.update/);
  const [vm] = await named("safe-timeout");
  await admin("POST", `/instances/${vm!.uuid}/finish-operation`, { outcome: "success" });
  expectOk(await s.run("destroy"));
  expect(await named("safe-timeout")).toEqual([]);
});

// Two stacks of one program on one account (multistack audit): staging and prod, or two CI jobs, on the same API account.
const idOf = (s: ExampleStack) => stateResources(s.stateText()).find((r) => r.name === "vm")?.id;

test("two stacks of one program (one hostname) run up at the same moment: each VM is in exactly one state, none touched by the other", async () => {
  const staging = await stack("ms-same", { cpu: "1" });
  const prod = await stack("ms-same", { cpu: "2" });
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
  const prod = await stack("ms-seq", { cpu: "2" });
  expectOk(await prod.run("up"));
  const staging = await stack("ms-seq", { cpu: "1" });
  const r = await staging.run("up");
  expect(r.ok).toBe(false);
  const text = r.errors.join("\n");
  expect(text).toMatch(/another stack/);
  const vms = (await simState(sim)).instances.filter((i) => i.hostname === "ms-seq");
  expect(vms).toHaveLength(1);
  expect(vms[0]).toMatchObject({ uuid: idOf(prod), cpu: 2 });
});

// Updates interrupted the hard way (update audit): the up killed (SIGKILL of the engine, the program and the provider
// host) while an update's operation runs, then up again, refresh and preview --refresh --expect-no-changes. The killed
// run leaves the state from before the update (the real engine writes nothing for a step that never returned).
const vmOf = async (uuid: string) => (await simState(sim)).instances.find((i) => i.uuid === uuid);
const lastSeq = async () => (await simRequests(sim)).at(-1)?.seq ?? 0;

async function expectConverged(s: ExampleStack, config: Record<string, string>): Promise<void> {
  expectOk(await s.run("refresh", { config }));
  const check = await s.run("preview", { config, refresh: true, expectNoChanges: true });
  if (check.exitCode !== 0) throw new Error(`preview --refresh --expect-no-changes exited ${check.exitCode}\n${check.stdout}`);
}

const small = { cpu: "1", memory: "1", storage: "20" };

test("resize + rename killed while the resize runs: the next up sends no second resize, renames, and converges", async () => {
  const hostname = "upd-killed-resize";
  const s = await stack(hostname, small);
  expectOk(await s.run("up"));
  const vm = stateResources(s.stateText()).find((r) => r.name === "vm")!.id!;
  await admin("POST", "/faults", { stickNext: { kind: "resize", count: 1 } });
  const changed = { hostname: `${hostname}-b`, cpu: "2", memory: "2", storage: "30" };
  const since = await lastSeq();
  await upSigkilledWhile(s, changed, async () => (await vmOf(vm))?.status === "resizing");
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
  const s = await stack(hostname, small);
  expectOk(await s.run("up"));
  const vm = stateResources(s.stateText()).find((r) => r.name === "vm")!.id!;
  await admin("POST", "/faults", { stickNext: { kind: "changeTier", count: 1 } });
  const changed = { hostname, ...small, tierId: "2" };
  await upSigkilledWhile(s, changed, async () => (await vmOf(vm))?.status === "resizing");
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
