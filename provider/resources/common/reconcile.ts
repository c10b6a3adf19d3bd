/**
 * Writes that must happen exactly once (create a VM, clone one, take a snapshot, add a firewall rule), made
 * safe against ambiguous failures, in one place for every resource.
 *
 * A `once` write whose connection was reset, timed out, or answered 5xx after sending may or may not have
 * taken effect (the client reports `AmbiguousRequestError`). Sending it again could make two VMs; giving up
 * without an id would leave a VM that bills and that Pulumi does not know. So, before sending, the objects
 * that could be mistaken for the new one are listed; after an ambiguous failure they are listed again (with
 * reads that survive transient failures until the resource's deadline) and:
 * - exactly one new object: it is ours, adopt it;
 * - none, twice a moment apart: the write did not take effect, send it again (bounded);
 * - several: someone else is creating too; the user decides (the error names them);
 * - the lists cannot be read before the deadline: `UnconfirmedWriteError`, carrying what was listed before the
 *   send. The resource then records the object as unconfirmed (common/unconfirmed.ts), so the state holds what
 *   may exist: refresh finds it, destroy deletes it, the next `up` deletes it (if it exists) and creates anew.
 *   Each resource's create guard also refuses to create beside an object of the same identity it does not
 *   know, so no path silently makes a second one.
 */
import { AmbiguousRequestError, QueuedPastDeadlineError, systemClock } from "../../api";
import { progressLog } from "../../context";
import { isTransientPollError, retryUntilDeadline, type Deadline } from "../../wait/poll";
import { errorClause, errorText, ProviderError } from "./errors";
import { KeyedMutex } from "./lock";
import { claimedByStack, noteClaimed } from "./replacements";

/** Thrown when a reconciliation read kept failing until the deadline: whether the object exists is unknown. */
export class ReconcileUnknownError extends ProviderError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * Runs a read, retrying transient failures (5xx, network, timeouts, 429) with backoff until the deadline.
 * Reconciliation must not give up on one bad answer: giving up means an object that may exist is not recorded.
 */
export async function readPersistently<T>(
  what: string,
  deadline: Deadline,
  read: () => Promise<T>,
  sleep: (ms: number) => Promise<void> = systemClock.sleep,
): Promise<T> {
  return retryUntilDeadline(
    {
      deadline,
      sleep,
      retryable: (error) => isTransientPollError(error) || error instanceof AmbiguousRequestError,
      atDeadline: (error) => new ReconcileUnknownError(`could not read ${what} before the deadline: ${errorText(error)}`, { cause: error }),
      onRetry: (error, n) => {
        if (n % 3 === 2) progressLog(`reading ${what} failed (${errorText(error)}); retrying until the deadline`);
      },
    },
    read,
  );
}

/**
 * The outcome of an ambiguous write could not be checked before the deadline: the object may exist. Carries
 * what the resource needs to record it as unconfirmed and to find it later (common/unconfirmed.ts).
 */
