/**
 * A fleet with tight `timeouts` on a rate-limited host: more requests than the host's limit lets through before the
 * resources' deadlines. Before, the provider's queue was first-in-first-out and ignored deadlines: every create
 * went out, late ones after their resource had given up (24 creates with `timeouts.create` 8 s at 2 requests/s:
 * 24 VMs made, all 24 creates failed with "raise timeouts.create if the host is slow"). Now a create still queued at
 * its deadline is never sent and says so (no VM), and the queue serves the nearest deadlines first, so the resources
 * that started first finish; a wait that runs out meanwhile says the rate limit paced the requests. And the requests of
 * creates already sent (their settle and outputs reads) go ahead of creates not sent yet: before, with deadlines equal to
 * the millisecond, those reads queued behind later creates, and most VMs made failed "did not become ready" although
 * they were (15 of 18 made, 3 finished). Invariants checked against the simulator: a create reported never sent made
 * no VM; every VM the simulator holds is a create that succeeded or one whose error names it (recorded in the state).
 */
import "./instance-env";
import { providers } from "../../provider";
import { resetContext, setProgressSink } from "../../provider/context";
import { QueuedPastDeadlineError } from "../../provider/api/limiter";
import { forgetDurations } from "../../provider/wait/durations";
import { objectsOfThisStack, replacementsInProgress } from "../../provider/resources/common/replacements";
import { startHarness, type SimHarness } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

let h: SimHarness;
beforeAll(async () => {
  h = await startHarness();
  resetContext();
  setProgressSink(() => undefined);
});
afterAll(async () => {
  await h?.clearFaults();
  await h?.close();
});
afterEach(() => {
  replacementsInProgress.clear();
  objectsOfThisStack.clear();
});

it("creates queued past their deadline are never sent (no VM, said so); the first ones finish", async () => {
  forgetDurations();
  const instance = providers.Instance;
  // 36 creates with 12 s each at 2 requests/s: more than the limit lets out in time (24 requests), while the first
  // resource, which needs about four, keeps 10 s to spare on a loaded machine (8 s for 24 creates failed it once in a
  // full CI run, 2728 of 2729 passing)
  const hostnames = Array.from({ length: 36 }, (_, i) => `queued-${i}`);
  const checked = await Promise.all(hostnames.map((hostname) => instance.check!({}, { ...validCreate, hostname, timeouts: { create: "12s" } })));
  await h.setFaults({ rateLimitPerSecond: 2 });
  const results = await Promise.allSettled(checked.map((c) => instance.create(c.inputs!)));
  await h.clearFaults();
  const vms = (await h.state()).instances.filter((i) => i.hostname.startsWith("queued-"));
  const neverSent = results.flatMap((r, i) => (r.status === "rejected" && r.reason instanceof QueuedPastDeadlineError ? [i] : []));
  // 36 creates (plus their reads) cannot all go out at 2 a second within 12 s: those left are not sent
  expect(neverSent.length).toBeGreaterThan(0);
  for (const i of neverSent) {
    expect(vms.filter((vm) => vm.hostname === hostnames[i])).toEqual([]);
    const message = (results[i] as PromiseRejectedResult).reason.message as string;
    expect(message).toMatch(/^POST \/instance\/create \(createInstance\) was never sent \(it changed nothing\)/);
    expect(message).toContain("this provider's own queue");
    expect(message).toContain("Raise the resource's timeouts");
  }
  // every VM made is accounted for: its create succeeded, or its error names it (the resource is recorded)
  for (const vm of vms) {
    const i = hostnames.indexOf(vm.hostname);
    const r = results[i]!;
    if (r.status === "fulfilled") expect((r.value as { id: string }).id).toBe(vm.uuid);
    else {
      expect(String((r.reason as Error).message)).toContain(vm.uuid);
      // a wait that ran out while the host's rate limit paced the requests says so, instead of "if the host is slow"
      if (/did not become ready/.test(String((r.reason as Error).message))) {
        expect(String((r.reason as Error).message)).toContain("the host's rate limit paced this provider's requests meanwhile");
        expect(String((r.reason as Error).message)).not.toContain("if the host is slow");
      }
    }
  }
  // the resources that started first got the queue first, and finished
  // (the reason is printed with a failure: the first create was rejected twice in full CI runs on 28 November, cause unseen)
  const first = results[0]!;
  expect({ status: first.status, reason: first.status === "rejected" ? String(first.reason) : undefined }).toEqual({ status: "fulfilled", reason: undefined });
  // a create that was sent is seen through: only those sent in the last seconds before their deadline can still fail
  // with their VM made (a create's end is read about 2 s after its answer at this limit, the duration the first one
  // took to be seen; creates go out while no read of an earlier one is queued: 1 to 5 measured on a loaded machine, 15 before)
  const finished = results.filter((r) => r.status === "fulfilled").length;
  const madeButFailed = vms.length - finished;
  expect(madeButFailed).toBeLessThanOrEqual(6);
  expect(finished).toBeGreaterThan(madeButFailed);
}, 120_000);
