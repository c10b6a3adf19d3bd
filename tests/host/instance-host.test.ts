/**
 * The Instance through the real host, as users run it: the package packed by `make pack` is installed into
 * a throwaway project, a program under Pulumi mocks registers an Instance (to see the serialized
 * `__provider` Pulumi would store), and `@pulumi/pulumi/cmd/dynamic-provider`, spawned from that project
 * and driven over gRPC with the stack config, creates, reads, diffs, updates and deletes a VM in the
 * simulator.
 *
 * Installing: the tarball is unpacked into `node_modules/pulumi-vmhost` (a real folder, as npm would) and
 * its runtime dependencies are linked from this repository's node_modules (the same versions the lock file
 * pins), because a registry install per test run would be slow and needs the network.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startSimulator, type RunningSimulator } from "../../simulator";
import type { ProviderHost } from "../../tools/local-engine/providerHost";
import { InitFailedError } from "../../tools/local-engine/providerTypes";
import { engineStandIn, installPacked, runUnderMocks, startConfiguredHost } from "./packed";

const URN = "urn:pulumi:test::host-test::pulumi-nodejs:dynamic/vmhost:Instance::web";

/** The program: registers one Instance under Pulumi mocks and writes the inputs the engine would receive. */
const PROGRAM = `
const fs = require("fs");
const pulumi = require("@pulumi/pulumi");
pulumi.runtime.setMocks({
  newResource: (args) => {
    if (args.type === "pulumi-nodejs:dynamic/vmhost:Instance") fs.writeFileSync(process.env.OUT_FILE, JSON.stringify(args.inputs));
    return { id: "mock-id", state: args.inputs };
  },
  call: () => ({}),
}, "host-test", "test", false);
const vmhost = require("pulumi-vmhost");
new vmhost.Instance("web", {
  locationId: 1, tierId: 2, templateId: 1, hostname: "host-web", cpu: 2, memory: 4, storage: 40,
  username: "deploy", password: pulumi.secret("Blue-Horse-42"), publicIp: true,
});
`;

let sim: RunningSimulator;
let dir: string;
let registered: Record<string, unknown>;

beforeAll(async () => {
  sim = await startSimulator({ opSeconds: 0.05 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "vmhost-host-"));
  installPacked(dir);
  // the key is in the program's config AND environment: neither may reach the serialized provider
  registered = runUnderMocks<Record<string, unknown>>(dir, PROGRAM, {
    VMHOST_API_KEY: sim.apiKey, VMHOST_BASE_URL: sim.url,
    PULUMI_CONFIG: JSON.stringify({ "vmhost:apiKey": sim.apiKey, "vmhost:baseUrl": sim.url }),
  });
}, 120_000);

