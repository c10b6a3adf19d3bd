/**
 * What a snapshot wait learns (provider/wait/instance.ts learnFromWait): when the snapshot most likely became Ready
 * (or left the list after its delete), between the last list that showed it in progress and the first that showed
 * it done, not when that list was answered. A noticed time runs up to a poll interval late, and the next wait (this
 * run or the next: durations are kept per host) would sleep that much past the end. A host whose snapshot stays in
 * progress after the instance's operation ended is played by a list that shows it so for two more reads, with a
 * 600 ms poll interval.
 */
process.env.VMHOST_POLL_FAST_MS = "600";
import type * as pulumi from "@pulumi/pulumi";
import { createRunningInstance } from "./attachment-helpers";
import type { Snapshot } from "../../provider/api";
import { configure, getClient, resetContext, setProgressSink } from "../../provider/context";
import { snapshotProvider } from "../../provider/resources/snapshot/provider";
import { durationsFor, forgetDurations } from "../../provider/wait/durations";
import { startSimulator, type RunningSimulator } from "../../simulator";

const provider = snapshotProvider as Required<pulumi.dynamic.ResourceProvider>;
const INTERVAL_MS = 600;
let sim: RunningSimulator;
let restoreSink: (line: string) => void;

beforeAll(async () => {
  sim = await startSimulator({ opSeconds: 0.05 });
  await configure({ config: { get: (k: string) => ({ "vmhost:apiKey": sim.apiKey, "vmhost:baseUrl": sim.url } as Record<string, string>)[k] } });
  restoreSink = setProgressSink(() => undefined);
});
afterAll(async () => {
  setProgressSink(restoreSink);
  resetContext();
  await sim.close();
});

let vm: string;
let made: pulumi.dynamic.CreateResult;

it("learns when the snapshot became Ready (between two lists), not when it was noticed", async () => {
  const client = getClient();
  vm = await createRunningInstance(client, "snap-learn-1");
  forgetDurations();
  const real = client.snapshots.list.bind(client.snapshots);
  // The host's list after the instance's operation ended: the snapshot shows "creating" twice more, then Ready.
  let inProgressAnswers = 0;
  let firstWaitReadAt: number | undefined;
  let readyFrom: number | undefined;
  const list = jest.spyOn(client.snapshots, "list").mockImplementation(async (instanceId: string) => {
    const rows: Snapshot[] = await real(instanceId);
    if (!rows.some((s) => s.status === "Ready") || readyFrom !== undefined) return rows;
    firstWaitReadAt ??= Date.now();
    if (++inProgressAnswers === 2) readyFrom = Date.now(); // Ready from just after this answer
    return rows.map((s) => (s.status === "Ready" ? { ...s, status: "creating" } : s));
  });
  try {
    made = await provider.create((await provider.check({}, { instanceId: vm, name: "learned" })).inputs);
    expect(made.outs).toMatchObject({ status: "Ready" });
  } finally {
    list.mockRestore();
  }
  expect(readyFrom).toBeDefined();
  // The wait began right before its first list (no sleep before a first poll), so the end lies this long after it:
  const trueEndMs = readyFrom! - firstWaitReadAt!;
  const learned = durationsFor(client.baseUrl).expected("snapshot-create-ready");
  expect(learned).toBeDefined();
  expect(learned!).toBeGreaterThanOrEqual(trueEndMs - 20);
  // The next list came an interval later: learning its answer would put the end that much late.
  expect(learned!).toBeLessThan(trueEndMs + INTERVAL_MS * 0.75);
  forgetDurations();
});

it("learns when the deleted snapshot left the list, not when that was noticed", async () => {
  const client = getClient();
  const real = client.snapshots.list.bind(client.snapshots);
  const shown = (await real(vm)).find((s) => s.id === made.id)!;
  // After the instance's operation ended, the list still shows the snapshot "deleting" twice, then no more.
  let stillListed = 0;
  let firstWaitReadAt: number | undefined;
  let goneFrom: number | undefined;
  const list = jest.spyOn(client.snapshots, "list").mockImplementation(async (instanceId: string) => {
    const rows: Snapshot[] = await real(instanceId);
    if (rows.some((s) => s.id === made.id) || goneFrom !== undefined) return rows;
    firstWaitReadAt ??= Date.now();
    if (++stillListed === 2) goneFrom = Date.now();
    return [...rows, { ...shown, status: "deleting" }];
  });
  try {
    await provider.delete(made.id, made.outs);
  } finally {
    list.mockRestore();
  }
  expect(goneFrom).toBeDefined();
  const trueEndMs = goneFrom! - firstWaitReadAt!;
  const learned = durationsFor(client.baseUrl).expected("snapshot-delete-gone");
  expect(learned).toBeDefined();
  expect(learned!).toBeGreaterThanOrEqual(trueEndMs - 20);
  expect(learned!).toBeLessThan(trueEndMs + INTERVAL_MS * 0.75);
  forgetDurations();
});
