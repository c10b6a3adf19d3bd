/**
 * The `ignoreChanges` resource option, applied by the provider as well as by the engine.
 *
 * The engine applies ignoreChanges by copying the OLD INPUTS into the program's inputs for the listed paths
 * before Check (pulumi/pulumi pkg/resource/deploy/step_generator.go, processIgnoreChanges), and sends the paths in
 * the DiffRequest, which the Node dynamic-provider host drops (sdk/nodejs/cmd/dynamic-provider/index.ts, diffRPC).
 * Our diffs compare the state's OUTPUTS with the program (read returns no inputs, so drift shows at every refresh:
 * see the Instance's read), so a property changed in the panel and listed in ignoreChanges was still a change
 * after `pulumi refresh` (drift at every `preview --refresh --expect-no-changes`), and the next `up` put it back:
 * the opposite of what the option promises (audit of CLI flags). The SDK's resource classes pass the paths as this
 * input; diff and update take the state's value for them, so what changed outside is kept and is no drift.
 */
import type * as pulumi from "@pulumi/pulumi";
import { keepingOptionPaths } from "./replace-on-changes";

/** The input under which the SDK hands the provider the `ignoreChanges` paths. */
export const IGNORE_CHANGES_KEY = "__ignoreChanges";

function valueAt(bag: Record<string, unknown>, path: readonly string[]): unknown {
  let value: unknown = bag;
  for (const part of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function setAt(bag: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let target = bag;
  for (const part of path.slice(0, -1)) {
    const next = target[part];
    if (next === null || typeof next !== "object" || Array.isArray(next)) target[part] = {};
    else target[part] = { ...(next as Record<string, unknown>) };
    target = target[part] as Record<string, unknown>;
  }
  const last = path[path.length - 1]!;
  if (value === undefined) delete target[last];
  else target[last] = value;
}

/**
 * A path of the option as property names: "cpu", "deleteOptions.removePublicIp"; an element path such as
 * "sshKeys[0]" stands for its whole top-level property (the values compared are whole lists); "*" for every input.
 */
function pathsOf(option: readonly string[], news: Record<string, unknown>): string[][] {
  return option.flatMap((p) =>
    p === "*" ? Object.keys(news).filter((k) => !k.startsWith("__")).map((k) => [k]) : [/\[/.test(p) ? [p.split("[")[0]!.split(".")[0]!] : p.split(".")],
  );
}

/**
 * The top-level inputs whose whole value withIgnoredKept took from the state, by the inputs object it returned.
 * A resource whose diff or update also records what the program declared (the Snapshot's `declaredName`) must not
 * take the state's value put there for what the program declares: it asks {@link ignoredInputs}. A side table, not
 * a key in the inputs: every other diff and update would meet it as an input. The wrappers between this one and the
 * resource's own diff and update hand the same object on (registry.ts, `shared`).
 */
const keptByOption = new WeakMap<object, ReadonlySet<string>>();

/** The top-level inputs that ignoreChanges keeps as the state has them in these inputs (of diff or update); none if not from withIgnoredKept. */
export function ignoredInputs(news: unknown): ReadonlySet<string> {
  return (news !== null && typeof news === "object" ? keptByOption.get(news) : undefined) ?? new Set();
}

/** The program's inputs for diff and update: the ignored paths hold the state's values; the option itself removed. */
export function withIgnoredKept(olds: Record<string, unknown>, news: Record<string, unknown>): Record<string, unknown> {
  const { [IGNORE_CHANGES_KEY]: option, ...rest } = news;
  if (!Array.isArray(option)) return rest;
  const out: Record<string, unknown> = { ...rest };
  const whole = new Set<string>();
  for (const path of pathsOf(option.filter((p): p is string => typeof p === "string"), rest)) {
    if (path.length === 1) whole.add(path[0]!);
    const kept = valueAt(olds, path);
    // neither side has it: nothing to keep (no empty parent object made up: pulumi/pulumi PropertyPath.Reset)
    if (kept === undefined && valueAt(out, path) === undefined) continue;
    setAt(out, path, kept);
  }
  keptByOption.set(out, whole);
  return out;
}

/**
 * Applies the `ignoreChanges` resource option (see the module comment): `check` keeps the paths beside the
 * checked inputs (validated: a list of property paths), `diff` and `update` see the state's values at those paths,
 * and `create` never sees the option.
 */
export function withIgnoreChanges<P extends pulumi.dynamic.ResourceProvider>(provider: P): P {
  const wrapped: pulumi.dynamic.ResourceProvider = { ...provider };
  const check = provider.check?.bind(provider);
  if (check) wrapped.check = keepingOptionPaths(check, IGNORE_CHANGES_KEY, "ignoreChanges", "cpu");
  const bag = (v: unknown): Record<string, unknown> => (v ?? {}) as Record<string, unknown>;
  const diff = provider.diff?.bind(provider);
  if (diff) wrapped.diff = (id, olds, news) => diff(id, olds, withIgnoredKept(bag(olds), bag(news)));
  const update = provider.update?.bind(provider);
  if (update) wrapped.update = (id, olds, news) => update(id, olds, withIgnoredKept(bag(olds), bag(news)));
  const create = provider.create.bind(provider);
  wrapped.create = (inputs) => {
    const { [IGNORE_CHANGES_KEY]: _option, ...rest } = bag(inputs);
    return create(rest);
  };
  return wrapped as P;
}
