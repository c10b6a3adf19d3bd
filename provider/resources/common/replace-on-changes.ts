import type * as pulumi from "@pulumi/pulumi";
import { plansNoStep } from "./asked-diffs";
import { isUnknown } from "./check";
import { ProviderError } from "./errors";
import { replacedByThisDeployment, replacementsInProgress } from "./replacements";

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
 *
 * Like the engine, the option only acts on what the resource's own diff found changed ({@link ResourceDiff}
 * `changedKeys`): each resource compares in its own terms (a reordered `sshKeys` is the same VM, a firewall
 * source `0.0.0.0/0` is no source), and a raw comparison of program and state here would replace on every
 * run for values the resource itself calls equal.
 */
export const REPLACE_ON_CHANGES_KEY = "__replaceOnChanges";

/**
 * A resource's diff with the top-level inputs it found changed, compared the way that resource compares them
 * (its own normalisation, defaults and "unset = not managed" rules; a value unknown in preview counts as
 * changed). It is the counterpart of the gRPC DiffResponse's `changedKeys`, the keys the real engine applies
 * `replaceOnChanges` to, which the dynamic-provider host cannot send; `withReplaceOnChanges` consumes it and
 * hands the engine the plain {@link pulumi.dynamic.DiffResult}.
 */
export interface ResourceDiff extends pulumi.dynamic.DiffResult {
  /** The changed input properties (top-level names, each once), replacing ones included. */
  readonly changedKeys: readonly string[];
  /**
   * Replaces that stand for an adopted object while their value is still unknown (see {@link withReplaceOnChanges}):
   * the object must go before what it depends on is replaced delete-before-replace. Only for a resource whose delete
   * never destroys what it adopted (a PublicIp takes the address off): the engine deletes the old resource on this answer.
   */
  readonly replacesWhileUnknown?: readonly string[];
}

/**
 * The changed keys a diff result reports; none when it reports none (a diff not built as a
 * {@link ResourceDiff}, e.g. the unconfirmed-create placeholder's, which replaces anyway): the option then
 * adds nothing, as the engine adds nothing for a provider that reports no changed keys.
 */
export function changedKeysOf(result: pulumi.dynamic.DiffResult): readonly string[] {
  const keys = (result as Partial<ResourceDiff>).changedKeys;
  return Array.isArray(keys) ? keys.filter((k): k is string => typeof k === "string") : [];
}

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
 * `"deleteOptions.removePublicIp"`, or `"*"` for any input) whose top-level property the resource's diff
 * found changed (`changedKeys`) and whose value in the program differs from the state's. A property the
 * program leaves unset is not compared (as the diffs do for read-back values).
 *
 * Both conditions, because each alone is wrong: the raw comparison ignores the resource's normalisation
 * (a reordered `sshKeys` would replace a VM), and `changedKeys` names only top-level properties (for
 * `deleteOptions.removePublicIp`, a change of `removeBlockStorage` alone must not replace). A property the
 * diff finds changed although the program's value equals the state's (the address `publicIp: true` asks for
 * is gone) is put right in place, never replaced by the option.
 */
export function replacesRequestedByOption(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
  changedKeys: readonly string[],
): string[] {
  const paths = news[REPLACE_ON_CHANGES_KEY];
  if (!Array.isArray(paths)) return [];
  const changed = new Set(changedKeys);
  const keys = new Set<string>();
  for (const path of paths) {
    if (typeof path !== "string") continue;
    const candidates = path === "*" ? Object.keys(news).filter((k) => !k.startsWith("__")) : [path];
    for (const p of candidates) {
      const top = p.split(".")[0]!;
      if (!changed.has(top)) continue;
      const value = valueAt(news, p);
      if (value !== undefined && !same(valueAt(olds, p), value)) keys.add(top);
    }
  }
  return [...keys];
}

/**
 * `check` for a resource option the SDK hands over as the input `key` (a list of property paths: replaceOnChanges,
 * ignoreChanges): the resource's own check sees the inputs without it; the paths, validated, are kept beside the
 * checked inputs, so diff and update find them (the engine stores the checked inputs).
 */
export function keepingOptionPaths(
  check: NonNullable<pulumi.dynamic.ResourceProvider["check"]>, key: string, option: string, examplePath: string,
): NonNullable<pulumi.dynamic.ResourceProvider["check"]> {
  return async (olds, news) => {
    const { [key]: paths, ...rest } = (news ?? {}) as Record<string, unknown>;
    const result = await check(olds, rest);
    if (paths === undefined || paths === null) return result;
    if (!Array.isArray(paths) || !paths.every((p) => typeof p === "string"))
      return { failures: [...(result.failures ?? []), { property: option, reason: `${option} must be a list of property paths, e.g. ["${examplePath}"]` }] };
    if (!result.inputs || paths.length === 0) return result;
    return { ...result, inputs: { ...result.inputs, [key]: paths } };
  };
}

/**
 * True when object `id` is adopted by the program (`adoptId` names it) or was by the state (and the program still
 * adopts): a replacement would adopt it again, or delete an object the stack only ever adopted. Not when `adoptId`
 * names ANOTHER object than the state's (soak: a snapshot in Error recorded adoptId of the one an interrupted create
 * made, as the refusal advised; it was never replaced, stuck at every up, and its twin stayed in no state): then
 * the replacement adopts that other object and the engine deletes this one, as for any replace.
 */
export function isAdoptedIn(olds: Record<string, unknown> | undefined, news: Record<string, unknown> | undefined, id: string): boolean {
  const names = (v: unknown): boolean => typeof v === "string" && v.toLowerCase() === id.toLowerCase();
  return typeof news?.adoptId === "string" && (names(news.adoptId) || names(olds?.adoptId));
}

