/**
 * A model of the Pulumi engine's deployment rules, driving provider calls through the soak's provider host
 * (worker.ts) exactly as the real engine calls a dynamic provider: Check -> Diff -> Create / Update / Delete,
 * Read for refresh, with the real engine's bookkeeping of the state. The rules, from pulumi/pulumi
 * (github.com/pulumi/pulumi, read at 1b5949891b3c):
 *
 * - Create (pkg/resource/deploy/step.go, CreateStep.Apply): a pending "creating" operation with the inputs
 *   is written first (pkg/backend/snapshot.go, doCreate -> markOperationPending). Success records id, inputs,
 *   outputs. An error with status PartialFailure (the provider's initialization failure: an error carrying
 *   an id) records the resource with that id, the inputs, the error's properties as outputs and its reasons
 *   as InitErrors (`if err == nil || resourceStatus == resource.StatusPartialFailure { id = resp.ID; outs =
 *   resp.Properties }`; pkg/engine/update.go OnResourceStepPost ends the mutation as successful for
 *   PartialFailure). Any other error records nothing.
 * - Update (UpdateStep.Apply): success records the new inputs and outputs. PartialFailure records the
 *   error's properties as outputs but keeps the OLD inputs (pkg/engine/update.go, OnResourceStepPost:
 *   "the resource that ultimately gets persisted in the snapshot should be old inputs and new outputs").
 *   Another error changes nothing.
 * - A resource with InitErrors gets an Update at the next up even when Diff says no change
 *   (pkg/resource/deploy/step_generator.go: "If resource was unchanged, but there were initialization
 *   errors, generate an empty update step").
 * - Replace, delete-before-replace (the resource option `deleteBeforeReplace`, which overrides the provider's
 *   answer, or the provider's Diff asking for it): before the old resource is deleted, each resource of the state
 *   that depends on it and is not registered yet is asked whether it must be replaced too: one `deletedWith` a
 *   replaced resource must; any other is asked its Diff with the inputs that come from a replaced resource made
 *   unknown (step_generator.go calculateDependentReplacements; here an input holding a replaced resource's id
 *   stands for its property dependency). Those are deleted first, dependents before what they depend on (a
 *   `deletedWith` one without a Delete call: the old resource is already in sg.deletes), then the old resource,
 *   then the replacement is created; a dependent deleted so is created again, with Check of no olds, when it
 *   registers (step_generator.go `recreating`). What those deletes removed stays in the state marked
 *   PendingReplacement until its create is done (step.go DeleteStep.Apply, backend/snapshot.go): a failed run leaves
 *   it so; the next run replaces it whatever Diff says, without deleting it again (its dependents are asked and
 *   deleted again), refresh does not read it, and a removed one leaves the state without a Delete call.
 * - A resource `deletedWith` a resource replaced in this run is replaced too, without a Diff (step_generator.go
 *   diff()). Every replacement's inputs are checked again, with no olds, before its create (continueStepsFromDiff).
 * - Replace, create-before-delete (the default): the
 *   replacement is created (CreateStep with replacing=true marks the old `Delete = true`, even when the
 *   create ends in PartialFailure), dependents are replaced in turn, and the old resources are deleted at the
 *   end in reverse dependency order. Old resources still marked `Delete` from an earlier run are deleted at the
 *   end of the next up too, with the others (step_generator.go GenerateDeletes: "delete steps for the resources
 *   that are pending delete from the snapshot"; the local engine does the same, finishUp). Older engines deleted
 *   them first (deployment_executor.go GeneratePendingDeletes, no longer in pulumi/pulumi).
 * - Delete (DeleteStep.Apply): the provider gets the state's OUTPUTS; success removes the resource, an error
 *   leaves it in the state.
 * - Refresh (RefreshStep.Apply): Read gets the outputs; an empty id drops the resource; the read's inputs
 *   replace the recorded inputs when given; InitErrors are cleared by a successful read; then the provider's Diff
 *   is asked (the read outputs against the state's inputs), and one that fails fails the refresh.
 * - The first failed step stops the deployment: no new step starts, running ones finish (step_executor.go
 *   cancels its context on a step error). Deletes of replaced or removed resources come after all creates and
 *   updates, so they do not run after a failure.
 * - Interruption: the CLI dies; operations in flight stay pending in the state. At the next run only pending
 *   "creating" operations survive (snapshot.go: "we don't want to clear pending CREATE operations because
 *   these must require user intervention"); the engine creates the resource again from the program.
 *   `pulumi refresh --clear-pending-creates` drops them (pkg/cmd/pulumi/operations/refresh.go); what such a
 *   create made is adopted by the program (`adoptId`) before that, as the provider's refusal advises.
 *
 * - Preview (`previewRefreshed`): `pulumi preview --refresh` reads on a copy of the state (a preview saves
 *   nothing), then Check and Diff as `up` does; a Diff with changes or replaces is a planned step.
 *
 * Not modelled: component resources, aliases, protect, ignoreChanges, retainOnDelete.
 */
