import { BusyError, type InstanceDetail, type InstanceListItem, type VmHostClient } from "../api";
import { statusMeaning } from "../api/normalize";
import { systemClock, type Clock } from "../clock";
import { progressLog } from "../context";
import { instanceLock } from "../resources/common/lock";
import { durationsFor } from "./durations";
import { Deadline, defaultPollSchedule, pollUntil, retryUntilDeadline, WaitFailedError, WaitTimeoutError, type PlannedPoll, type PollSchedule, type PollVerdict } from "./poll";
import { perClient } from "./batched-asks";
import { statusPollerFor, TICK_SKIPPED } from "./status-poller";

/** Statuses that mean the last operation failed: the wait ends at once instead of running to its deadline. */
export function isFailureStatus(status: string): boolean {
  return statusMeaning(status) === "failed";
}

/** Options of the instance waits. */
export interface InstanceWaitOptions {
  /** What is awaited, for messages: "instance 6f1c… to finish resize". */
  what: string;
  deadline: Deadline;
  /** The state the operation leads to (e.g. status Running, cpu 4). Settled = operation_flag 0 and this. */
  until?: (detail: InstanceDetail) => boolean;
  /** Usual duration; without it, the learned duration of `kind` is used. */
  expectedMs?: number;
  /** Operation kind ("create", "resize", ...): durations are learned per kind to poll fast around the usual finish. */
  kind?: string;
  /** The clock of every wait in it (tests inject a fake one); the real clock by default. */
  clock?: Clock;
  /**
   * Whether a failure status (`Error`) ends the wait at once (default true). False when the VM was already
   * in Error before the operation was sent: then only `until` (and the deadline) decide, so work on a
   * broken VM (removing its address before deleting it, starting it to repair it) is not refused.
   */
  failOnErrorStatus?: boolean;
  /**
   * `until` asks for a status word (a power change: stopped, running): a VM idle in a word this provider cannot read
   * then ends the wait after {@link unknownStatusGraceMs} even when no operation was seen running (it ended before
   * the first look). Not for other waits: there the word says nothing of whether their operation has yet to start.
   */
  untilIsStatusWord?: boolean;
}

/**
 * Options of a wait whose outcome the list row can show on its own (an address taken off: the row's `ip_address`).
 * A settled row for which `settledByRow` holds ends the wait without a detail read, so the wait resolves to that row
 * (or to the detail, where the list did not show the VM or the row could not tell). In a fleet's destroy, 50
 * addresses taken off cost one shared list tick instead of 50 detail reads at the host's 10 requests/s.
 */
export interface RowSettledWaitOptions extends InstanceWaitOptions {
  settledByRow: (row: InstanceListItem) => boolean;
}

function expectedFor(client: VmHostClient, opts: { expectedMs?: number; kind?: string }): number | undefined {
  return opts.expectedMs ?? (opts.kind ? expectedDuration(client, opts.kind) : undefined);
}

/**
 * The usual duration of `kind` on the client's host, when learned (in this process or kept from an earlier run,
 * durations.ts); undefined when nothing is known, and the wait then polls fast from the start. Waits use this
 * instead of a fixed guess: a guess of 30 s sleeps 27 s before the second poll on a host (or a test simulator)
 * where the operation takes 50 ms.
 */
export function expectedDuration(client: Pick<VmHostClient, "baseUrl">, kind: string): number | undefined {
  return durationsFor(client.baseUrl).expected(kind);
}

/**
 * Learns how long `kind` took on this host (durations.ts: kept across runs, so a fresh process polls well too), from
 * a wait that began at `started` (expecting `expectedMs`), whose last answer showing the operation still under way
 * came at `runningSeenAt` and whose answer showing it ended came at `endedAt`, polled every `intervalMs`: learned as
 * when it most likely ended (endEstimate), not when it was noticed, which would creep later run after run; and
 * forgotten when the wait slept through an end well before the usual one (endedBeforeUsual). Every wait that learns
 * a duration learns it here (instance settle and gone, snapshot ready and gone).
 */
export function learnFromWait(
  client: Pick<VmHostClient, "baseUrl">,
  kind: string | undefined,
  wait: { started: number; expectedMs: number | undefined; runningSeenAt: number | undefined; endedAt: number; intervalMs: number },
): void {
  if (!kind) return;
  const usualEnd = wait.expectedMs !== undefined ? wait.started + wait.expectedMs : undefined;
  durationsFor(client.baseUrl).learn(
    kind,
    endEstimate(wait.runningSeenAt, wait.endedAt, usualEnd, wait.intervalMs) - wait.started,
    endedBeforeUsual(wait.runningSeenAt, wait.endedAt, usualEnd, wait.intervalMs),
  );
}


