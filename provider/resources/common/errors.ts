import { ApiError } from "../../api";

/**
 * Thrown by `create` (and `update`) once the API has created the object but it then failed to become ready
 * (failure status, deadline, error). The dynamic-provider host turns `id`, `properties` and `reasons` into
 * Pulumi's "initialization failure": the resource is RECORDED in the state with this id, so the next
 * `pulumi up` converges it or `pulumi destroy` deletes it. Throwing a plain error here would make Pulumi
 * forget a VM that keeps billing.
 */
export class ResourceInitError extends Error {
  override readonly name = "ResourceInitError";
  constructor(
    message: string,
    readonly id: string,
    readonly properties: Record<string, unknown>,
    readonly reasons: string[] = [message],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** An error whose message is meant for the user as is (bad input found only at apply time, a conflict). */
export class ProviderError extends Error {
  override readonly name = "ProviderError";
}

/** A configuration value the API or the network refuses (a rejected key, a wrong base URL); names the key to fix. */
export class ConfigurationProblem extends ProviderError {}

/** The message of an error (or the text of a thrown non-error), for the messages that report it. */
export const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** {@link errorText} without its final period, for a message whose sentence goes on after it (never "failed.. The"). */
export const errorClause = (e: unknown): string => errorText(e).replace(/\.+$/, "");

/**
 * True when the API answered with a 4xx: a definite refusal, so the write it answered did not take effect. Anything
 * else (no answer: a network error or a timeout; a 5xx; a failure of our own after the call) leaves the write's
 * outcome unknown: it may have been done on the host.
 */
export const wasRefused = (e: unknown): boolean => e instanceof ApiError && e.status !== undefined && e.status >= 400 && e.status < 500;

/**
 * Runs a create and tells `note` the id it answered, or the id a {@link ResourceInitError} records (the engine
 * stores that object in the state as surely as after a success). For the wrappers that remember, per deployment,
 * what creates made (claimed ids, adoptions, fixed-id attachments).
 */
export async function notingCreatedId<T extends { id: string }>(create: () => Promise<T>, note: (id: string) => void): Promise<T> {
  try {
    const result = await create();
    note(result.id);
    return result;
  } catch (e) {
    if (e instanceof ResourceInitError) note(e.id);
    throw e;
  }
}

/**
 * Runs an update's writes so that a failure leaves a truthful state. The engine keeps the OLD outputs after a plain
 * error (step.go UpdateStep.Apply), so a change the API did make although its answer was lost (a reset, a 5xx, a
 * wait that failed after it) stayed unknown to the state: a program then reverted to the old value planned
 * nothing, and the object kept the change (audit: a firewall rule on port 2222 with 22 declared and no diff). A
 * failure that may have changed something becomes a {@link ResourceInitError} carrying what the object is now
 * (`fresh`), or, unreadable, the old outputs without the properties the update was changing (`changing`), so the
 * next diff shows them again and the next up sends them again (these writes repeat safely). A definite refusal
 * (4xx: nothing changed) stays a plain error and keeps the old outputs.
 */
export async function recordingUncertainUpdate<O extends object, R>(
  id: string,
  olds: O,
  changing: readonly string[],
  fresh: () => Promise<O | undefined>,
  update: () => Promise<R>,
): Promise<R> {
  try {
    return await update();
  } catch (error) {
    // (a refusal the provider reworded, e.g. an address that cannot be assigned back, is a refusal too)
    const refused = wasRefused(error) || (error instanceof ProviderError && wasRefused(error.cause));
    if (refused || error instanceof ResourceInitError || error instanceof DeletedOutsidePulumiError) throw error;
    const now = await fresh().catch(() => undefined);
    const recorded = now ?? (Object.fromEntries(Object.entries(olds).filter(([k]) => !changing.includes(k))) as O);
    const message = `${errorClause(error)}. The change may have been made: what the object is now is recorded, and \`pulumi up\` again finishes it`;
    throw new ResourceInitError(message, id, recorded as Record<string, unknown>, [message], { cause: error });
  }
}

/** See {@link deletedOutsidePulumi}: nothing was changed, so no update records it as maybe changed. */
export class DeletedOutsidePulumiError extends ProviderError {}

/**
 * An update of an object that no longer exists: deleted outside Pulumi (the panel, another tool). Every `up` would
 * fail the same way, so the advice is the refresh that drops it from the state (the next `up` then creates it as
 * declared), not "run up again" (audit).
 */
export function deletedOutsidePulumi(what: string, cause?: unknown, note = ""): DeletedOutsidePulumiError {
  return new DeletedOutsidePulumiError(
    `${what} no longer exists (deleted outside Pulumi, e.g. in the panel): run \`pulumi refresh\` (or \`pulumi up --refresh\`), ` +
      `which drops it from the state; the next \`pulumi up\` then creates it as declared.${note} Nothing was changed.`,
    cause === undefined ? undefined : { cause },
  );
}
