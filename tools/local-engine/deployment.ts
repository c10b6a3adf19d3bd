/**
 * The step logic of one engine run: what each registration means against the old state (create, update,
 * replace, same), the deletions after the program finishes, refresh and destroy. The provider work itself
 * happens in the real dynamic-provider host.
 *
 * Order and safety rules, as in Pulumi:
 * - RegisterResource is answered only when the step is done, so a resource that depends on another (dependsOn,
 *   parent or input) is registered, and created, only after it: the program's runtime waits for the URNs.
 * - Replacement creates the new resource first and deletes the old one at the end of the run, unless the
 *   program (deleteBeforeReplace) or the provider's diff asks for delete-before-replace.
 * - Deletions (removed resources, replaced ones) happen only when the program succeeded and no step failed,
 *   in reverse state order (the state is dependency ordered), after refusing any protected resource.
 * - After the first failed step no further change is made; the program sees FAIL results (unknown outputs),
 *   as with Pulumi without --continue-on-error.
 * - Every finished step can be checkpointed, so a crash never forgets a created resource.
 */
import { RegistrationRequest, RegistrationResult, MonitorHandler, Severity } from "./monitor";
import { Printer, StepOp, Summary, diffDetail, elapsed, emptySummary, progressLine, renderValue, stepLine } from "./output";
import { InitFailedError, ProviderHost } from "./providerHost";
import { ResourceState, StateFile } from "./state";
import {
  PROVIDER_KEY,
  PropertyMap,
  changedKeys,
  clone,
  deepEqual,
  getPath,
  secretKeysOf,
  setPath,
  unwrapMap,
  wrapSecretKeys,
} from "./values";

/** One step the engine performed (or, in preview, planned). */
export interface StepRecord {
  op: StepOp;
  urn: string;
  type: string;
  name: string;
  /** Changed input properties (update, replace) or drifted properties (refresh). */
  diffs: string[];
  /** For a replace: the properties that forced it. */
  replaces?: string[];
}

/** A property that changed outside Pulumi, found by refresh. */
export interface DriftRecord {
  urn: string;
  type: string;
  name: string;
  /** The resource no longer exists. */
  gone: boolean;
  properties: Array<{ name: string; old: string; new: string }>;
}

/** What a deployment needs from the run around it. */
export interface DeploymentOptions {
  project: string;
  stack: string;
  dryRun: boolean;
  old: StateFile;
  printer: Printer;
  /** The provider host, started on first use. */
  host: () => Promise<ProviderHost>;
  /** Called after every completed step with the state so far (not in preview). */
  checkpoint?: (state: StateFile) => void;
}

/** The dynamic provider resource types: `pulumi-nodejs:dynamic:Resource` and `pulumi-nodejs:dynamic/<module>:<Type>`. */
export function isDynamicType(type: string): boolean {
  return /^pulumi-nodejs:dynamic(\/[^:]+)?:[^:]+$/.test(type);
}

const STACK_TYPE = "pulumi:pulumi:Stack";

/** What one custom resource's registration will do. */
interface CustomPlan {
  op: StepOp;
  /** The new state entry (inputs checked; id and outputs filled in by the step). */
  entry: ResourceState;
  old?: ResourceState;
  /** Output names to store as secrets. */
  secretOutputs: string[];
  /** Changed input names, for display. */
  diffs: string[];
  /** The properties that force a replacement. */
  replaces: string[];
  deleteFirst: boolean;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** One engine run over one stack. */
export class Deployment implements MonitorHandler {
  readonly steps: StepRecord[] = [];
  readonly errors: string[] = [];
  readonly drift: DriftRecord[] = [];
  readonly summary: Summary = emptySummary();
  /** The resources of the run, in the order their steps completed (dependencies first). */
  private readonly registered = new Map<string, ResourceState>();
  /** Live old resources by URN (pending deletes excluded: they share the URN of their replacement). */
  private readonly oldByUrn = new Map<string, ResourceState>();
  private readonly seen = new Set<string>();
  /** Old resources replaced create-before-delete: still exist until the end of the run. */
  private readonly replacedOld = new Set<ResourceState>();
  private readonly deleted = new Set<ResourceState>();
  private oldResources: ResourceState[];
  /** Serializes planning (see planCustom). */
  private planQueue: Promise<void> = Promise.resolve();