import type { ResourceName } from "../../sdk/nodejs/stub";
import { Interrupted, ProviderCallError, type ProviderHost } from "./host";
import { PROVIDER_MARK, type CheckAnswer, type CreateAnswer, type DiffAnswer, type Props, type ReadAnswer, type UpdateAnswer } from "./protocol";

/** A resource in the modelled state (one entry of the checkpoint's `resources`). */
export interface ResourceState {
  urn: string;
  name: string;
  type: ResourceName;
  id: string;
  inputs: Props;
  outputs: Props;
  /** Set after an initialization failure; the next up updates the resource even without a diff. */
  initErrors?: string[];
  /** The old half of a create-before-delete replacement, still to be deleted. */
  delete?: boolean;
  /**
   * Deleted by a delete-before-replace (its own or a dependent's) whose create has not happened yet (step.go
   * DeleteStep.Apply marks it; the snapshot keeps it with its old id, inputs and outputs until the create is done).
   */
  pendingReplacement?: boolean;
  /** URNs this resource depends on (its inputs reference their ids). */
  dependencies: string[];
  /** The `deletedWith` option: the URN whose deletion in the same run makes this one's Delete a no-op. */
  deletedWith?: string;
}

/** A pending operation of the checkpoint: started, never seen to finish. */
export interface PendingOperation {
  type: "creating" | "updating" | "deleting";
  urn: string;
  name: string;
  resourceType: ResourceName;
  inputs: Props;
  id?: string;
  /** For the create of a replacement: the id of the resource it replaces (legitimately still there). */
  replacing?: string;
}

/** The modelled checkpoint. */
export interface StackState {
  resources: ResourceState[];
  pending: PendingOperation[];
  /**
   * The soak's own bookkeeping, not part of a checkpoint: ids the engine dropped without a Delete call because
   * they were `deletedWith` a resource deleted in the same run. If that deletion then fails they still exist,
   * rightly unknown to the state: the VM's eventual deletion takes them.
   */
  forgotten: string[];
}

/** A resource the program declares. `inputs` gets the ids of the resources it depends on. */
export interface DeclaredResource {
  name: string;
  type: ResourceName;
  dependsOn: string[];
  /** Pulumi's `deletedWith` resource option (a name of the program). */
  deletedWith?: string;
  /** Pulumi's `deleteBeforeReplace` resource option; unset, the provider's Diff decides. */
  deleteBeforeReplace?: boolean;
  inputs(idOf: (name: string) => string): Props;
}

/** What one `up`, `refresh` or `destroy` reported. */
export interface RunResult {
  ok: boolean;
  interrupted: boolean;
  errors: string[];
}