/**
 * pollUntil's timing for an instance wait. On an injected clock (tests): that clock, and the default schedule.
 * On the real clock (pollUntil then bounds each poll by the deadline in real time) the shared poller paces the
 * polls (one list tick per interval for every wait of the process), so a wait asks again right after an answer
 * (`fastMs` 50 ms instead of the interval): it then sees the very next tick, and an operation's end is noticed
 * within one tick interval instead of up to two (sleep a full interval, then wait for the next tick). Sleeping
 * until shortly before a known duration, and backing off far past it, stay as scheduled.
 */
function pollTiming(clock: Clock | undefined): { now?: () => number; sleep?: (ms: number) => Promise<void>; schedule?: PollSchedule } {
  if (clock) return { now: () => clock.now(), sleep: (ms) => clock.sleep(ms) };
  return { schedule: sharedPollSchedule() };
}

/**
 * The poll schedule of a wait whose polls go through a shared, interval-paced read (the instance status poller,
 * wait/shared-read.ts): ask again right after an answer; the shared read's interval does the pacing.
 */
export function sharedPollSchedule(): PollSchedule {
  return { fastMs: Math.min(POLLER_PACED_FAST_MS, defaultPollSchedule.fastMs), maxMs: defaultPollSchedule.maxMs };
}

/**
 * How long a VM may stay idle and not as asked after its operation was seen running before the wait says so (the
 * detail may show an operation's result a moment after its flag drops; `VMHOST_OUTCOME_GRACE_MS` for tests).
 */
const OUTCOME_GRACE_MS = Number(process.env.VMHOST_OUTCOME_GRACE_MS ?? 10_000);

/**
 * How long a VM may stay idle in a status word that says neither running nor stopped (nor failed, nor an operation)
 * before a wait for it says so, where no operation was seen to tell that it ended: a create's settle
 * (instance/provider.ts), and a power change's wait that never saw its operation run (untilIsStatusWord).
 * `VMHOST_UNKNOWN_STATUS_GRACE_MS` for tests.
 */
export const unknownStatusGraceMs = (): number => Number(process.env.VMHOST_UNKNOWN_STATUS_GRACE_MS ?? 120_000);

/** The status words this provider reads (api/normalize.ts statusMeaning), as its messages about other words name them. */
export const READ_STATUS_WORDS = "Running/Stopped/Error and the panels' Berjalan/Mati/Gagal, in any case";

/** What a wait says of a VM idle in a status word it cannot read, after the operation it waited for (`how`). */
function unknownWordMessage(how: string, status: string): string {
  return (
    `${how}, and the instance reports status "${status}", a word this provider does not know as running, stopped or failed ` +
    `(it knows ${READ_STATUS_WORDS}), so whether it is as asked is unknown: ` +
    "look at the VM in the host's panel, and please report the word with your host's name"
  );
}

/** How soon a wait asks the shared poller again after an answer (the poller's tick interval does the pacing). */
const POLLER_PACED_FAST_MS = 50;

/** What one poll saw: the instance's row in the shared list, its detail (when the list does not show it), or gone. */
type Seen = { row: InstanceListItem; detail?: undefined } | { detail: InstanceDetail; row?: undefined } | undefined;

/**
 * One status poll through the process's shared poller (status-poller.ts): the list row when the list shows the
 * instance; otherwise the detail, because only its 404 says the instance is gone. `detailFirst`: the detail
 * straight away (the first look at an operation that usually ends within two ticks: waitForInstanceSettled).
 */
async function observe(client: VmHostClient, uuid: string, injectedTime: boolean, detailFirst = false): Promise<Seen> {
  return seenFrom(client, uuid, detailFirst ? undefined : await statusPollerFor(client).status(uuid, { now: injectedTime }));
}

/** What the list row shows, or (no row: not listed, or not asked) the detail; undefined when the instance is gone. */
async function seenFrom(client: VmHostClient, uuid: string, row: InstanceListItem | undefined): Promise<Seen> {
  if (row) return { row };
  const detail = await client.instances.find(uuid);
  return detail ? { detail } : undefined;
}

