import { BusyError, type InstanceDetail, type VmHostClient } from "../api";
import { progressLog } from "../context";
import { instanceLock } from "../resources/common/lock";
import { Deadline, pollUntil, WaitFailedError, WaitTimeoutError } from "./poll";

/** Statuses that mean the last operation failed: the wait ends at once instead of running to its deadline. */
export function isFailureStatus(status: string): boolean {
  return /^(error|failed|failure)$/i.test(status.trim());
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
  sleep?: (ms: number) => Promise<void>;
}

/**
 * How long each kind of operation usually takes on this account, learned in this process (moving average).
 * Hosts differ a lot (a create takes 40 s on one and 4 min on another), so a fixed guess would either poll
 * too often or notice completion late.
 */
const learnedDurations = new Map<string, number>();

function expectedFor(opts: InstanceWaitOptions): number | undefined {
  return opts.expectedMs ?? (opts.kind ? learnedDurations.get(opts.kind) : undefined);
}

function learn(kind: string | undefined, ms: number): void {
  if (!kind) return;
  const previous = learnedDurations.get(kind);
  learnedDurations.set(kind, previous === undefined ? ms : previous * 0.7 + ms * 0.3);
}

/**
 * Polls the instance until it is settled: no operation running (`operation_flag` 0) and, if given, `until`
 * holds. A failure status (`Error`) ends the wait at once with WaitFailedError; so does the instance
 * disappearing. The deadline error names the last status seen.
 */
export async function waitForInstanceSettled(client: VmHostClient, uuid: string, opts: InstanceWaitOptions): Promise<InstanceDetail> {
  const started = Date.now();
  const detail = await pollUntil<InstanceDetail>({
    what: opts.what,
    deadline: opts.deadline,
    expectedMs: expectedFor(opts),
    log: progressLog,
    sleep: opts.sleep,
    poll: async () => {
      const d = await client.instances.find(uuid);
      if (!d) return { failed: true, message: `instance ${uuid} no longer exists` };
      if (isFailureStatus(d.status)) return { failed: true, message: `the instance reports status ${d.status}` };
      if (d.operation_flag === 0 && (!opts.until || opts.until(d))) return { done: true, value: d };
      return { done: false, status: d.operation_flag !== 0 ? `${d.status} (operation running)` : d.status };
    },
  });
  learn(opts.kind, Date.now() - started);
  return detail;
}

/** Polls until the instance is gone (404). Used after delete, so a destroy only returns once billing stopped. */
export async function waitForInstanceGone(
  client: VmHostClient,
  uuid: string,
  opts: { what: string; deadline: Deadline; sleep?: (ms: number) => Promise<void> },
): Promise<void> {
  await pollUntil<void>({
    what: opts.what,
    deadline: opts.deadline,
    log: progressLog,
    sleep: opts.sleep,
    poll: async () => {
      const d = await client.instances.find(uuid);
      if (!d) return { done: true, value: undefined };
      if (isFailureStatus(d.status) && d.operation_flag === 0) return { failed: true, message: `the instance reports status ${d.status}` };
      return { done: false, status: d.status };
    },
  });
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs one state-changing operation on an instance safely:
 * 1. takes the process-wide lock of the instance (parallel resources on one VM queue up instead of colliding);
 * 2. waits until no operation is running on it (another tool, or the console, may have started one);
 * 3. sends the request; a "busy" answer (the API saw an operation we could not) waits and sends again;
 * 4. waits until the instance is settled in the state the operation leads to (`until`),
 * all within one deadline, and returns the API's answer and the fresh instance detail.
 */
export async function runInstanceOperation<T>(
  client: VmHostClient,
  uuid: string,
  opts: InstanceWaitOptions,
  send: () => Promise<T>,
): Promise<{ result: T; detail: InstanceDetail }> {
  const sleep = opts.sleep ?? realSleep;
  return instanceLock.run(uuid, async () => {
    for (let busyAnswers = 0; ; busyAnswers++) {
      await waitForInstanceSettled(client, uuid, { what: `${opts.what}: instance ${uuid} to be idle`, deadline: opts.deadline, sleep: opts.sleep });
      let result: T;
      try {
        result = await send();
      } catch (error) {
        if (!(error instanceof BusyError)) throw error;
        if (opts.deadline.expired()) throw new WaitTimeoutError(`${opts.what} (the API kept answering busy)`, "busy", 0);
        // The detail said idle but the API said busy: its view lags. Back off before asking again.
        await sleep(Math.min(opts.deadline.remainingMs(), Math.min(5_000, 250 * 2 ** Math.min(busyAnswers, 5))));
        continue;
      }
      const detail = await waitForInstanceSettled(client, uuid, opts);
      return { result, detail };
    }
  });
}

export { WaitFailedError, WaitTimeoutError };