export class UnconfirmedWriteError extends ProviderError {
  constructor(
    message: string,
    /** What was written (`instance web-1 in location 1`). */
    readonly what: string,
    /** When the write was first sent. */
    readonly sentAt: Date,
    /** The candidates listed before the write was sent: none of them is the new object. */
    readonly existing: readonly string[],
    /** Where a user finds the object. */
    readonly howToFind: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /**
   * Outputs the resource adds to the record of the unconfirmed create (unconfirmed.ts): an Instance replacement
   * names the VM it replaces (`replacing`), which later deployments learn only from the state.
   */
  readonly recorded: Record<string, unknown> = {};
}

/** One write that must take effect exactly once. */
export interface ExactlyOnceWrite {
  /** What is written, for messages: `instance web-1 in location 1`. */
  what: string;
  deadline: Deadline;
  /**
   * The ids of the objects a new one could be mistaken for (instances with the hostname in the location,
   * snapshots of the VM with the name, rules matching the inputs). Listed before sending and after an
   * ambiguous failure; a transient failure is retried until the deadline.
   */
  candidates: () => Promise<string[]>;
  /**
   * Called with the candidates listed before sending: throws to refuse the write (an object of the same
   * identity that this stack does not know, e.g. left by an interrupted `up`, must not get a twin).
   */
  refuseBeside?: (existing: string[]) => void;
  /**
   * Called with the candidates listed before sending, before `refuseBeside`: the id of one to take instead of
   * writing (an object that is the declared one in every respect, so taking it loses nothing), or undefined.
   */
  takeOver?: (existing: string[]) => string | undefined;
  /**
   * Whether an object that appeared since the send can be what this write made (an Instance: the tier, sizes
   * and user it asked for). One that cannot is someone else's (another stack's VM of the same hostname, one
   * renamed into it) and is never taken. Default: any.
   */
  madeByThisWrite?: (id: string) => Promise<boolean>;
  /** Sends the write; resolves to the new object's id, or undefined when the API answers none. */
  send: () => Promise<string | undefined>;
  /** How many times the write may be sent in all, each resend only after a look found nothing (default 1). */
  maxSends?: number;
  /**
   * The identity no two objects of ours share (`Instance:1/web-1`). Writes of one identity in this process
   * run one after another, listing included: two resources of one stack declaring the same hostname would
   * otherwise both list before either sends, and both create. The second now sees the first's object and
   * is refused by `refuseBeside`.
   */
  identity?: string;
  /** Where a user finds the objects if the outcome stays unknown (`getInstances({ search: "web-1" })`). */
  howToFind: string;
  /** Pause between the two looks after an ambiguous failure (a request may still be in progress). */
  secondLookAfterMs?: number;
  /**
   * The client's request bound (vmhost:requestTimeout). A request that failed after hanging for a while (no answer
   * in time, a gateway's 504, a connection dropped late) may be held by a gateway or a busy backend and take
   * effect later still: the second look then waits as long as the failed attempt was in flight, up to this bound,
   * before a resend is allowed (simulator audit: a create held 3.5 s with a 1 s bound landed after the resend,
   * and two VMs ran). Absent: `secondLookAfterMs` only.
   */
  requestBoundMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Sends `write` so that exactly one object results, and returns its id (see the module comment).
 * Errors: ProviderError naming the objects when several appeared or when the outcome stays unknown.
 */
export async function writeExactlyOnce(write: ExactlyOnceWrite): Promise<string> {
  const id =
    write.identity === undefined
      ? await writeExactlyOnceUnlocked(write)
      : await identityLock.run(write.identity, () => writeExactlyOnceUnlocked(write), {
          deadline: write.deadline, what: `${write.what}: another create of the same name (from this deployment)`,
        });
  // held by this resource from now on, though its create still waits (a snapshot until Ready): a second resource
  // of the same identity is then refused as a clash inside the stack, never told to adopt it
  noteClaimed(id);
  return id;
}

/** The writes sent again after an ambiguous failure, by the id of what they made: how to look for a late twin. */
const resentWrites = new Map<string, () => Promise<string[]>>();

/**
 * For an object whose write was sent again after an ambiguous failure (undefined for any other): the objects that
 * appeared since the first send and could be what a write made, other than this one. Called once the object is ready
 * (an Instance: settled, tens of seconds later), it catches an earlier request that the host held past the looks
 * and carried out after the resend (simulator audit: two VMs ran, one unknown to the state). Asked once per id.
 */
export async function twinsLandedAfterResend(id: string): Promise<string[] | undefined> {
  const look = resentWrites.get(id.toLowerCase());
  resentWrites.delete(id.toLowerCase());
  return look?.();
}

/**
 * True for a `once` write's failure that is an answer of the host's own with a 2xx status (a body without the new
 * object's id, `data: null`, or unreadable): the host took the request (it may queue the work and list the object
 * only later), or refused it in a 200. Unlike a reset or a 5xx, it was certainly received, so sending it again could
 * make a second object (real-api-facts audit: a create answered `200 {data: null}` whose VM was listed 2.5 s later
 * was sent again, and two VMs ran).
 */
export function answeredWith2xx(error: unknown): error is AmbiguousRequestError {
  return error instanceof AmbiguousRequestError && error.status !== undefined && error.status >= 200 && error.status < 300;
}

/**
 * The pauses before each look for the object of a write the host answered 2xx without its id (the first look at once):
 * about 7 s in all, the time a host's queued create takes to list the object. Not found by then, it is recorded as
 * unconfirmed, never sent again: a later refresh or up finds it, or learns it was not made.
 */
export function acceptedLookPauses(firstPauseMs = 1_000): number[] {
  return [0, firstPauseMs, 2 * firstPauseMs, 4 * firstPauseMs];
}

/** Writes of one identity in this process, one after another (see ExactlyOnceWrite.identity). */
const identityLock = new KeyedMutex();

async function writeExactlyOnceUnlocked(write: ExactlyOnceWrite): Promise<string> {
  const sleep = write.sleep ?? systemClock.sleep;
  const maxSends = write.maxSends ?? 1;
  const startedAt = new Date();
  // Each id once: a paged list read while another client adds or removes objects shifts rows between pages, and a row
  // read twice (the end of one page, then the top of the next) was counted as two new objects after an ambiguous
  // failure: refused as "2 new ones appeared" with no id, so the one it made was left out of the state (multistack audit).
  const list = async () => [...new Set(await readPersistently(`the existing ${write.what}`, write.deadline, write.candidates, sleep))];
  const existing = await list();
  const taken = write.takeOver?.(existing);
  if (taken !== undefined) return taken;
  write.refuseBeside?.(existing);
  const before = new Set(existing);
  const unknownOutcome = (cause: unknown): ProviderError =>
    new UnconfirmedWriteError(
      `the request for ${write.what} failed ambiguously (sent at ${startedAt.toISOString()}) and whether it took effect could not be ` +
        `checked: ${errorClause(cause)}. It may exist: look for it with ${write.howToFind}.`,
      write.what, startedAt, existing, write.howToFind,
      { cause },
    );
  // (held by another resource of this stack: not what this write made, whatever the listing says: replacements.ts)
  let unlike: string[] = [];
  const appeared = async (): Promise<string[]> => {
    const fresh = (await list()).filter((id) => !before.has(id) && !claimedByStack.has(id.toLowerCase()));
    if (!write.madeByThisWrite || fresh.length === 0) return fresh;
    const ours = await Promise.all(fresh.map((id) => write.madeByThisWrite!(id)));
    unlike = fresh.filter((_, i) => !ours[i]);
    return fresh.filter((_, i) => ours[i]);
  };
  // An object that appeared but differs from the request is not taken; nor is the write sent again while it stands
  // there (had the comparison misjudged our own object, a resend would make a second one): the user decides.
  const refuseUnlike = (cause: unknown): ProviderError =>
    new ProviderError(
      `the request for ${write.what} failed ambiguously, and ${unlike.join(", ")} appeared meanwhile but differs from what was asked, so it ` +
        `was neither taken nor the request sent again. If it is the one (changed since), manage it with adoptId; otherwise delete it or ` +
        `choose another name, and run pulumi up again (${write.howToFind}).`,
      { cause },
    );

  // After a resend, an earlier request the host still held can land later still (longer than requestBoundMs): the
  // resource asks once its object is ready whether a twin appeared (twinsLandedAfterResend).
  let resent = false;
  const noteResent = (id: string): string => {
    if (resent) resentWrites.set(id.toLowerCase(), async () => (await appeared()).filter((other) => other.toLowerCase() !== id.toLowerCase()));
    return id;
  };
  // The host answered 2xx without the new object's id (`cause`: that answer as an error, when it did not parse): it is
  // looked for a few times (a host may queue the work and list the object late) and never sent again. Not found, it is
  // recorded as unconfirmed: whether the host made it (late) or refused it in a 2xx is unknown here.
  const acceptedWithoutId = async (status: number | undefined, said: string | undefined, cause: unknown): Promise<string> => {
    const pauses = acceptedLookPauses(write.secondLookAfterMs ?? 1_000);
    let found: string[] = [];
    let waitedMs = 0;
    try {
      for (const pause of pauses) {
        if (pause > 0) {
          if (write.deadline.expired()) break;
          progressLog(`${write.what}: the API answered HTTP ${status ?? "2xx"} without its id and it is not listed yet; looking again in ${Math.round(pause / 1000)} s (it is not sent again)`);
          const ms = Math.min(pause, write.deadline.remainingMs());
          await sleep(ms);
          waitedMs += ms;
        }
        found = await appeared();
        if (found.length > 0 || unlike.length > 0) break;
      }
    } catch (readError) {
      throw readError instanceof ReconcileUnknownError ? unknownOutcome(readError) : readError;
    }
    if (found.length === 1) {
      progressLog(`${write.what} was created (${found[0]}), though the API's answer did not name it: taking it`);
      return noteResent(found[0]!);
    }
    if (found.length > 1)
      throw new ProviderError(
        `the API accepted ${write.what} without answering its id, and ${found.length} new matching ones are listed (${found.join(", ")}); ` +
          `set adoptId to the one to keep and delete the others (${write.howToFind})`,
        { cause },
      );
    if (unlike.length > 0) throw refuseUnlike(cause);
    throw new UnconfirmedWriteError(
      `the API answered HTTP ${status ?? "2xx"} to the request for ${write.what} (sent at ${startedAt.toISOString()}) without the new ` +
        `object's id` + (cause === undefined ? (said ? ` (it said: "${said}")` : "") : `: ${errorClause(cause instanceof Error && cause.cause instanceof Error ? cause.cause : cause)}`) +
        `. None is listed in the ${Math.round(waitedMs / 1000)} s since: the host may still be making it (a queued ` +
        "create), or it refused the request in a 2xx answer. It was not sent again (that could make a second one). " +
        `Look for it with ${write.howToFind}.`,
      write.what, startedAt, existing, write.howToFind,
      cause === undefined ? undefined : { cause },
    );
  };

  for (let sends = 1; ; sends++) {
    let answered: string | undefined;
    const attemptStartedMs = Date.now();
    // (the listing above can end past the deadline: a create sent then would land after its resource gave up on it)
    if (sends === 1 && write.deadline.expired()) {
      throw new ProviderError(
        `the request for ${write.what} was never sent (nothing was made): the deadline passed while the existing ones were read. ` +
          "Raise the resource's timeouts, or change fewer resources at once (pulumi up --parallel), then run pulumi up again.",
      );
    }
    try {
      answered = await write.send();
    } catch (error) {
      if (resent && error instanceof QueuedPastDeadlineError) {
        // The resend never left this provider, but the first send's outcome is still open (it was looked for, not
        // found): its own "changed nothing" would hide that it may yet land (fleet audit).
        throw new ProviderError(
          `the request for ${write.what} failed ambiguously and was not found since; sending it again did not happen: ${errorClause(error)}. ` +
            "Should the first request still take effect late, the next pulumi up names the object it made and makes no second one.",
          { cause: error },
        );
      }
      if (answeredWith2xx(error)) return acceptedWithoutId(error.status, error.apiMessage, error);
      if (!(error instanceof AmbiguousRequestError)) throw error;
      progressLog(`the request for ${write.what} failed ambiguously (${errorText(error)}); looking for it before anything is retried`);
      // A request that hung before failing may still be queued about as long again (see requestBoundMs).
      const inFlightMs = Math.min(Date.now() - attemptStartedMs, write.requestBoundMs ?? 0);
      const secondLookAfterMs = Math.max(write.secondLookAfterMs ?? 1_000, inFlightMs);
      let found: string[] = [];
      try {
        for (let look = 0; look < 2 && found.length === 0; look++) {
          if (look > 0) {
            if (inFlightMs > (write.secondLookAfterMs ?? 1_000)) progressLog(`${write.what} not listed yet; the request hung ${Math.round(inFlightMs / 1000)} s before failing, so it may still land: looking again in ${Math.round(secondLookAfterMs / 1000)} s before sending anything`);
            await sleep(Math.min(secondLookAfterMs, write.deadline.remainingMs()));
          }
          found = await appeared();
        }
      } catch (readError) {
        if (readError instanceof ReconcileUnknownError) throw unknownOutcome(readError);
        throw readError;
      }
      if (found.length === 1) {
        progressLog(`${write.what} was created (${found[0]}): taking it instead of creating another`);
        // (after a resend, an earlier request still held can land later too: checked like an answered resend)
        return noteResent(found[0]!);
      }
      if (found.length > 1) {
        throw new ProviderError(
          `the request for ${write.what} failed ambiguously and ${found.length} new ones appeared (${found.join(", ")}); ` +
            `set adoptId to the one to keep and delete the others`,
          { cause: error },
        );
      }
      if (unlike.length > 0) throw refuseUnlike(error);
      if (sends >= maxSends || write.deadline.expired()) {
        // (the client's own text ends "check whether it happened before retrying": this did check, so its cause is named)
        throw new ProviderError(
          `the request for ${write.what} failed ${sends} time(s) without creating it: ${errorClause(error.cause instanceof Error ? error.cause : error)}. ` +
            "It was looked for since and is not there: nothing was made, and it is not sent again. Run `pulumi up` again " +
            "(should the request still take effect late, that up names the object it made and makes no second one).",
          { cause: error },
        );
      }
      progressLog(`${write.what} did not appear: the request did not take effect; sending it again`);
      resent = true;
      continue;
    }
    if (answered !== undefined) return noteResent(answered);
    // Some hosts answer without the id: the one that appeared is ours.
    return acceptedWithoutId(undefined, undefined, undefined);
  }
}