/**
 * Polls the instance until it is settled: no operation running (`operation_flag` 0) and, if given, `until`
 * holds. A failure status (`Error`) ends the wait at once with WaitFailedError; so does the instance
 * disappearing. The deadline error names the last status seen.
 */
export async function waitForInstanceSettled(client: VmHostClient, uuid: string, opts: InstanceWaitOptions): Promise<InstanceDetail> {
  // (without settledByRow the wait ends only on a detail)
  return (await settle(client, uuid, { ...opts, settledByRow: undefined })) as InstanceDetail;
}

/** waitForInstanceSettled, or with `settledByRow` (runInstanceOperation) the settled row where it showed the outcome. */
async function settle(client: VmHostClient, uuid: string, opts: InstanceWaitOptions & Partial<RowSettledWaitOptions>): Promise<IdleStatus> {
  const clock = opts.clock ?? systemClock;
  const started = clock.now();
  const gone = { failed: true, message: `instance ${uuid} no longer exists` } as const;
  let expectedMs = expectedFor(client, opts);
  // An operation that usually ends within two ticks of the shared poller (an address added, a rule changed): its
  // first look reads the detail directly instead of waiting up to a tick for the list to say "idle" and then
  // reading the detail. Same requests when it has ended (the settled detail is read either way), one more when
  // not; then the shared list watches it like any other wait. (A chain of such operations, e.g. a fleet's
  // addresses each after its VM, would otherwise wait a tick per link.)
  const intervalMs = statusPollerFor(client).intervalMs;
  // (not where the row can show the outcome: one shared tick then answers every such wait, no detail read at all)
  let detailFirst = expectedMs !== undefined && expectedMs < 2 * intervalMs && opts.settledByRow === undefined;
  // A longer operation of a known kind: its detail is read at the usual end, shortly after it (the "end read"),
  // not at the next list tick after it. The settled detail is read once either way (the outputs come from it), so
  // this costs no request when the usual end holds, and one when the operation runs longer (the list then watches
  // it again, and later waits of the kind in this process do without end reads). It is faster, and on a
  // rate-limited host it spreads the detail reads of a fleet as its creates were spread instead of releasing a
  // tick's worth of them at once (10 reads queued behind one tick, seen in make bench). Ticks still watch the
  // time before it, so an operation that ends early is noticed as before, unless the host's rate limit is busy
  // (status-poller.ts: those ticks are then left out, and the end read is what notices the end).
  const endReadAfter = (expected: number | undefined): PlannedPoll | undefined =>
    expected !== undefined && expected >= 2 * intervalMs ? { atMs: expected + intervalMs * END_READ_MARGIN, leadMs: intervalMs } : undefined;
  let endRead = endReadAfter(expectedMs);
  let endReadDone = false;
  // When the last poll that saw the operation running was answered: the end lies between it and the settled answer.
  let runningSeenAt: number | undefined;
  // An operation was seen running, and since when the VM is idle without being as asked (see OUTCOME_GRACE_MS).
  let operationSeen = false;
  let idleNotAsAskedSince: number | undefined;
  // With no operation seen: since when the VM is idle in a word this provider cannot read (see unknownStatusGraceMs).
  let idleInUnknownWordSince: number | undefined;
  let lastStatus: string | undefined;
  const settled = await pollUntil<IdleStatus>({
    what: opts.what,
    deadline: opts.deadline,
    // Read before every sleep: a wait that started knowing nothing adopts a duration learned meanwhile (below).
    get expectedMs() {
      return expectedMs;
    },
    get planned() {
      return endRead;
    },
    log: progressLog,
    ...pollTiming(opts.clock),
    pacing: () => client.rateLimit?.describePacing?.(),
    poll: async () => {
      // A fleet's first VM to finish tells the others, started knowing nothing (a fresh process), when theirs end:
      // they adopt its duration (and so an end read) while that end is still ahead; past it they keep polling fast.
      if (expectedMs === undefined && opts.kind !== undefined) {
        const learned = expectedFor(client, opts);
        if (learned !== undefined && clock.now() - started < learned) {
          expectedMs = learned;
          endRead = endReadAfter(learned);
        }
      }
      const plan = endRead;
      const planned = plan !== undefined && !endReadDone && !endReadsMissed(client, opts.kind);
      // (A little early counts: a timer of the system clock can fire a millisecond before Date.now() reaches its
      // time, and this poll is the one pollUntil slept until. Missed, it waited for a tick: 0.6 s late in make bench.)
      const atEnd = planned && clock.now() - started >= plan.atMs - TIMER_SLACK_MS;
      if (atEnd) endReadDone = true;
      const verdict = await settledVerdict(detailFirst || atEnd, planned && !atEnd);
      detailFirst = false;
      if (verdict === TICK_SKIPPED) return { done: false, status: lastStatus ?? "not looked at yet (the host's rate limit is busy)" };
      if ("done" in verdict && !verdict.done) {
        runningSeenAt = clock.now();
        lastStatus = verdict.status;
        if (atEnd) endReadMissed(client, opts.kind);
      }
      return verdict;
    },
  });
  learnFromWait(client, opts.kind, { started, expectedMs, runningSeenAt, endedAt: clock.now(), intervalMs });
  return settled;

  /**
   * `readDetail`: the detail straight away (a first look, or the end read). `watchOnly` (never with readDetail): the
   * end read is still ahead, the list only watches for an early end (status-poller.ts watch).
   */
  async function settledVerdict(readDetail: boolean, watchOnly: boolean): Promise<PollVerdict<IdleStatus> | typeof TICK_SKIPPED> {
    let seen: Seen;
    if (watchOnly) {
      const row = await statusPollerFor(client).watch(uuid, { now: opts.clock !== undefined });
      if (row === TICK_SKIPPED) return row;
      seen = await seenFrom(client, uuid, row);
    } else {
      seen = await observe(client, uuid, opts.clock !== undefined, readDetail);
    }
    if (!seen) return gone;
    const failOnError = opts.failOnErrorStatus !== false;
    const status = seen.row ?? seen.detail;
    if (failOnError && isFailureStatus(status.status)) return { failed: true, message: `the instance reports status ${status.status}` };
    if (status.operation_flag !== 0) {
      operationSeen = true;
      idleNotAsAskedSince = undefined;
      return { done: false, status: `${status.status} (operation running)` };
    }
    if (seen.row && opts.settledByRow?.(seen.row)) return { done: true, value: seen.row };
    // The list says no operation runs: the detail has what `until` checks (sizes, tier, addresses, network).
    const d = seen.detail ?? (await client.instances.find(uuid));
    if (!d) return gone;
    if (failOnError && isFailureStatus(d.status)) return { failed: true, message: `the instance reports status ${d.status}` };
    if (d.operation_flag === 0 && (!opts.until || opts.until(d))) return { done: true, value: d };
    if (d.operation_flag !== 0) {
      operationSeen = true;
      idleNotAsAskedSince = undefined;
      return { done: false, status: `${d.status} (operation running)` };
    }
    // The operation ran and ended, and the VM is not as asked: cancelled or overridden outside Pulumi (the panel,
    // another tool). Waiting on would last until the deadline (30 minutes by default) and then blame a slow host
    // (audit). After a grace for a detail that lags the operation's end, said as it is.
    if (operationSeen) {
      idleNotAsAskedSince ??= clock.now();
      if (clock.now() - idleNotAsAskedSince >= OUTCOME_GRACE_MS)
        return {
          failed: true,
          // (a word the provider cannot read, e.g. a host's own "Nonaktif" after a stop, is not evidence of a change
          // made elsewhere: said as what it is; real-api-facts audit)
          message: statusMeaning(d.status) === undefined
            ? unknownWordMessage("its operation ended", d.status)
            : `its operation ended, but the instance is not as asked (status ${d.status}): it was cancelled or changed outside Pulumi ` +
              "(the panel, another tool) or the host did it otherwise; `pulumi up` again reads the instance and plans from what it is",
        };
    } else if (opts.untilIsStatusWord && statusMeaning(d.status) === undefined) {
      // No operation seen (it ended before the first look, e.g. a short stop on a loaded machine), and the awaited word
      // is one this provider cannot read: waiting on lasted until the deadline (30 minutes by default) and then blamed
      // a slow host (a CI run). Said after a grace instead, as a create's settle does.
      idleInUnknownWordSince ??= clock.now();
      if (clock.now() - idleInUnknownWordSince >= unknownStatusGraceMs())
        return { failed: true, message: unknownWordMessage(`no operation is running and it stayed so for ${Math.round(unknownStatusGraceMs() / 1000)} s`, d.status) };
    } else idleInUnknownWordSince = undefined;
    return { done: false, status: d.status };
  }
}