  constructor(private readonly opts: DeploymentOptions) {
    this.oldResources = opts.old.resources;
    for (const r of this.oldResources) if (!r.pendingDelete) this.oldByUrn.set(r.urn, r);
  }

  private get printer(): Printer {
    return this.opts.printer;
  }

  /** The stack's URN. */
  stackUrn(): string {
    return `urn:pulumi:${this.opts.stack}::${this.opts.project}::${STACK_TYPE}::${this.opts.project}-${this.opts.stack}`;
  }

  /** Pulumi's URN: the type is qualified by the parent's type chain unless the parent is the stack. */
  private urnFor(type: string, name: string, parent: string): string {
    let qualified = type;
    if (parent) {
      const parentType = parent.split("::")[2] ?? "";
      if (parentType && parentType !== STACK_TYPE) qualified = `${parentType}$${type}`;
    }
    return `urn:pulumi:${this.opts.stack}::${this.opts.project}::${qualified}::${name}`;
  }

  /** The stack outputs the program registered (secrets wrapped). */
  stackOutputs(): PropertyMap {
    return this.registered.get(this.stackUrn())?.outputs ?? this.oldByUrn.get(this.stackUrn())?.outputs ?? {};
  }

  // ---- MonitorHandler -------------------------------------------------------------------------------

  log(severity: Severity, message: string, urn: string): void {
    if (severity === "debug" && !process.env.VMHOST_ENGINE_DEBUG) return;
    const who = urn ? ` ${urn.split("::").pop()}` : "";
    this.printer.line(`${severity}${who}: ${message}`);
    if (severity === "error" && !this.errors.includes(message)) this.errors.push(message);
  }

  async register(req: RegistrationRequest): Promise<RegistrationResult> {
    const urn = this.urnFor(req.type, req.name, req.parent);
    if (this.seen.has(urn)) {
      this.fail(`duplicate resource URN ${urn}: two resources of type ${req.type} are named "${req.name}"`);
      return { urn, id: "", object: {}, failed: true };
    }
    this.seen.add(urn);
    // After a failure nothing else changes (the old state of these resources is kept as it is).
    if (this.errors.length > 0) return { urn, id: "", object: {}, failed: true };
    try {
      if (!req.custom) return this.registerComponent(urn, req);
      if (!isDynamicType(req.type)) {
        throw new Error(`${req.type} "${req.name}": only dynamic provider resources (pulumi.dynamic.Resource) are supported by the local engine`);
      }
      if (req.provider) throw new Error(`${req.name}: explicit providers are not supported by the local engine`);
      if (req.importId) throw new Error(`${req.name}: the import option is not supported by the local engine`);
      // Refused rather than ignored: ignoring it would delete what the user asked to keep.
      if (req.retainOnDelete) throw new Error(`${req.name}: retainOnDelete is not supported by the local engine`);
      return await this.registerCustom(urn, req);
    } catch (e) {
      this.fail(`${req.type} "${req.name}": ${errorText(e)}`);
      return { urn, id: "", object: {}, failed: true };
    }
  }

  async registerOutputs(urn: string, outputs: PropertyMap): Promise<void> {
    const entry = this.registered.get(urn);
    if (entry) {
      entry.outputs = outputs;
      this.checkpoint();
    }
  }

  // ---- up / preview ---------------------------------------------------------------------------------

  private registerComponent(urn: string, req: RegistrationRequest): RegistrationResult {
    const old = this.oldByUrn.get(urn);
    const entry: ResourceState = {
      urn,
      type: req.type,
      name: req.name,
      custom: false,
      parent: req.parent,
      inputs: req.object,
      outputs: old?.outputs ?? {},
      dependencies: req.dependencies,
      protect: req.protect,
      additionalSecretOutputs: req.additionalSecretOutputs,
      deleteBeforeReplace: req.deleteBeforeReplace,
      ...(req.deletedWith ? { deletedWith: req.deletedWith } : {}),
    };
    this.record(old ? "same" : "create", entry, []);
    return { urn, id: "", object: {}, failed: false };
  }