afterAll(async () => {
  await sim?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("the serialized provider", () => {
  it("is a small stub that requires the installed package and holds no key", () => {
    const provider = registered.__provider;
    expect(typeof provider).toBe("string");
    const text = provider as string;
    expect(Buffer.byteLength(text)).toBeLessThan(4096);
    expect(text).toContain("pulumi-vmhost/provider");
    expect(text).not.toContain(sim.apiKey);
    expect(text).not.toContain(String(sim.port));
  });
});

describe("through @pulumi/pulumi/cmd/dynamic-provider over gRPC", () => {
  let host: ProviderHost;
  const hostOutput: string[] = [];
  beforeAll(async () => {
    // credentials come only from the stack config handed to Configure
    host = await startConfiguredHost(dir, sim, (_stream, line) => hostOutput.push(line));
  }, 60_000);
  afterAll(async () => {
    await host?.stop();
  });

  const simRequests = async () =>
    ((await (await fetch(`${sim.adminUrl}/requests`)).json()) as { requests: { seq: number; method: string; operation: string | null }[] }).requests;
  const simInstances = async () =>
    ((await (await fetch(`${sim.adminUrl}/state`)).json()) as { instances: { uuid: string; hostname: string; status: string; cpu: number }[] }).instances;

  it("creates, reads, diffs, updates and deletes a VM", async () => {
    const news = { ...registered, password: "Blue-Horse-42" };
    const checked = await host.check(URN, {}, news);
    expect(checked.failures).toEqual([]);

    const created = await host.create(URN, checked.inputs);
    expect(created.outputs).toMatchObject({ hostname: "host-web", status: "Running", publicIp: true, cpu: 2 });
    expect((await simInstances()).map((i) => i.uuid)).toEqual([created.id]);

    const read = await host.read(URN, created.id, created.outputs, checked.inputs);
    expect(read.id).toBe(created.id);
    expect(read.outputs).toEqual(created.outputs);
    expect(await host.diff(URN, created.id, read.outputs, checked.inputs, checked.inputs)).toMatchObject({ changes: false });

    const changed = await host.check(URN, checked.inputs, { ...news, hostname: "host-web-2", cpu: 4 });
    expect(await host.diff(URN, created.id, read.outputs, changed.inputs, checked.inputs)).toMatchObject({ changes: true, replaces: [] });
    const updated = await host.update(URN, created.id, read.outputs, changed.inputs, checked.inputs);
    expect(updated).toMatchObject({ hostname: "host-web-2", cpu: 4 });
    expect((await simInstances()).find((i) => i.uuid === created.id)).toMatchObject({ hostname: "host-web-2", cpu: 4 });

    const bad = await host.check(URN, {}, { ...news, hostname: "Not_Valid" });
    expect(bad.failures.map((f) => f.property)).toEqual(["hostname"]);

    await host.delete(URN, created.id, updated, changed.inputs);
    expect(await simInstances()).toEqual([]);
    const gone = await host.read(URN, created.id, updated, changed.inputs);
    expect(gone.id).toBe("");
  }, 60_000);

  it("an error for the user is printed by the host without a stack trace (the CLI shows every line of it)", async () => {
    const checked = await host.check(URN, {}, { ...registered, hostname: "host-quiet", password: "Blue-Horse-42" });
    const created = await host.create(URN, checked.inputs);
    await fetch(`${sim.adminUrl}/faults`, {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ respondNext: { operation: "getInstance", status: 401, message: "Unauthenticated.", count: 5 } }),
    });
    const printedBefore = hostOutput.length;
    try {
      const message = await host.read(URN, created.id, created.outputs, checked.inputs).then(() => "read", (e: Error) => e.message);
      expect(message).toContain("vmhost:apiKey");
      // the host prints `${error}: ${error.stack}` (sdk/nodejs/cmd/dynamic-provider/index.ts): one line, no frames. Its
      // stderr reaches this process apart from the gRPC answer, sometimes after it (CI): looked for until it is there.
      const printed = () => hostOutput.slice(printedBefore);
      for (const deadline = Date.now() + 10_000; !printed().some((line) => line.includes("vmhost:apiKey")); ) {
        if (Date.now() > deadline) throw new Error(`the host printed no line naming vmhost:apiKey within 10 s: ${JSON.stringify(printed())}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(printed().filter((line) => /^\s+at /.test(line))).toEqual([]);
    } finally {
      // (cleared whatever happened: the next tests read the VM too)
      await fetch(`${sim.adminUrl}/faults`, { method: "DELETE" });
    }
    await host.delete(URN, created.id, created.outputs, checked.inputs);
  }, 60_000);

  it("once the engine that started the host is gone (the CLI killed: the host outlives it), a create is not sent", async () => {
    const engine = await engineStandIn();
    const orphan = await startConfiguredHost(dir, sim, undefined, engine.address);
    try {
      const checked = await orphan.check(URN, {}, { ...registered, hostname: "host-orphaned", password: "Blue-Horse-42" });
      const mark = (await simRequests()).at(-1)?.seq ?? 0;
      await engine.close();
      const message = await orphan.create(URN, checked.inputs).then(() => "created", (e: Error) => e.message);
      expect(message).toContain("has exited (was pulumi killed?)");
      expect((await simInstances()).filter((i) => i.hostname === "host-orphaned")).toEqual([]);
      // (a read may still go out within a second of the last look that found the engine there; no write does)
      expect((await simRequests()).filter((r) => r.seq > mark && r.method !== "GET").map((r) => r.operation)).toEqual([]);
    } finally {
      await orphan.stop();
    }
  }, 60_000);

  // The real engine's rules for a resource recorded after an initialization failure
  // (pulumi/pulumi pkg/resource/deploy/step.go, CreateStep.Apply / UpdateStep.Apply with StatusPartialFailure):
  // the error's properties become the resource's outputs, and Read and Delete later receive those outputs
  // (not the inputs). The host loads the provider from their __provider, so they must carry it.
  const setFaults = async (faults: unknown) =>
    fetch(`${sim.adminUrl}/faults`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(faults) });

  it("a VM recorded after a failed create is refreshed and destroyed with the recorded properties", async () => {
    const news = { ...registered, hostname: "host-failed", password: "Blue-Horse-42" };
    const checked = await host.check(URN, {}, news);
    await setFaults({ failNext: { kind: "create", count: 1 } });
    const failure = await host.create(URN, checked.inputs).then(
      () => { throw new Error("create should have failed"); },
      (e: unknown) => e as InitFailedError,
    );
    expect(failure).toBeInstanceOf(InitFailedError);
    expect(failure.id).not.toBe("");
    expect(failure.properties.__provider).toBe(registered.__provider);
    expect((await simInstances()).find((i) => i.uuid === failure.id)).toMatchObject({ status: "Error" });

    // refresh: Read with the recorded outputs as properties and the program's inputs
    const read = await host.read(URN, failure.id, failure.properties, checked.inputs);
    expect(read.id).toBe(failure.id);
    expect(read.outputs).toMatchObject({ status: "Error", hostname: "host-failed" });
    // destroy: Delete with the recorded outputs
    await host.delete(URN, failure.id, failure.properties, checked.inputs);
    expect((await simInstances()).find((i) => i.uuid === failure.id)).toBeUndefined();
  }, 60_000);

  it("a VM recorded after an update that failed half-way is refreshed and destroyed", async () => {
    const news = { ...registered, hostname: "host-half", password: "Blue-Horse-42" };
    const checked = await host.check(URN, {}, news);
    const created = await host.create(URN, checked.inputs);
    const changed = await host.check(URN, checked.inputs, { ...news, tierId: 3, cpu: 4 });
    // the tier change (first in the update order) succeeds, the resize after it fails
    await setFaults({ failNext: { kind: "resize", count: 1 } });
    const failure = await host.update(URN, created.id, created.outputs, changed.inputs, checked.inputs).then(
      () => { throw new Error("update should have failed"); },
      (e: unknown) => e as InitFailedError,
    );
    expect(failure).toBeInstanceOf(InitFailedError);
    expect(failure.properties.__provider).toBe(registered.__provider);
    expect(failure.properties).toMatchObject({ tierId: 3, status: "Error" });
    // the real engine keeps the OLD inputs after a failed update and the error's properties as outputs
    const read = await host.read(URN, created.id, failure.properties, checked.inputs);
    expect(read.id).toBe(created.id);
    await host.delete(URN, created.id, read.outputs, checked.inputs);
    expect((await simInstances()).find((i) => i.uuid === created.id)).toBeUndefined();
  }, 60_000);

  it("a create whose outcome could not be checked is recorded as unconfirmed: diff deletes first, refresh finds the VM, destroy deletes it", async () => {
    const news = { ...registered, hostname: "host-unconfirmed", password: "Blue-Horse-42", timeouts: { create: "1s" } };
    const checked = await host.check(URN, {}, news);
    // the create takes effect but its answer is lost, and every listing after the one before it fails until the deadline
    await setFaults({ resetNext: { operation: "createInstance", afterProcessing: true } });
    await setFaults({ resetNext: { operation: "listInstances", skip: 1, count: 100_000 } });
    const failure = await host.create(URN, checked.inputs).then(
      () => { throw new Error("create should have failed"); },
      (e: unknown) => e as InitFailedError,
    );
    await fetch(`${sim.adminUrl}/faults`, { method: "DELETE" });
    expect(failure).toBeInstanceOf(InitFailedError);
    expect(failure.id).toMatch(/^unconfirmed-/);
    expect(failure.properties.__provider).toBe(registered.__provider);
    const vm = (await simInstances()).find((i) => i.hostname === "host-unconfirmed");
    expect(vm).toBeDefined();

    // up without a refresh: a replace that deletes first (the Delete removes the VM that may exist)
    expect(await host.diff(URN, failure.id, failure.properties, checked.inputs, checked.inputs)).toMatchObject({
      changes: true, replaces: ["unconfirmedCreate"], deleteBeforeReplace: true,
    });
    // refresh: Read with the recorded properties answers the VM's real uuid
    const read = await host.read(URN, failure.id, failure.properties, checked.inputs);
    expect(read.id).toBe(vm!.uuid);
    // destroy of the record as it was, a later deployment (its own host: the refresh above noted the VM as held by
    // this stack's resource, which a delete in the same deployment would leave alone): the VM is gone
    const destroyHost = await startConfiguredHost(dir, sim);
    try {
      await destroyHost.delete(URN, failure.id, failure.properties, checked.inputs);
    } finally {
      await destroyHost.stop();
    }
    expect((await simInstances()).find((i) => i.uuid === vm!.uuid)).toBeUndefined();
  }, 60_000);

  // The replaceOnChanges resource option: the real engine applies it only to keys a diff reports as changed,
  // which the Node host never forwards (pkg/resource/deploy/step_generator.go applyReplaceOnChanges;
  // cmd/dynamic-provider diffRPC), so the SDK hands the paths to the provider and its diff reports replaces.
  it("replaceOnChanges works through the real host: the SDK passes it along and the diff reports the replace", async () => {
    const withOption = runUnderMocks<Record<string, unknown>>(dir, PROGRAM.replace("publicIp: true,\n});", "publicIp: true,\n}, { replaceOnChanges: [\"hostname\"] });"), {
      VMHOST_API_KEY: sim.apiKey, VMHOST_BASE_URL: sim.url,
    });
    expect(withOption.__replaceOnChanges).toEqual(["hostname"]);
    const news = { ...withOption, hostname: "host-roc", password: "Blue-Horse-42" };
    const checked = await host.check(URN, {}, news);
    expect(checked.failures).toEqual([]);
    const created = await host.create(URN, checked.inputs);
    const renamed = await host.check(URN, checked.inputs, { ...news, hostname: "host-roc-2" });
    expect(await host.diff(URN, created.id, created.outputs, renamed.inputs, checked.inputs)).toMatchObject({ changes: true, replaces: ["hostname"] });
    // without the option a rename is in place
    const plain = await host.check(URN, {}, { ...registered, hostname: "host-roc-2", password: "Blue-Horse-42" });
    expect(await host.diff(URN, created.id, created.outputs, plain.inputs, checked.inputs)).toMatchObject({ changes: true, replaces: [] });
    await host.delete(URN, created.id, created.outputs, checked.inputs);
  }, 60_000);
});