/**
 * When the operation most likely ended (a clock time), from the last answer that saw it running (if any) and the
 * one that saw it settled: the end lies between them. Not when the end was noticed: the end read is planned from
 * what is learned, and a noticed time would creep later run after run. Answers at most two poll intervals apart:
 * their middle. Further apart (the watch ticks before an end read were left out on a busy host, status-poller.ts):
 * the middle says little (it can be seconds off either way); the usual end (`expectedAt`) is kept where it fits
 * between them, else the nearest of the two.
 */
export function endEstimate(runningSeenAt: number | undefined, settledAt: number, expectedAt: number | undefined, intervalMs: number): number {
  if (runningSeenAt !== undefined && settledAt - runningSeenAt <= 2 * intervalMs) return (runningSeenAt + settledAt) / 2;
  if (expectedAt === undefined) return runningSeenAt !== undefined ? (runningSeenAt + settledAt) / 2 : settledAt;
  if (endedBeforeUsual(runningSeenAt, settledAt, expectedAt, intervalMs)) return (runningSeenAt! + settledAt) / 2;
  return Math.min(settledAt, Math.max(runningSeenAt ?? -Infinity, expectedAt));
}

/**
 * Whether the operation was seen ended before its usual end with nothing seen in between since it was seen running
 * (the wait slept through it): the usual duration is too long, by an unknown amount. The end then lies anywhere
 * between the two answers, so the kind is forgotten (durations.ts learn) and its next wait polls from its start and
 * learns it to within a tick: an outlier (a stuck operation finished in the panel, a run with many faults) stops
 * making later waits sleep far past the end after one wait (multistack audit: 20 s learned for 0.05 s operations made
 * each create take 18 s, and each run learned its own sleep back, about 3 % shorter; fleet audit: halving it per such
 * wait still cost one late run per half).
 */