/** The URN of a declared resource (stack and project are fixed). */
export function urnOf(type: ResourceName, name: string): string {
  return `urn:pulumi:soak::soak::pulumi-nodejs:dynamic:Resource$vmhost:${type}::${name}`;
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** Thrown inside a run to stop it: the engine's "a step failed" or the CLI's death. */
class StopRun extends Error {}

/** The modelled engine for one stack. */
export class Engine {
  readonly state: StackState = { resources: [], pending: [], forgotten: [] };
  private errors: string[] = [];
  private program: DeclaredResource[] = [];
  private stopped = false;
  private interrupted = false;

  constructor(
    private readonly host: ProviderHost,
    private readonly trace: (line: string) => void,
  ) {}

  private begin(): void {
    this.errors = [];
    this.stopped = false;
    this.interrupted = false;
    this.registered.clear();
    this.replacedUrns.clear();
    this.deletedByDbr.clear();
    // Only pending creates survive into a new run (snapshot.go); other operations were either done or not.
    this.state.pending = this.state.pending.filter((p) => p.type === "creating");
  }

  private result(): RunResult {
    return { ok: this.errors.length === 0 && !this.interrupted, interrupted: this.interrupted, errors: [...this.errors] };
  }

  /** Records a failed step and stops the run (or notes the interruption). */
  private fail(what: string, e: unknown): never {
    if (e instanceof Interrupted) {
      this.interrupted = true;
    } else {
      const message = e instanceof Error ? e.message : String(e);
      this.errors.push(`${what}: ${message}`);
      this.trace(`  ! ${what}: ${message.slice(0, 300)}`);
    }
    this.stopped = true;
    throw new StopRun();
  }

  private guard(): void {
    if (this.stopped) throw new StopRun();
  }

  private addPending(op: PendingOperation): PendingOperation {
    this.state.pending.push(op);
    return op;
  }

  /** The operation ended (`e`: how it failed, if it did). When the CLI died instead, it stays pending. */
  private donePending(op: PendingOperation, e?: unknown): void {
    if (e instanceof Interrupted) this.interrupted = true;
    if (this.interrupted) return;
    this.state.pending = this.state.pending.filter((p) => p !== op);
  }

  private live(urn: string): ResourceState | undefined {
    return this.state.resources.find((r) => r.urn === urn && !r.delete);
  }

  // ------------------------------------------------------------------------------------------- up

  /** `pulumi up` of `program`. */
  async up(program: DeclaredResource[]): Promise<RunResult> {
    this.begin();
    this.program = program;
    try {
      const done = new Map<string, Promise<void>>();
      for (const decl of program) {
        const deps = decl.dependsOn.map((d) => done.get(d)!);
        done.set(decl.name, (async () => {
          await Promise.all(deps);
          this.guard();
          await this.declare(decl, program);
        })());
      }
      // Every step runs to its end even when another fails (the engine waits for running steps).
      const outcomes = await Promise.allSettled(done.values());
      const failed = outcomes.find((o) => o.status === "rejected");
      if (failed) throw (failed as PromiseRejectedResult).reason;
      // Replaced in this run or an earlier one (marked Delete), and removed from the program.
      const declared = new Set(program.map((d) => urnOf(d.type, d.name)));
      await this.deleteAll(this.state.resources.filter((r) => r.delete || !declared.has(r.urn)), "delete");
    } catch (e) {
      if (!(e instanceof StopRun)) throw e;
    }
    return this.result();
  }

  private async check(decl: DeclaredResource, program: DeclaredResource[], olds: Props): Promise<Props> {
    const idOf = (name: string): string => {
      const dep = program.find((d) => d.name === name)!;
      const r = this.live(urnOf(dep.type, dep.name));
      if (!r) throw new Error(`${decl.name} depends on ${name}, which has no id`);
      return r.id;
    };
    const news = { ...decl.inputs(idOf), [PROVIDER_KEY]: PROVIDER_MARK };
    let answer: CheckAnswer;
    try {
      answer = await this.host.call<CheckAnswer>({ method: "check", resource: decl.type, olds, news });
    } catch (e) {
      this.fail(`check ${decl.name}`, e);
    }
    if (answer.failures.length > 0)
      this.fail(`check ${decl.name}`, new Error(answer.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")));
    return answer.inputs;
  }

  /** One declared resource: create, same, update or replace. The old half of a replacement is marked Delete
   * (create) and deleted with the others at the end of the up. */
  private async declare(decl: DeclaredResource, program: DeclaredResource[]): Promise<void> {
    const urn = urnOf(decl.type, decl.name);
    this.registered.add(urn);
    const deps = decl.dependsOn.map((n) => {
      const d = program.find((p) => p.name === n)!;
      return urnOf(d.type, d.name);
    });
    const old = this.live(urn);
    const recreating = !!old && this.deletedByDbr.has(urn);
    let inputs = await this.check(decl, program, recreating ? {} : old?.inputs ?? {});
    this.guard();
    if (!old || recreating) {
      // (step_generator.go `recreating`: deleted earlier in this run for a delete-before-replace; Check had no olds)
      if (recreating) this.trace(`  ${decl.name}: created again (deleted earlier in this run by a delete-before-replace)`);
      await this.create(decl, urn, inputs, deps, undefined, old);
      return;
    }
    let diff: DiffAnswer;
    const dw = this.deletedWithOf(decl).deletedWith;
    if (dw && this.replacedUrns.has(dw)) {
      // step_generator.go diff(): replaced, without asking the provider, because its deletedWith resource is
      this.trace(`  ${decl.name}: its deletedWith resource is replaced: replaced too, no Diff call`);
      diff = { changes: true, replaces: ["deletedWith"], deleteBeforeReplace: false };
    } else {
      try {
        diff = await this.host.call<DiffAnswer>({ method: "diff", resource: decl.type, id: old.id, olds: old.outputs, news: inputs });
      } catch (e) {
        this.fail(`diff ${decl.name}`, e);
      }
    }
    this.guard();
    if (diff.replaces.length > 0 || old.pendingReplacement) {
      // (continueStepsFromDiff: `|| old.PendingReplacement`)
      if (old.pendingReplacement) this.trace(`  ${decl.name} is pending replacement since an earlier run: replaced whatever Diff says`);
      this.replacedUrns.add(urn);
      this.trace(`  ~ replace ${decl.name} (${diff.replaces.join(", ")})`);
      // continueStepsFromDiff checks the inputs again, with no olds, before a replacement
      inputs = await this.check(decl, program, {});
      this.guard();
      if (decl.deleteBeforeReplace ?? diff.deleteBeforeReplace) {
        const dependents = await this.dependentReplacements(old);
        // (sg.deletes gets the root only when it is not pending replacement already: no second delete of it)
        const deleting = new Set([...(old.pendingReplacement ? [] : [old.urn]), ...dependents.map((d) => d.urn)]);
        for (const d of [...dependents].reverse()) {
          this.deletedByDbr.add(d.urn);
          await this.deleteOne(d, `delete (before ${decl.name}'s replace)`, deleting, true);
        }
        if (!old.pendingReplacement) await this.deleteOne(old, "delete (before replace)", deleting, true);
        else this.trace(`  ${decl.name}: pending replacement: no delete step`);
        await this.create(decl, urn, inputs, deps, undefined, old);
        return;
      }
      await this.create(decl, urn, inputs, deps, old);
      return;
    }
    const changes = diff.changes ?? JSON.stringify(old.inputs) !== JSON.stringify(inputs);
    if (changes || (old.initErrors?.length ?? 0) > 0) {
      await this.update(decl, old, inputs);
      return;
    }
    // Same: the new inputs are recorded, the outputs kept.
    old.inputs = inputs;
    old.dependencies = deps;
    old.deletedWith = this.deletedWithOf(decl).deletedWith;
    return;
  }

  /** URNs registered in this run: they cannot depend on a resource registered after them. */
  private readonly registered = new Set<string>();
  /** URNs replaced in this run (step_generator.go sg.replaces). */
  private readonly replacedUrns = new Set<string>();
  /** Dependents deleted for a delete-before-replace in this run (sg.deletes: their registration is `recreating`). */
  private readonly deletedByDbr = new Set<string>();

  /**
   * The resources of the state that must be deleted before `root`'s delete-before-replace, in dependency order
   * (see the module comment). Each unregistered dependent, transitively, is asked as the engine asks it.
   */
  private async dependentReplacements(root: ResourceState): Promise<ResourceState[]> {
    const replaceSet = new Map<string, string>([[root.urn, root.id]]);
    const out: ResourceState[] = [];
    const asked = new Set<ResourceState>();
    // (until nothing more is found: the state's order is not dependency order once something was replaced)
    for (let found = true; found; ) {
      found = false;
      for (const r of this.state.resources) {
        if (r === root || r.delete || asked.has(r) || this.registered.has(r.urn) || !r.dependencies.some((u) => replaceSet.has(u))) continue;
        asked.add(r);
        let replace = r.deletedWith !== undefined && replaceSet.has(r.deletedWith);
        if (!replace) {
          const replacedIds = new Set(replaceSet.values());
          const news = Object.fromEntries(Object.entries(r.inputs).map(([k, v]) => [k, typeof v === "string" && replacedIds.has(v) ? UNKNOWN : v]));
          let diff: DiffAnswer;
          try {
            diff = await this.host.call<DiffAnswer>({ method: "diff", resource: r.type, id: r.id, olds: r.outputs, news });
          } catch (e) {
            this.fail(`diff ${r.name} (a dependent of ${root.name}'s delete-before-replace)`, e);
          }
          replace = diff.replaces.length > 0;
        }
        this.trace(`  ? ${r.name} depends on ${root.name}, replaced delete-before-replace: ${replace ? "deleted first" : "stays"}`);
        if (!replace) continue;
        replaceSet.set(r.urn, r.id);
        out.push(r);
        found = true;
      }
    }
    return out;
  }


  private deletedWithOf(decl: DeclaredResource): { deletedWith?: string } {
    if (!decl.deletedWith) return {};
    const target = this.program.find((d) => d.name === decl.deletedWith);
    return target ? { deletedWith: urnOf(target.type, target.name) } : {};
  }

  private async create(decl: DeclaredResource, urn: string, inputs: Props, deps: string[], replacing?: ResourceState, prOld?: ResourceState): Promise<void> {
    // (backend/snapshot.go createSnapshotMutation.End: the old pending-replacement record goes once the create is done)
    const donePr = (): void => { if (prOld?.pendingReplacement) this.state.resources = this.state.resources.filter((x) => x !== prOld); };
    this.trace(`  + create ${decl.name}`);
    const op = this.addPending({
      type: "creating", urn, name: decl.name, resourceType: decl.type, inputs: clone(inputs), ...(replacing ? { replacing: replacing.id } : {}),
    });
    try {
      const answer = await this.host.call<CreateAnswer>({ method: "create", resource: decl.type, properties: inputs });
      this.donePending(op);
      if (!answer.id) this.fail(`create ${decl.name}`, new Error("provider did not return an ID from Create"));
      if (replacing) replacing.delete = true;
      donePr();
      this.state.resources.push({ urn, name: decl.name, type: decl.type, id: answer.id, inputs, outputs: answer.properties, dependencies: deps, ...this.deletedWithOf(decl) });
      this.trace(`    created ${decl.name} ${answer.id}`);
    } catch (e) {
      if (e instanceof StopRun) throw e;
      this.donePending(op, e);
      if (e instanceof ProviderCallError && e.failure.initFailure) {
        const init = e.failure.initFailure;
        if (replacing) replacing.delete = true;
        donePr();
        this.state.resources.push({
          urn, name: decl.name, type: decl.type, id: init.id, inputs, outputs: init.properties, dependencies: deps, ...this.deletedWithOf(decl),
          initErrors: init.reasons.length ? init.reasons : [e.message],
        });
        this.trace(`    recorded ${decl.name} ${init.id} after an initialization failure`);
      }
      this.fail(`create ${decl.name}`, e);
    }
  }

  private async update(decl: DeclaredResource, old: ResourceState, inputs: Props): Promise<void> {
    this.trace(`  ~ update ${decl.name}`);
    const op = this.addPending({ type: "updating", urn: old.urn, name: decl.name, resourceType: decl.type, inputs: clone(inputs), id: old.id });
    try {
      const answer = await this.host.call<UpdateAnswer>({ method: "update", resource: decl.type, id: old.id, olds: old.outputs, news: inputs });
      this.donePending(op);
      old.inputs = inputs;
      old.outputs = answer.properties;
      delete old.initErrors;
    } catch (e) {
      this.donePending(op, e);
      if (e instanceof ProviderCallError && e.failure.initFailure) {
        // PartialFailure: old inputs, the error's properties as outputs (pkg/engine/update.go).
        old.outputs = e.failure.initFailure.properties;
        old.initErrors = e.failure.initFailure.reasons.length ? e.failure.initFailure.reasons : [e.message];
      }
      this.fail(`update ${decl.name}`, e);
    }
  }

  // ------------------------------------------------------------------------------------------- delete

  private async deleteOne(r: ResourceState, what: string, deleting: ReadonlySet<string>, pendingReplace = false): Promise<void> {
    // GenerateDeletes: a pending-replacement resource no longer declared gets RemovePendingReplaceStep (no call)
    if (r.pendingReplacement && !pendingReplace && !r.delete) {
      this.trace(`  - ${what} ${r.name} ${r.id} (pending replacement: removed from the state, no Delete call)`);
      this.state.resources = this.state.resources.filter((x) => x !== r);
      return;
    }
    // DeleteStep.Apply: `isDeletedWith(s.old.DeletedWith, s.otherDeletions)`: no provider call, the state forgets it.
    if (r.deletedWith && deleting.has(r.deletedWith)) {
      this.trace(`  - ${what} ${r.name} ${r.id} (deleted with ${r.deletedWith.split("::").pop()}: no Delete call)`);
      if (pendingReplace) r.pendingReplacement = true;
      else this.state.resources = this.state.resources.filter((x) => x !== r);
      this.state.forgotten.push(r.id);
      return;
    }
    this.trace(`  - ${what} ${r.name} ${r.id}`);
    const op = this.addPending({ type: "deleting", urn: r.urn, name: r.name, resourceType: r.type, inputs: clone(r.inputs), id: r.id });
    try {
      if (r.pendingReplacement) this.trace(`    (a Delete again of ${r.name} ${r.id}, pending replacement since an earlier run)`);
      await this.host.call({ method: "delete", resource: r.type, id: r.id, properties: r.outputs });
      this.donePending(op);
      if (pendingReplace) r.pendingReplacement = true;
      else this.state.resources = this.state.resources.filter((x) => x !== r);
    } catch (e) {
      this.donePending(op, e);
      this.fail(`${what} ${r.name}`, e);
    }
  }

  /** Deletes `victims`, dependents before what they depend on; independent ones in parallel. */
  private async deleteAll(victims: ResourceState[], what: string): Promise<void> {
    let left = [...victims];
    // The URNs deleted in this run (step_generator.go: sg.deletes, what `deletedWith` is checked against).
    const deleting = new Set(victims.map((v) => v.urn));
    while (left.length > 0) {
      this.guard();
      // A resource waits while another victim depends on it.
      const ready = left.filter((r) => !left.some((o) => o !== r && o.dependencies.includes(r.urn) && o.id !== r.id));
      const batch = ready.length > 0 ? ready : [left[0]!];
      const outcomes = await Promise.allSettled(batch.map((r) => this.deleteOne(r, what, deleting)));
      const failed = outcomes.find((o) => o.status === "rejected");
      if (failed) throw (failed as PromiseRejectedResult).reason;
      left = left.filter((r) => !batch.includes(r));
    }
  }

  /** `pulumi destroy`. */
  async destroy(): Promise<RunResult> {
    this.begin();
    try {
      await this.deleteAll(this.state.resources, "destroy");
    } catch (e) {
      if (!(e instanceof StopRun)) throw e;
    }
    return this.result();
  }

  // ------------------------------------------------------------------------------------------- preview

  /**
   * `pulumi preview --refresh --expect-no-changes`, as a CI drift check runs it: every resource is read (on a
   * copy: a preview saves nothing), then each declared resource is checked against its refreshed state and
   * diffed, as in `up`. Answers the steps it would plan (`<name>: update` ...); a call that fails is an error.
   */
  async previewRefreshed(program: DeclaredResource[]): Promise<{ planned: string[]; errors: string[] }> {
    const planned: string[] = [];
    const errors: string[] = [];
    const refreshed = new Map<string, ResourceState>();
    for (const r of this.state.resources) {
      if (r.delete) {
        planned.push(`${r.name}: delete (replaced earlier)`);
        continue;
      }
      if (r.pendingReplacement) {
        planned.push(`${r.name}: replace (pending replacement)`);
        continue;
      }
      try {
        const answer = await this.host.call<ReadAnswer>({ method: "read", resource: r.type, id: r.id, properties: r.outputs });
        // (a successful read clears init errors: nothing forces an update)
        if (answer.id) await this.refreshDiff(r, answer, true);
        if (answer.id) refreshed.set(r.urn, { ...clone(r), id: answer.id, outputs: answer.properties, inputs: answer.inputs ?? clone(r.inputs) });
      } catch (e) {
        errors.push(`refresh ${r.name}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    const idOf = (name: string): string => {
      const dep = program.find((d) => d.name === name)!;
      return refreshed.get(urnOf(dep.type, dep.name))?.id ?? "(unknown until created)";
    };
    for (const decl of program) {
      const old = refreshed.get(urnOf(decl.type, decl.name));
      if (!old) {
        planned.push(`${decl.name}: create`);
        continue;
      }
      try {
        const news = { ...decl.inputs(idOf), [PROVIDER_KEY]: PROVIDER_MARK };
        const checked = await this.host.call<CheckAnswer>({ method: "check", resource: decl.type, olds: old.inputs, news });
        if (checked.failures.length > 0) {
          errors.push(`check ${decl.name}: ${checked.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`);
          continue;
        }
        const diff = await this.host.call<DiffAnswer>({ method: "diff", resource: decl.type, id: old.id, olds: old.outputs, news: checked.inputs });
        if (diff.replaces.length > 0) planned.push(`${decl.name}: replace (${diff.replaces.join(", ")})`);
        else if (diff.changes ?? JSON.stringify(old.inputs) !== JSON.stringify(checked.inputs)) planned.push(`${decl.name}: update`);
      } catch (e) {
        errors.push(`preview ${decl.name}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    const declared = new Set(program.map((d) => urnOf(d.type, d.name)));
    for (const r of this.state.resources) if (!r.delete && !declared.has(r.urn)) planned.push(`${r.name}: delete`);
    return { planned, errors };
  }

  // ------------------------------------------------------------------------------------------- refresh

  /**
   * `pulumi refresh`; with `clearPendingCreates`, `--clear-pending-creates` drops the pending creates first
   * (pkg/cmd/pulumi/operations/refresh.go filterMapPendingCreates). `--import-pending-creates` is not modelled:
   * it only relabels the operation, and the next snapshot keeps only pending creates (backend/snapshot.go snap()),
   * so nothing is imported.
   */
  async refresh(options: { clearPendingCreates: boolean }): Promise<RunResult> {
    this.begin();
    try {
      if (options.clearPendingCreates) {
        for (const op of this.state.pending.filter((p) => p.type === "creating")) this.trace(`  pending create of ${op.name} cleared`);
        this.state.pending = this.state.pending.filter((p) => p.type !== "creating");
      }
      const outcomes = await Promise.allSettled(this.state.resources.map((r) => this.readOne(r)));
      const failed = outcomes.find((o) => o.status === "rejected");
      if (failed) throw (failed as PromiseRejectedResult).reason;
    } catch (e) {
      if (!(e instanceof StopRun)) throw e;
    }
    return this.result();
  }

  /**
   * step.go RefreshStep.Apply calls the provider's Diff after the Read (olds: the read outputs; news: the state's
   * inputs); a Diff that fails fails the refresh step. (`preview`: the error is reported, not a run failure.)
   */
  private async refreshDiff(r: ResourceState, answer: ReadAnswer, preview = false): Promise<void> {
    try {
      const d = await this.host.call<DiffAnswer>({ method: "diff", resource: r.type, id: answer.id, olds: answer.properties, news: r.inputs });
      if (d.changes) this.trace(`  refresh diff ${r.name}: ${JSON.stringify(d)}`);
    } catch (e) {
      if (preview) throw e;
      this.fail(`refresh ${r.name} (its refresh Diff)`, e);
    }
  }

  private async readOne(r: ResourceState): Promise<void> {
    if (r.pendingReplacement) return; // (RefreshStep.Apply: a pending-replacement resource is not read)
    let answer: ReadAnswer;
    try {
      answer = await this.host.call<ReadAnswer>({ method: "read", resource: r.type, id: r.id, properties: r.outputs });
    } catch (e) {
      this.fail(`refresh ${r.name}`, e);
    }
    if (!answer.id) {
      this.trace(`  refresh: ${r.name} ${r.id} is gone`);
      this.state.resources = this.state.resources.filter((x) => x !== r);
      return;
    }
    await this.refreshDiff(r, answer);
    r.id = answer.id;
    r.outputs = answer.properties;
    if (answer.inputs) r.inputs = answer.inputs;
    delete r.initErrors;
  }
}

const PROVIDER_KEY = "__provider";
/** The engine's unknown-value sentinel, as the dynamic-provider host hands it to a provider. */
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