  /**
   * Plans one custom resource: Check, then Diff against the old state, then the decision. Plans are made one
   * at a time in registration order (Pulumi's step generator does the same), so once a plan fails the
   * registrations queued behind it change nothing; the steps themselves run concurrently.
   */
  private planCustom(urn: string, req: RegistrationRequest): Promise<CustomPlan | undefined> {
    // The failure is recorded before the queue moves on, so the next plan in line already sees it.
    const planned = this.planQueue
      .then(() => (this.errors.length > 0 ? undefined : this.makePlan(urn, req)))
      .catch((e: unknown) => {
        this.fail(`${req.type} "${req.name}": ${errorText(e)}`);
        return undefined;
      });
    this.planQueue = planned.then(() => undefined);
    return planned;
  }

  private async makePlan(urn: string, req: RegistrationRequest): Promise<CustomPlan> {
    const old = this.oldByUrn.get(urn);
    const host = await this.opts.host();
    // Secrecy is decided by what the program sent: a property that held a secret stays secret.
    const secretInputs = secretKeysOf(req.object);

    // ignoreChanges: the old value replaces the new one before Check, exactly as Pulumi does, so the
    // property neither shows in the diff nor reaches the provider.
    const news = clone(req.object);
    if (old) {
      for (const path of req.ignoreChanges) {
        const prev = getPath(old.inputs, path);
        setPath(news, path, prev === undefined ? undefined : clone(prev));
      }
    }

    const checked = await host.check(urn, old ? unwrapMap(old.inputs) : {}, unwrapMap(news));
    if (checked.failures.length > 0) {
      throw new Error(`invalid inputs: ${checked.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`);
    }
    const inputs = wrapSecretKeys(checked.inputs, secretInputs);
    const entry: ResourceState = {
      urn,
      type: req.type,
      name: req.name,
      custom: true,
      parent: req.parent,
      inputs,
      outputs: {},
      dependencies: req.dependencies,
      protect: req.protect,
      additionalSecretOutputs: req.additionalSecretOutputs,
      deleteBeforeReplace: req.deleteBeforeReplace,
      ...(req.deletedWith ? { deletedWith: req.deletedWith } : {}),
    };
    const plan: CustomPlan = {
      op: "create",
      entry,
      secretOutputs: [...secretInputs, ...req.additionalSecretOutputs],
      diffs: [],
      replaces: [],
      deleteFirst: false,
    };
    if (!old) return plan;
    plan.old = old;

    // Diff: the provider decides (it sees old outputs and new inputs); the engine adds replaceOnChanges and
    // the fallback comparison of inputs when the provider has no diff.
    // For display: inputs that changed, plus inputs whose new value differs from what the resource has now
    // (after a refresh the old outputs hold the drifted values the update will revert).
    const inputDiffs = changedKeys(old.inputs, inputs);
    const diffs = [
      ...new Set([
        ...inputDiffs,
        ...Object.keys(inputs).filter((k) => k !== PROVIDER_KEY && k in old.outputs && !deepEqual(old.outputs[k], inputs[k])),
      ]),
    ].sort();
    const d = await host.diff(urn, old.id ?? "", unwrapMap(old.outputs), unwrapMap(inputs), unwrapMap(old.inputs));
    let changes = d.changes ?? changedKeys(old.inputs, inputs, []).length > 0;
    const replaces = new Set(d.replaces);
    if (changes) {
      for (const path of req.replaceOnChanges) {
        const top = path.split(/[.[]/)[0];
        for (const k of inputDiffs) if (path === "*" || k === top) replaces.add(k);
      }
    }
    // A resource that failed to initialize is always updated, so the next up converges it.
    if (old.initErrors?.length) changes = true;
    plan.op = replaces.size > 0 ? "replace" : changes ? "update" : "same";
    plan.diffs = diffs.length ? diffs : changes ? [PROVIDER_KEY] : [];
    plan.replaces = [...replaces];
    plan.deleteFirst = req.deleteBeforeReplace || d.deleteBeforeReplace;
    if (plan.op === "replace" && old.protect) {
      throw new Error(
        `unable to replace ${urn} (${plan.replaces.join(", ")} changed): it is protected. ` +
          "Remove `protect` from the resource in the program and run up first.",
      );
    }
    return plan;
  }

  private async registerCustom(urn: string, req: RegistrationRequest): Promise<RegistrationResult> {
    const plan = await this.planCustom(urn, req);
    if (!plan) return { urn, id: "", object: {}, failed: true }; // this plan or an earlier one failed
    const { op, entry, old, secretOutputs } = plan;
    const done = (): RegistrationResult => ({ urn, id: entry.id ?? "", object: entry.outputs, failed: false });

    if (op === "same" && old) {
      entry.id = old.id;
      entry.outputs = wrapSecretKeys(old.outputs, secretOutputs);
      this.record("same", entry, []);
      return done();
    }
    if (this.opts.dryRun) {
      // Preview: the outputs are the inputs; everything else is unknown to the program until up.
      entry.id = op === "update" ? old?.id : undefined;
      entry.outputs = entry.inputs;
      this.record(op, entry, plan.diffs, op === "replace" ? plan.replaces : undefined);
      return done();
    }
    // Provider calls can take minutes (a VM boots): say what is under way, then what it took.
    const started = Date.now();
    this.printer.line(progressLine(op, entry.type, entry.name));
    if (op === "create") {
      await this.create(entry, secretOutputs);
      this.record("create", entry, [], undefined, started);
      return done();
    }
    if (op === "update" && old) {
      entry.id = old.id;
      try {
        const outs = await (await this.opts.host()).update(urn, old.id ?? "", unwrapMap(old.outputs), unwrapMap(entry.inputs), unwrapMap(old.inputs));
        entry.outputs = wrapSecretKeys(outs, secretOutputs);
      } catch (e) {
        if (e instanceof InitFailedError) this.recordInitFailure(entry, e, secretOutputs);
        throw e;
      }
      this.record("update", entry, plan.diffs, undefined, started);
      return done();
    }
    // Replace: create-before-delete unless the program or the provider asks for delete-before-replace.
    if (old) {
      if (plan.deleteFirst) await this.deleteOne(old, "replace");
      else this.replacedOld.add(old);
    }
    await this.create(entry, secretOutputs);
    this.record("replace", entry, plan.diffs, plan.replaces, started);
    return done();
  }

  /** Create through the provider; an initialization failure is recorded (the resource exists) and rethrown. */
  private async create(entry: ResourceState, secretOutputs: string[]): Promise<void> {
    const host = await this.opts.host();
    try {
      const res = await host.create(entry.urn, unwrapMap(entry.inputs));
      entry.id = res.id;
      entry.outputs = wrapSecretKeys(res.outputs, secretOutputs);
    } catch (e) {
      if (e instanceof InitFailedError) this.recordInitFailure(entry, e, secretOutputs);
      throw e;
    }
  }

  private recordInitFailure(entry: ResourceState, e: InitFailedError, secretOutputs: string[]): void {
    entry.id = e.id;
    entry.outputs = wrapSecretKeys({ ...e.properties, [PROVIDER_KEY]: entry.inputs[PROVIDER_KEY] ?? null }, secretOutputs);
    entry.initErrors = e.reasons.length ? e.reasons : [e.message];
    this.registered.set(entry.urn, entry);
    this.printer.line(`    ${entry.name}: created but failed to initialize (recorded in the state with id ${e.id}): ${entry.initErrors.join("; ")}`);
    this.checkpoint();
  }

  private record(op: StepOp, entry: ResourceState, diffs: string[], replaces?: string[], started?: number): void {
    this.registered.set(entry.urn, entry);
    this.summary[op]++;
    this.steps.push({ op, urn: entry.urn, type: entry.type, name: entry.name, diffs, ...(replaces ? { replaces } : {}) });
    if (op !== "same") {
      let detail = diffDetail(diffs);
      if (op === "replace" && replaces?.length) detail += ` (replace forced by ${replaces.join(", ")})`;
      if (started !== undefined) detail += ` ${elapsed(started)}`;
      this.printer.line(stepLine(op, entry.type, entry.name, this.opts.dryRun, detail.trim()));
    }
    this.checkpoint();
  }

  private fail(message: string): void {
    this.errors.push(message);
    this.printer.line(`error: ${message}`);
  }

  /**
   * After the program: deletes what the program no longer declares and the replaced resources (only if
   * the program and every step succeeded, as deleting on a partial program would destroy live resources).
   */
  async finishUp(programOk: boolean): Promise<void> {
    if (!programOk || this.errors.length > 0) return;
    const doomed = this.oldResources.filter((r) => r.pendingDelete || this.replacedOld.has(r) || !this.registered.has(r.urn));
    await this.deleteAll(doomed.filter((r) => !this.deleted.has(r)));
  }

  /** destroy: deletes every resource of the state. */
  async destroy(): Promise<void> {
    await this.deleteAll([...this.oldResources]);
  }

  /** Deletes in reverse state order, after refusing outright if any of them is protected. */
  private async deleteAll(resources: ResourceState[]): Promise<void> {
    const protectedOnes = resources.filter((r) => r.protect && !r.pendingDelete && !this.replacedOld.has(r));
    if (protectedOnes.length > 0) {
      for (const r of protectedOnes) {
        this.fail(`unable to delete ${r.urn}: it is protected. Remove \`protect\` in the program and run up first, then delete it.`);
      }
      return;
    }
    const index = new Map(this.oldResources.map((r, i) => [r, i]));
    const ordered = [...resources].sort((a, b) => (index.get(b) ?? 0) - (index.get(a) ?? 0));
    // deletedWith (as in Pulumi): no Delete call for a resource whose `deletedWith` resource goes in this
    // same run; deleting that one removes it (e.g. deleting a VM releases its address).
    const going = new Set(resources.map((r) => r.urn));
    for (const r of ordered) {
      try {
        await this.deleteOne(r, "delete", r.deletedWith !== undefined && going.has(r.deletedWith));
      } catch (e) {
        this.fail(`${r.type} "${r.name}": delete failed: ${errorText(e)}`);
        return;
      }
    }
  }

  private async deleteOne(r: ResourceState, why: "delete" | "replace", goesWithAnother = false): Promise<void> {
    // A replaced resource's deletion is part of its replace step; only real deletions count and print.
    const isReplaced = why === "replace" || r.pendingDelete || this.replacedOld.has(r);
    const started = Date.now();
    if (!this.opts.dryRun && r.custom && r.id && !goesWithAnother) {
      this.printer.line(isReplaced ? ` -   ${r.type}  ${r.name}  deleting the replaced resource (id ${r.id})...` : progressLine("delete", r.type, r.name));
      const host = await this.opts.host();
      await host.delete(r.urn, r.id, unwrapMap(r.outputs), unwrapMap(r.inputs));
    }
    this.deleted.add(r);
    const detail = goesWithAnother ? `(with ${r.deletedWith?.split("::").pop()})` : this.opts.dryRun ? "" : elapsed(started);
    if (!isReplaced) {
      this.summary.delete++;
      this.steps.push({ op: "delete", urn: r.urn, type: r.type, name: r.name, diffs: [] });
      this.printer.line(stepLine("delete", r.type, r.name, this.opts.dryRun, detail));
    } else if (!this.opts.dryRun) {
      this.printer.line(` -   ${r.type}  ${r.name}  deleted the replaced resource (id ${r.id}) ${detail}`);
    }
    this.checkpoint();
  }

  // ---- refresh ---------------------------------------------------------------------------------------

  /**
   * Reads every custom resource and takes what the provider reports as the truth: outputs (and inputs,
   * when the provider returns them), or removal from the state when it is gone. Prints what drifted.
   * Afterwards the deployment's old state is the refreshed one (for `preview --refresh` / `up --refresh`).
   */
  async refresh(): Promise<void> {
    // Reads run concurrently (as Pulumi's refresh does); results are applied and printed in state order.
    type ReadOutcome = { ok: true; res: Awaited<ReturnType<ProviderHost["read"]>> } | { ok: false; error: unknown } | undefined;
    const outcomes: ReadOutcome[] = await Promise.all(
      this.oldResources.map(async (r): Promise<ReadOutcome> => {
        if (!r.custom || !r.id) return undefined;
        try {
          const host = await this.opts.host();
          return { ok: true, res: await host.read(r.urn, r.id, unwrapMap(r.outputs), unwrapMap(r.inputs)) };
        } catch (error) {
          return { ok: false, error };
        }
      }),
    );
    const refreshed: ResourceState[] = [];
    for (const [i, r] of this.oldResources.entries()) {
      const outcome = outcomes[i];
      if (!outcome) {
        refreshed.push(r);
        continue;
      }
      if (!outcome.ok) {
        this.fail(`${r.type} "${r.name}": refresh failed: ${errorText(outcome.error)}`);
        refreshed.push(r);
        continue;
      }
      const res = outcome.res;
      if (!res.id) {
        this.drift.push({ urn: r.urn, type: r.type, name: r.name, gone: true, properties: [] });
        this.summary.delete++;
        this.steps.push({ op: "delete", urn: r.urn, type: r.type, name: r.name, diffs: [] });
        this.printer.line(stepLine("delete", r.type, r.name, true, "(gone: deleted outside Pulumi)"));
        continue;
      }
      const secretOutputs = [...secretKeysOf(r.outputs), ...secretKeysOf(r.inputs), ...r.additionalSecretOutputs];
      const outputs = wrapSecretKeys(res.outputs, secretOutputs);
      const inputs = res.inputs ? wrapSecretKeys(res.inputs, secretKeysOf(r.inputs)) : r.inputs;
      const changed = [...new Set([...changedKeys(r.outputs, outputs), ...changedKeys(r.inputs, inputs)])].sort();
      const next: ResourceState = { ...r, id: res.id, outputs, inputs };
      refreshed.push(next);
      if (changed.length === 0) {
        this.summary.same++;
        this.steps.push({ op: "same", urn: r.urn, type: r.type, name: r.name, diffs: [] });
        continue;
      }
      // Show the outputs' values when the outputs moved, else the inputs' (a default the read filled in).
      const properties = changed.map((k) => {
        const inOutputs = !deepEqual(r.outputs[k], outputs[k]);
        return {
          name: inOutputs ? k : `${k} (input)`,
          old: renderValue(inOutputs ? r.outputs[k] : r.inputs[k]),
          new: renderValue(inOutputs ? outputs[k] : inputs[k]),
        };
      });
      this.drift.push({ urn: r.urn, type: r.type, name: r.name, gone: false, properties });
      this.summary.update++;
      this.steps.push({ op: "update", urn: r.urn, type: r.type, name: r.name, diffs: changed });
      this.printer.line(stepLine("update", r.type, r.name, true, diffDetail(changed)));
      for (const p of properties) this.printer.line(`        ~ ${p.name}: ${p.old} => ${p.new}`);
    }
    this.oldResources = refreshed;
    this.oldByUrn.clear();
    for (const r of refreshed) if (!r.pendingDelete) this.oldByUrn.set(r.urn, r);
    this.checkpoint();
  }

  /** Starts the next phase (after refresh) with fresh step records. */
  resetSteps(): void {
    this.steps.length = 0;
    Object.assign(this.summary, emptySummary());
  }

  // ---- state -----------------------------------------------------------------------------------------

  /**
   * The state as it stands: this run's resources in completion order (dependencies first), then old
   * resources still alive (not re-registered, or replaced but not yet deleted: marked pendingDelete),
   * in their old order. Registered resources never depend on old unregistered ones, so the order stays valid.
   */
  snapshot(): StateFile {
    const resources: ResourceState[] = [...this.registered.values()];
    for (const r of this.oldResources) {
      if (this.deleted.has(r)) continue;
      if (r.pendingDelete || this.replacedOld.has(r)) resources.push({ ...r, pendingDelete: true });
      else if (!this.registered.has(r.urn)) resources.push(r);
    }
    return { ...this.opts.old, resources };
  }

  private checkpoint(): void {
    if (!this.opts.dryRun) this.opts.checkpoint?.(this.snapshot());
  }
}