export function endedBeforeUsual(runningSeenAt: number | undefined, settledAt: number, expectedAt: number | undefined, intervalMs: number): boolean {
  return runningSeenAt !== undefined && expectedAt !== undefined && settledAt < expectedAt && settledAt - runningSeenAt > 2 * intervalMs;
}

/**
 * How long after the usual end of an operation its end read is made, in poll intervals: half of one, as the learned
 * end (the middle between two answers about an interval apart) is known to within half an interval.
 */
const END_READ_MARGIN = 1 / 2;

/** How early a poll may come and still be the end read (see its use). */
const TIMER_SLACK_MS = 5;

/**
 * Kinds whose end read came too early in this process (the operation ran longer than usual), per client. Their
 * waits go back to the list ticks for the rest of the process: on a host whose durations vary, a fleet would
 * otherwise pay a wasted detail read per VM. The next process tries again, with what this one learned.
 */
const missedEndReadsOf = perClient((_client: VmHostClient) => new Set<string | undefined>());
const endReadsMissed = (client: VmHostClient, kind: string | undefined): boolean => missedEndReadsOf(client).has(kind);
const endReadMissed = (client: VmHostClient, kind: string | undefined): void => void missedEndReadsOf(client).add(kind);

/**
 * Polls until the instance is gone (404 on its detail; the list not showing it is only a hint). Used after
 * delete, so a destroy only returns once billing stopped. Learns the duration as kind `delete` by default.
 */