/** The `keys` whose value in `news` is known (not, or not partly, a preview placeholder). */
export function knownKeys(news: Record<string, unknown>, keys: readonly string[]): string[] {
  return keys.filter((k) => !isUnknown(news[k]));
}

/**
 * Applies the `replaceOnChanges` resource option (see {@link REPLACE_ON_CHANGES_KEY}): `check` keeps the
 * paths the SDK passed (validated: a list of property paths) beside the resource's own checked inputs, and
 * `diff` adds the changed ones to `replaces`. As in the engine (step_generator.go applyReplaceOnChanges does
 * nothing unless the diff is DiffSome), only a diff with `changes: true` gets replaces, and only for
 * properties in its `changedKeys` ({@link replacesRequestedByOption}); `changedKeys` itself is dropped from
 * the result, which is the plain DiffResult the host forwards. An object adopted with `adoptId` is never
 * replaced this way: its "replacement" would adopt the same object and the engine would then delete it.
 *
 * `replacementIdentity`, for a resource whose create refuses a twin of an object it does not know (a VM of the
 * same hostname, a snapshot of the same name): the identity the replacement will be created under. Whenever the
 * final diff replaces (for the resource's own reasons or this option's), the old object is noted under it in
 * {@link replacementsInProgress}, so the create accepts the old object standing beside the new one until the
 * engine deletes it. Here, not in the resource's diff, because only here are all the replaces known.
 */
export function withReplaceOnChanges<P extends pulumi.dynamic.ResourceProvider>(
  resource: string, provider: P, replacementIdentity?: (news: Record<string, unknown>) => string | undefined,
): P {
  const wrapped: pulumi.dynamic.ResourceProvider = { ...provider };
  const check = provider.check?.bind(provider);
  if (check) wrapped.check = keepingOptionPaths(check, REPLACE_ON_CHANGES_KEY, "replaceOnChanges", "hostname");
  const diff = provider.diff?.bind(provider);
  if (diff) {
    const noteReplacement = (id: string, news: unknown, result: pulumi.dynamic.DiffResult): pulumi.dynamic.DiffResult => {
      const key = result.replaces?.length ? replacementIdentity?.((news ?? {}) as Record<string, unknown>) : undefined;
      if (key) {
        replacementsInProgress.note(key, id);
        replacedByThisDeployment.note(key, id);
      }
      return result;
    };
    wrapped.diff = async (id, olds, news) => {
      const full = await diff(id, olds, news);
      const changedKeys = changedKeysOf(full);
      const { changedKeys: _consumed, replacesWhileUnknown = [], ...result } = full as Partial<ResourceDiff>;
      if (result.changes !== true) return result;
      const o = olds as Record<string, unknown>;
      const n = news as Record<string, unknown>;
      const adopted = isAdoptedIn(o, n, id);
      // An adopted object is never replaced (every resource, whatever its own diff decided): the replacement's
      // create would adopt the same object again, and the engine then deletes the "old" one, which is it. E.g. a
      // FirewallRule adopted with a description the program leaves out (the API cannot blank it) was replaced
      // by the next up and so deleted, the state keeping an id that no longer existed (audit).
      // (at preview, a value still unknown may turn out the object's own: not refused, nor a replace, until known)
      // Except what the resource says stands while unknown (replacesWhileUnknown): the engine also asks Diff, with
      // the inputs that come from a resource replaced delete-before-replace made unknown, whether a dependent must
      // go first (pulumi/pulumi pkg/resource/deploy/step_generator.go calculateDependentReplacements), also for one
      // the program removed. "No" there made the engine delete an adopted PublicIp's VM first, whose delete
      // released the user's address with it (audit); "replace" deletes the PublicIp first, which takes it off.
      const certain = adopted ? knownKeys(n, result.replaces ?? []) : result.replaces ?? [];
      // A Diff that plans no step (a refresh's, or the engine's question with the last up's inputs: common/asked-diffs.ts)
      // neither refuses an adopted object's replace nor asks for it: a failing refresh Diff fails `pulumi refresh` and keeps
      // the drift out of the state (audit); the Diff of the next preview or up refuses it.
      const lenient = adopted && plansNoStep(id);
      const standing = adopted
        ? (result.replaces ?? []).filter((k) => replacesWhileUnknown.includes(k) || (certain.includes(k) && !lenient))
        : certain;
      if (adopted && standing.length < (result.replaces ?? []).length) result.replaces = standing;
      if (adopted && certain.length > 0 && !lenient)
        throw new ProviderError(
          `${resource} ${id} was adopted (adoptId) and ${certain.join(", ")} can only change with a new one; an adopted object is ` +
            "never replaced by Pulumi (the replacement would adopt the same one, then delete it). Declare the value it has, or remove " +
            "adoptId to replace it deliberately. Nothing was changed.",
        );
      const requested = replacesRequestedByOption((olds ?? {}) as Record<string, unknown>, (news ?? {}) as Record<string, unknown>, changedKeys);
      const added = lenient ? [] : (adopted ? knownKeys(n, requested) : requested).filter((k) => !(result.replaces ?? []).includes(k));
      if (added.length === 0) return noteReplacement(id, news, result);
      if (adopted)
        throw new ProviderError(
          `${resource} ${id} was adopted (adoptId) and replaceOnChanges asks to replace it for ${added.join(", ")}; an adopted object is ` +
            "never replaced by Pulumi (the replacement would adopt the same one, then delete it). Remove adoptId to replace it deliberately, " +
            "or remove those properties from replaceOnChanges.",
        );
      return noteReplacement(id, news, { ...result, replaces: [...(result.replaces ?? []), ...added] });
    };
  }
  return wrapped as P;
}
