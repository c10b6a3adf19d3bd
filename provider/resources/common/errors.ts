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