export async function waitForInstanceGone(
  client: VmHostClient,
  uuid: string,
  opts: {
    what: string; deadline: Deadline; clock?: Clock; kind?: string;
    /**
     * The instance was in a failure status (`Error`) before the delete was sent: that status then says nothing of the
     * delete until an operation was seen running (the API says operations "will happen shortly"; a host whose flag
     * rises a moment after the answer would otherwise fail the delete of every failed VM at its first look: destroy
     * audit). Without any for OUTCOME_GRACE_MS, the delete is taken as not started.
     */
    failedBefore?: boolean;
  },
): Promise<void> {
  const clock = opts.clock ?? systemClock;
  const started = clock.now();
  const kind = opts.kind ?? "delete";
  let operationSeen = false;
  const expectedMs = expectedFor(client, { kind });
  // When the last poll that still saw the instance was answered: it went between that and the poll that did not.
  let presentSeenAt: number | undefined;
  await pollUntil<void>({
    what: opts.what,
    deadline: opts.deadline,
    expectedMs,
    log: progressLog,
    ...pollTiming(opts.clock),
    pacing: () => client.rateLimit?.describePacing?.(),
    poll: async () => {
      const seen = await observe(client, uuid, opts.clock !== undefined);
      if (!seen) return { done: true, value: undefined };
      const answeredAt = clock.now();
      let d: { status: string; operation_flag: number } | undefined = seen.row ?? seen.detail;
      // Listed with no operation running: a host whose list lags (or keeps deleted VMs) is asked for the detail.
      if (seen.row && d.operation_flag === 0) d = await client.instances.find(uuid);
      if (!d) return { done: true, value: undefined };
      if (d.operation_flag !== 0) operationSeen = true;
      if (isFailureStatus(d.status) && d.operation_flag === 0) {
        if (!opts.failedBefore || operationSeen) return { failed: true, message: `the instance reports status ${d.status}` };
        if (clock.now() - started >= OUTCOME_GRACE_MS)
          return { failed: true, message: `the instance stays in status ${d.status}, and no delete operation was seen running in ${Math.round(OUTCOME_GRACE_MS / 1000)} s` };
      }
      // (only a poll whose answer showed it present: a row of a lagging list whose detail then 404s does not count)
      presentSeenAt = answeredAt;
      return { done: false, status: d.status };
    },
  });
  learnFromWait(client, kind, { started, expectedMs, runningSeenAt: presentSeenAt, endedAt: clock.now(), intervalMs: statusPollerFor(client).intervalMs });
}

/** What an idle wait saw when no operation ran: the list row, or the detail where the list did not show the VM. */
export type IdleStatus = InstanceListItem | InstanceDetail;

/**
 * Waits until no operation runs on the instance, whatever its status (unlike waitForInstanceSettled, a VM in
 * Error is fine here: it can still be deleted, repaired, or have its address removed). Resolves to what the
 * shared list showed (status, `operation_flag`), or undefined when the instance does not exist. No detail is
 * read while the list shows the VM: callers that only need "idle, and in which status" (every operation, a
 * delete) cost no request of their own; {@link waitUntilIdle} reads the detail for callers that need it.
 */
export async function waitUntilIdleStatus(
  client: VmHostClient,
  uuid: string,
  opts: { what: string; deadline: Deadline; clock?: Clock },
): Promise<IdleStatus | undefined> {
  return pollIdle<IdleStatus>(client, uuid, opts, async (seen) => ({ done: true, value: seen.row ?? seen.detail }));
}

/**
 * Like {@link waitUntilIdleStatus}, resolving to the detail (read once the list shows the VM idle), for callers
 * that decide from it (adopting a VM: its outputs). Undefined when the instance does not exist.
 */
export async function waitUntilIdle(
  client: VmHostClient,
  uuid: string,
  opts: { what: string; deadline: Deadline; clock?: Clock },
): Promise<InstanceDetail | undefined> {
  return pollIdle<InstanceDetail>(client, uuid, opts, async (seen) => {
    // idle by the list: the caller needs the detail (it decides what to send from it)
    const d = seen.detail ?? (await client.instances.find(uuid));
    if (!d) return { done: true, value: undefined };
    return d.operation_flag === 0 ? { done: true, value: d } : { done: false, status: `${d.status} (operation running)` };
  });
}

/** The idle waits' loop: gone ends it (undefined), an operation running keeps it going, idle asks `whenIdle`. */
async function pollIdle<T>(
  client: VmHostClient,
  uuid: string,
  opts: { what: string; deadline: Deadline; clock?: Clock },
  whenIdle: (seen: NonNullable<Seen>) => Promise<PollVerdict<T | undefined>>,
): Promise<T | undefined> {
  return pollUntil<T | undefined>({
    what: opts.what,
    deadline: opts.deadline,
    log: progressLog,
    ...pollTiming(opts.clock),
    pacing: () => client.rateLimit?.describePacing?.(),
    poll: async () => {
      const seen = await observe(client, uuid, opts.clock !== undefined);
      if (!seen) return { done: true, value: undefined };
      const status = seen.row ?? seen.detail;
      if (status.operation_flag !== 0) return { done: false, status: `${status.status} (operation running)` };
      return whenIdle(seen);
    },
  });
}

/** `: HTTP 422 "VM is still in progress."`, the status and words of a busy answer. */
function busyAnswer(error: unknown): string {
  if (!(error instanceof BusyError)) return "";
  return `: HTTP ${error.status ?? "?"}${error.apiMessage ? ` ${JSON.stringify(error.apiMessage)}` : ""}`;
}

