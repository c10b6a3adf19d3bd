/**
 * Mistakes caught at preview, end to end: the packed package run by the local engine (real language runtime
 * and dynamic-provider host) against the simulator. A wrong key, a base URL without /v1 and an unknown
 * location fail `preview` with messages naming what to fix, and nothing is written. examples/by-name (the
 * lookup functions) goes up, and its second preview shows no changes (its disk is found attached too).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ExampleStack, TestSimulator, expectOk, simRequests, simState, startTestSimulator } from "./helpers";

// Each test runs the engine once or twice (a few seconds each); leave room for a loaded machine.
jest.setTimeout(180_000);

let sim: TestSimulator;
let basic: ExampleStack;
let byName: ExampleStack;

beforeAll(async () => {
  sim = await startTestSimulator(0.05);
  basic = await ExampleStack.create("basic-vm", sim);
  byName = await ExampleStack.create("by-name", sim);
}, 120_000);

afterAll(async () => {
  await sim?.close();
  basic?.remove();
  byName?.remove();
});

const writes = async () => (await simRequests(sim)).filter((r) => r.method !== "GET");

describe("preview of basic-vm fails before any write", () => {
  test("with a wrong API key: names vmhost:apiKey and how to set it", async () => {
    const r = await basic.run("preview", { secrets: { "vmhost:apiKey": "not-the-key" } });
    expect(r.ok).toBe(false);
    expect(r.errors.join("\n")).toMatch(/vmhost:apiKey: the API at http:\/\/127\.0\.0\.1:\d+\/v1 rejected the API key \(HTTP 401.*pulumi config set --secret vmhost:apiKey/);
    expect(await writes()).toEqual([]);
  });

  test("with a base URL without /v1: says 'did you mean …/v1'", async () => {
    const bare = sim.url.replace(/\/v1$/, "");
    const r = await basic.run("preview", { config: { "vmhost:baseUrl": bare } });
    expect(r.ok).toBe(false);
    expect(r.errors.join("\n")).toContain(`did you mean ${bare}/v1?`);
    expect(await writes()).toEqual([]);
  });

  test("with an unknown location: names locationId, the valid ones and getLocations", async () => {
    const r = await basic.run("preview", { config: { locationId: "99" } });
    expect(r.ok).toBe(false);
    expect(r.errors.join("\n")).toMatch(/locationId: locationId 99 is not a location of this host; valid: 1 \(Jakarta\), 2 \(Surabaya\), 3 \(Singapore\) \(list them with getLocations/);
    expect(await writes()).toEqual([]);
  });
});

test("customTimeouts on our resource shows a warning naming the timeouts input", async () => {
  const program = fs.readFileSync(path.join(basic.dir, "index.ts"), "utf8").replace(
    "{ protect: config.getBoolean(\"protect\") ?? false }",
    "{ protect: false, customTimeouts: { create: \"45m\" } }",
  );
  expect(program).toContain("customTimeouts");
  fs.writeFileSync(path.join(basic.dir, "index.ts"), program);
  const r = expectOk(await basic.run("preview"));
  expect(r.stdout).toContain('customTimeouts is ignored by vmhost.Instance (dynamic providers never receive it): set the timeouts input instead, e.g. timeouts: { create: "45m" }');
});

describe("examples/by-name (lookup functions)", () => {
  test("up creates the VM where the names say, with the disk found by name attached", async () => {
    expectOk(await byName.run("up"));
    const state = await simState(sim);
    const vm = state.instances.find((i) => i.hostname === "by-name-1");
    expect(vm).toEqual(expect.objectContaining({ tierId: 2, cpu: 1, memoryGb: 1, storageGb: 20 }));
    const disk = state.blockStorages.find((b) => b.name === "jkt-data-50");
    expect(disk?.instanceUuid).toBe(vm!.uuid);
  });

  test("a second preview shows no changes: the attached disk is still found by name", async () => {
    expectOk(await byName.run("preview", { expectNoChanges: true }));
  });

  test("destroy detaches the disk and deletes the VM", async () => {
    expectOk(await byName.run("destroy"));
    const state = await simState(sim);
    expect(state.instances.filter((i) => i.hostname === "by-name-1" && i.status !== "Deleted")).toEqual([]);
  });
});
