import type * as pulumi from "@pulumi/pulumi";
import { ProviderError } from "./errors";

/**
 * The input under which the SDK's resource classes hand the provider their `replaceOnChanges` resource option.
 *
 * Why the provider applies the option itself: the real engine applies `replaceOnChanges` only to the keys a
 * provider's Diff reports as changed (pulumi/pulumi pkg/resource/deploy/step_generator.go,
 * applyReplaceOnChanges: it converts ChangedKeys / DetailedDiff entries to replaces). The Node
 * dynamic-provider host forwards only `changes`, `replaces` and `deleteBeforeReplace` of a dynamic
 * provider's diff (@pulumi/pulumi cmd/dynamic-provider/index.ts, diffRPC), so with any dynamic provider the
 * option silently does nothing. Our resource classes see their options, so they pass the paths along as this
 * input, and the diff puts the changed ones in `replaces`, which the engine honours.
 */
export const REPLACE_ON_CHANGES_KEY = "__replaceOnChanges";

function valueAt(bag: Record<string, unknown>, path: string): unknown {
  let value: unknown = bag;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * The top-level properties that `replaceOnChanges` turns into replaces: each listed path (`"hostname"`,
 * `"deleteOptions.removePublicIp"`, or `"*"` for any input) whose value in the program differs from the state.
 * A property the program leaves unset is not compared (as the diffs do for read-back values).
 */
export function replacesRequestedByOption(olds: Record<string, unknown>, news: Record<string, unknown>): string[] {
  const paths = news[REPLACE_ON_CHANGES_KEY];
  if (!Array.isArray(paths)) return [];
  const keys = new Set<string>();
  for (const path of paths) {
    if (typeof path !== "string") continue;
    const candidates = path === "*" ? Object.keys(news).filter((k) => !k.startsWith("__")) : [path];
    for (const p of candidates) {
      const value = valueAt(news, p);
      if (value !== undefined && !same(valueAt(olds, p), value)) keys.add(p.split(".")[0]!);
    }
  }
  return [...keys];
}

/**
 * Applies the `replaceOnChanges` resource option (see {@link REPLACE_ON_CHANGES_KEY}): `check` keeps the
 * paths the SDK passed (validated: a list of property paths) beside the resource's own checked inputs, and
 * `diff` adds the changed ones to `replaces`. An object adopted with `adoptId` is never replaced this way:
 * its "replacement" would adopt the same object and the engine would then delete it.
 */
export function withReplaceOnChanges<P extends pulumi.dynamic.ResourceProvider>(resource: string, provider: P): P {
  const wrapped: pulumi.dynamic.ResourceProvider = { ...provider };
  const check = provider.check?.bind(provider);
  if (check) {
    wrapped.check = async (olds, news) => {
      const { [REPLACE_ON_CHANGES_KEY]: paths, ...rest } = (news ?? {}) as Record<string, unknown>;
      const result = await check(olds, rest);
      if (paths === undefined || paths === null) return result;
      if (!Array.isArray(paths) || !paths.every((p) => typeof p === "string"))
        return { failures: [...(result.failures ?? []), { property: "replaceOnChanges", reason: "replaceOnChanges must be a list of property paths, e.g. [\"hostname\"]" }] };
      if (!result.inputs || paths.length === 0) return result;
      return { ...result, inputs: { ...result.inputs, [REPLACE_ON_CHANGES_KEY]: paths } };
    };
  }
  const diff = provider.diff?.bind(provider);
  if (diff) {
    wrapped.diff = async (id, olds, news) => {
      const result = await diff(id, olds, news);
      const requested = replacesRequestedByOption((olds ?? {}) as Record<string, unknown>, (news ?? {}) as Record<string, unknown>);
      const added = requested.filter((k) => !(result.replaces ?? []).includes(k));
      if (added.length === 0) return result;
      const o = olds as Record<string, unknown>;
      const n = news as Record<string, unknown>;
      if (typeof o?.adoptId === "string" && typeof n?.adoptId === "string")
        throw new ProviderError(
          `${resource} ${id} was adopted (adoptId) and replaceOnChanges asks to replace it for ${added.join(", ")}; an adopted object is ` +
            "never replaced by Pulumi (the replacement would adopt the same one, then delete it). Remove adoptId to replace it deliberately, " +
            "or remove those properties from replaceOnChanges.",
        );
      return { ...result, changes: true, replaces: [...(result.replaces ?? []), ...added] };
    };
  }
  return wrapped as P;
}
