/**
 * Gives each resource operation (create, update, delete) one deadline, from the moment it enters the provider:
 * the one its waits use (context.ts `resourceDeadline`), and the one that bounds its API calls (api/deadline.ts),
 * so a 429 waits as long as the resource's `timeouts` allow instead of failing after a few retries.
 */
import type * as pulumi from "@pulumi/pulumi";
import { withRequestDeadline } from "../api/deadline";
import { resourceDeadline, withOperationDeadline, type ResolvedTimeouts } from "../context";
import type { Deadline } from "./poll";

function deadlineOf(props: unknown, kind: keyof ResolvedTimeouts): Deadline | undefined {
  try {
    return resourceDeadline((props as { timeouts?: { create?: string; update?: string; delete?: string } } | undefined)?.timeouts, kind);
  } catch {
    return undefined; // invalid timeouts: the resource itself reports them
  }
}

function scoped<T>(deadline: Deadline | undefined, fn: () => Promise<T>): Promise<T> {
  return deadline === undefined ? fn() : withOperationDeadline(deadline, () => withRequestDeadline(deadline.at, fn));
}

/** Wraps create, update and delete of a provider so each runs under one deadline (see the module comment). */
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
