/**
 * Which Diff calls plan a resource's own step, and which only ask whether it must be replaced with a resource it
 * depends on.
 *
 * Before a delete-before-replace, the engine asks each dependent that the program has not registered yet whether it
 * must go first (pulumi/pulumi pkg/resource/deploy/step_generator.go, calculateDependentReplacements, and for the
 * deletions of a `--target` run determineAllowedResourcesToDeleteFromTargets): it calls the dependent's Diff with
 * the STATE's inputs (`r.Inputs`, what the last up declared), each input that comes from a resource in the replace
 * set made unknown (also in an up, `allowUnknowns` true), and uses only the answer's replace keys. That Diff comes
 * before the dependent's own Check, so it does not know what the program declares now: a refusal of an update made
 * there judged the last up's declaration (audit: a disk grown in the panel and refreshed, the program declaring the
 * new size, the up replacing the VM it takes its hostname from failed "the program declares storage: 20", the old
 * value). A dependent answered "no replace" has its own Diff later in the same deployment, after its Check, with the
 * program's inputs, where the refusal is made (at preview too); one answered "replace" is re-created without another
 * Diff, so a refusal that must stop a delete stays in the question (common/kept-with-vm.ts).
 *
 * What tells them apart: the Diff that plans a resource's step gets, as its new inputs, exactly what its Check
 * returned in this deployment (step_generator.go continueStepsFromImport: `prov.Check`, then `new.Inputs = inputs`
 * and `sg.diff` with them); the question gets inputs no Check returned, with at least one unknown value (the
 * engine asks only when an input depends on a replaced resource). So a Diff whose inputs hold an unknown value and
 * match no Check answer of this deployment is the question. (A policy pack's remediation that changes the inputs
 * after Check makes a preview's Diff with unknowns look like the question: its update refusal then comes at the up.)
 * Recorded and compared at the outermost wrapper (provider/registry.ts), where the inputs are what the engine sent
 * and got.
 */
import type * as pulumi from "@pulumi/pulumi";
import { isUnknown } from "./check";

/** Check answers of this deployment (canonical form, see {@link canonical}) not yet met by their Diff: count each. */
const checkedInputs = new Map<string, number>();
/** Ids (lower case) whose Diff now being answered is the engine's question (see the module comment). */
const askedNow = new Set<string>();

/** Canonical form for comparison: object keys sorted, undefined members and the dynamic provider's `__provider` dropped. */
function canonical(bag: Record<string, unknown>): string {
  const norm = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(norm);
    if (v && typeof v === "object")
      return Object.fromEntries(Object.keys(v).sort().filter((k) => (v as Record<string, unknown>)[k] !== undefined).map((k) => [k, norm((v as Record<string, unknown>)[k])]));
    return v;
  };
  const { __provider: _provider, ...rest } = bag;
  return JSON.stringify(norm(rest));
}

/** Called with the inputs a Check returned (before the engine has them). */
export function noteCheckedInputs(inputs: Record<string, unknown> | undefined): void {
  if (!inputs) return;
  const key = canonical(inputs);
  checkedInputs.set(key, (checkedInputs.get(key) ?? 0) + 1);
}

/** Called as Diff of `id` begins, with the inputs the engine sent: decides whether it is the engine's question. */
export function noteDiffBegins(id: string, news: Record<string, unknown> | undefined): void {
  const key = canonical(news ?? {});
  const checked = checkedInputs.get(key) ?? 0;
  if (checked > 0) {
    if (checked === 1) checkedInputs.delete(key);
    else checkedInputs.set(key, checked - 1);
    askedNow.delete(id.toLowerCase());
  } else if (Object.values(news ?? {}).some(isUnknown)) askedNow.add(id.toLowerCase());
  else askedNow.delete(id.toLowerCase());
}

/**
 * True when the Diff of `id` being answered only asks whether it must be replaced with a resource it depends on (see
 * the module comment): it must not refuse what only an update would refuse.
 */
export function isDependentsQuestion(id: string): boolean {
  return askedNow.has(id.toLowerCase());
}

/** Ids (lower case) whose Diff being answered plans no step: a refresh's, or the question (see common/define.ts). */
const plansNothingNow = new Set<string>();

/** Called by every Diff (common/define.ts) once it knows whether it plans the resource's step. */
export function noteDiffPlans(id: string, plans: boolean): void {
  if (plans) plansNothingNow.delete(id.toLowerCase());
  else plansNothingNow.add(id.toLowerCase());
}

/**
 * True when the Diff of `id` just answered plans no step (a refresh's, or the engine's question): a wrapper around it
 * must not refuse what only a step would do (an adopted object's replace), and must not ask for that replace either.
 */
export function plansNoStep(id: string): boolean {
  return plansNothingNow.has(id.toLowerCase());
}

/** Forgets what was noted (see forgetDeployment in provider/registry.ts). */
export function forgetAskedDiffs(): void {
  checkedInputs.clear();
  askedNow.clear();
  plansNothingNow.clear();
}

/** Wraps a resource's provider (outermost): notes each Check's answer and each Diff's inputs, as above. */
export function withDependentsQuestionsTold(provider: pulumi.dynamic.ResourceProvider): pulumi.dynamic.ResourceProvider {
  const wrapped: pulumi.dynamic.ResourceProvider = { ...provider };
  const check = provider.check?.bind(provider);
  if (check)
    wrapped.check = async (olds, news) => {
      const result = await check(olds, news);
      // (the dynamic-provider host sends the news on when Check returns no inputs). Only a Check with olds has a Diff
      // after it: one without (a create's, a replacement's: step_generator.go checks those with no olds) was never met,
      // and its answer, left over, made the engine's question with the same inputs (a new rule of a new VM at preview,
      // an existing rule of a VM replaced delete-before-replace) look like a planning Diff (review).
      const hasOlds = olds !== undefined && olds !== null && Object.keys(olds).length > 0;
      if (hasOlds && !result.failures?.length) noteCheckedInputs((result.inputs ?? news) as Record<string, unknown> | undefined);
      return result;
    };
  const diff = provider.diff?.bind(provider);
  if (diff)
    wrapped.diff = async (id, olds, news) => {
      noteDiffBegins(id, news as Record<string, unknown> | undefined);
      return diff(id, olds, news);
    };
  return wrapped;
}
