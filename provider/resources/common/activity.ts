/**
 * What the engine has this provider process doing right now (one process serves one deployment), so a create
 * that meets an object it cannot place can first let the rest of the deployment catch up.
 *
 * Why: the engine calls a resource's Check and Diff only once the program registers it, and the Node SDK
 * registers a resource only after everything it waits for is done (its `dependsOn` targets' and input
 * resources' steps: @pulumi/pulumi runtime/resource.ts prepareResource awaits their URNs, which the engine
 * answers when their step has run). So an Instance that renames its VM away, but depends on a resource still
 * being updated, is diffed after a new Instance of the old name has started its create: that create saw a VM it
 * did not know and was refused at every up (rename audit). Waiting until every other provider call of the
 * deployment has ended, plus a short pause in which the engine registers what waited for them, lets that Diff
 * arrive first. Best effort by nature: a resource waiting on another provider's resource is not seen here.
 */
import { systemClock, type Clock } from "../../clock";
import type { Deadline } from "../../wait/poll";

/** How long nothing must run before the deployment counts as caught up (the engine's turn to register dependents). */
export const QUIET_MS = 1_500;

/** How often a wait for quiet looks again. */
const LOOK_MS = 100;

/** Counts this process's running create/read/update/delete calls and when the last one ended. */
export class DeploymentActivity {
  private running = 0;
  private lastEnded = Number.NEGATIVE_INFINITY;
  /** When a wait last saw the deployment quiet: every wait that began before then has had its chance. */
  private lastQuiet = Number.NEGATIVE_INFINITY;

  constructor(readonly clock: Clock = systemClock, readonly quietMs = QUIET_MS) {}

  /**
   * Runs one provider call, counted as running until it settles. Only a call that succeeds starts the quiet pause:
   * what waited for a failed one is never registered (the engine fails its dependents), and a create refused after
   * waiting must not make the other waiting creates wait again (each would add a pause: a fleet's worth).
   */
  async track<T>(call: () => Promise<T>): Promise<T> {
    this.running++;
    let succeeded = false;
    try {
      const result = await call();
      succeeded = true;
      return result;
    } finally {
      this.running--;
      if (succeeded) this.lastEnded = this.clock.now();
    }
  }

  /**
   * Waits until no OTHER call runs and none ended within the quiet pause, or the deadline; `inside`: the caller is
   * itself a tracked call (it does not count as running meanwhile). Calls waiting here do not count as running, so
   * two such waits never hold each other up, and once one wait sees the deployment quiet, every wait that began
   * before that moment ends too: released together, not one after another behind each other's work (audit: five
   * adoptions of one up ran 1.6 s apart). Answers whether it waited at all (false: the deployment was quiet
   * already, so waiting cannot change what the caller saw).
   */
  async waitForOthers(deadline: Deadline, inside = true): Promise<boolean> {
    const began = this.clock.now();
    if (inside) this.running--;
    try {
      let waited = false;
      while (!deadline.expired()) {
        if (this.isQuiet()) {
          this.lastQuiet = this.clock.now();
          return waited;
        }
        if (this.lastQuiet >= began) return true; // seen quiet by another wait since this one began
        waited = true;
        await this.clock.sleep(Math.min(LOOK_MS, deadline.remainingMs()));
      }
      return waited;
    } finally {
      if (inside) this.running++;
    }
  }

  /**
   * Waits, from inside a tracked call (not counted as running meanwhile, so what it waits for can see the
   * deployment quiet), while `busy()` holds, or until the deadline. Answers whether it waited.
   */
  waitWhile(busy: () => boolean, deadline: Deadline): Promise<boolean> {
    return this.asWaiting(async () => {
      let waited = false;
      while (busy() && !deadline.expired()) {
        waited = true;
        await this.clock.sleep(Math.min(LOOK_MS, deadline.remainingMs()));
      }
      return waited;
    });
  }

  /**
   * Runs `fn` (part of a tracked call that only waits for others) as not running, so that the others' waits, and
   * {@link isQuiet}, do not count it.
   */
  async asWaiting<T>(fn: () => Promise<T>): Promise<T> {
    this.running--;
    try {
      return await fn();
    } finally {
      this.running++;
    }
  }

  /**
   * A Diff has answered an update in place: the engine runs that step right after (deployment_executor.go
   * handleSingleEvent: GenerateSteps, then ExecuteSerial of the new steps), so the deployment is not quiet yet.
   * Counted like a call that ended (audit: an update refused for an address that another Instance's update of the
   * same up gives up saw the deployment quiet, the giver's step not yet begun, and failed the up). Not a replace:
   * its create is often the call that waits (an adoption by a replacement), which then waited the quiet pause after
   * its own Diff, and a short timeouts.create ran out (soak).
   */
  noteDiffed(): void {
    this.lastEnded = this.clock.now();
  }

  /** True when no call runs and none ended within the quiet pause: a wait for others would end at once. */
  isQuiet(): boolean {
    return this.running === 0 && this.clock.now() - this.lastEnded >= this.quietMs;
  }

  /** Forgets when the last call ended (a new deployment served by the same process: the soak). */
  forget(): void {
    this.lastEnded = Number.NEGATIVE_INFINITY;
    this.lastQuiet = Number.NEGATIVE_INFINITY;
  }
}

/** The process-wide record, shared by every resource provider. */
export const deploymentActivity = new DeploymentActivity();
