/**
 * Bounds every API call of a resource operation by that operation's deadline (api/deadline.ts): a 429 then waits
 * as long as the resource's `timeouts` allow (create/update/delete), instead of failing after a few retries.
 * The deadline is the same one the resource's waits use (context.ts `resourceTimeouts`: input, config, default).
 */
import type * as pulumi from "@pulumi/pulumi";
import { withRequestDeadline } from "../api/deadline";
import { systemClock } from "../clock";
import { resourceTimeouts, type ResolvedTimeouts } from "../context";

function deadlineOf(props: unknown, kind: keyof ResolvedTimeouts): number | undefined {
  try {
    const timeouts = (props as { timeouts?: { create?: string; update?: string; delete?: string } } | undefined)?.timeouts;
    return systemClock.now() + resourceTimeouts(timeouts)[kind];
  } catch {
    return undefined; // invalid timeouts: the resource itself reports them
  }
}

function scoped<T>(atMs: number | undefined, fn: () => Promise<T>): Promise<T> {
  return atMs === undefined ? fn() : withRequestDeadline(atMs, fn);
}

/** Wraps create, update and delete of a provider so their API calls carry the resource's deadline. */
export function withRequestDeadlines<P extends pulumi.dynamic.ResourceProvider>(provider: P): P {
  const wrapped: pulumi.dynamic.ResourceProvider = {
    ...provider,
    create: (inputs) => scoped(deadlineOf(inputs, "create"), () => provider.create(inputs)),
  };
  if (provider.update) {
    const update = provider.update.bind(provider);
    wrapped.update = (id, olds, news) => scoped(deadlineOf(news, "update"), () => update(id, olds, news));
  }
  if (provider.delete) {
    const remove = provider.delete.bind(provider);
    wrapped.delete = (id, props) => scoped(deadlineOf(props, "delete"), () => remove(id, props));
  }
  return wrapped as P;
}