/**
 * Sends a request that the API may answer "busy" (HTTP 409: its view of running operations lags the
 * detail's), waiting out busy answers with backoff until the deadline. `send` runs again for every attempt,
 * so it should first wait until the instance is idle (as runInstanceOperation's does).
 */
export async function sendWhenNotBusy<T>(
  what: string,
  deadline: Deadline,
  send: () => Promise<T>,
  clock: Clock = systemClock,
): Promise<T> {
  // The detail said idle but the API said busy: its view lags. Back off before asking again.
  // The host's own words end the wait at the deadline: a 400/422 read as busy from its wording (errors.ts
  // readsAsBusy) that was a real refusal after all is then seen for what it is, with its status.
  const atDeadline = (last: unknown) => new WaitTimeoutError(`${what} (the API kept answering busy${busyAnswer(last)})`, "busy", deadline.totalMs, deadline.phase);
  let lastBusy: BusyError | undefined;
  return retryUntilDeadline(
    {
      deadline,
      sleep: clock.sleep,
      retryable: (error) => error instanceof BusyError,
      atDeadline,
      onRetry: (error, attempt) => {
        lastBusy = error as BusyError;
        if (attempt === 0) progressLog(`${what}: the API answered busy${busyAnswer(error)}; waiting for the instance to be idle, then sending again`);
      },
    },
    async () => {
      try {
        return await send();
      } catch (error) {
        // The deadline passed while the next attempt waited for the VM to be idle: the busy answer is the news.
        if (lastBusy && error instanceof WaitTimeoutError && deadline.expired()) throw atDeadline(lastBusy);
        throw error;
      }
    },
  );
}

/**
 * Runs one state-changing operation on an instance safely:
 * 1. takes the process-wide lock of the instance (parallel resources on one VM queue up instead of colliding);
 *    the time spent queued counts against the deadline;
 * 2. waits until no operation is running on it (another tool, or the console, may have started one);
 *    a VM in status Error is not refused here: deleting its address or repairing it must stay possible;
 * 3. sends the request (`send` gets what said "idle": the shared list's row, from a tick that started after this
 *    wait began, or the detail where the list did not show the VM; a decision it allows costs no read of its own);
 *    a "busy" answer (the API saw an operation we could not) waits and sends again;
 * 4. waits until the instance is settled in the state the operation leads to (`until`); a failure status
 *    ends that wait at once unless the VM was already in it before the request,
 * all within one deadline, and returns the API's answer and the fresh instance detail (with `settledByRow`: the
 * settled list row where it showed the outcome).
 */
export async function runInstanceOperation<T>(
  client: VmHostClient,
  uuid: string,
  opts: RowSettledWaitOptions,
  send: (idle: IdleStatus) => Promise<T>,
): Promise<{ result: T; detail: IdleStatus }>;
export async function runInstanceOperation<T>(
  client: VmHostClient,
  uuid: string,
  opts: InstanceWaitOptions,
  send: (idle: IdleStatus) => Promise<T>,
): Promise<{ result: T; detail: InstanceDetail }>;
export async function runInstanceOperation<T>(
  client: VmHostClient,
  uuid: string,
  opts: InstanceWaitOptions & Partial<RowSettledWaitOptions>,
  send: (idle: IdleStatus) => Promise<T>,
): Promise<{ result: T; detail: IdleStatus }> {
  return instanceLock.run(
    uuid,
    async () => {
      let wasInError = false;
      const result = await sendWhenNotBusy(
        opts.what,
        opts.deadline,
        async () => {
          // The list row tells idle and the status: no detail read of its own (the settle below reads it once).
          const idle = await waitUntilIdleStatus(client, uuid, { what: `${opts.what}: instance ${uuid} to be idle`, deadline: opts.deadline, clock: opts.clock });
          if (!idle) throw new WaitFailedError(opts.what, `instance ${uuid} no longer exists`);
          wasInError = isFailureStatus(idle.status);
          return send(idle);
        },
        opts.clock,
      );
      const detail = await settle(client, uuid, { ...opts, failOnErrorStatus: opts.failOnErrorStatus ?? !wasInError });
      return { result, detail };
    },
    { deadline: opts.deadline, what: opts.what },
  );
}

export { WaitFailedError, WaitTimeoutError };
