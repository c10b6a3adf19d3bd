/**
 * The step logic of one engine run: what each registration means against the old state (create, update,
 * replace, same), the deletions after the program finishes, refresh and destroy. The provider work itself
 * happens in the real dynamic-provider host.
 *
 * Every rule here mirrors the real engine (pulumi/pulumi, pkg/resource/deploy): the function each one comes
 * from is cited where it is implemented. In short:
 * - RegisterResource is answered only when the step is done, so a resource that depends on another (dependsOn,
 *   parent or input) is registered, and created, only after it: the program's runtime waits for the URNs.
 * - Plans are made one at a time in registration order (the step generator is single-threaded); steps run
 *   on a bounded worker pool (step_executor.go), `parallel` at a time.
 * - Replacement creates the new resource first and marks the old one for deletion only once the create
 *   succeeded (or partly succeeded); delete-before-replace first deletes the dependents that must be
 *   replaced with it.
 * - Deletions (removed resources, replaced ones) happen only when the program succeeded and no step failed,
 *   dependency level by level, each level in parallel (ScheduleDeletes).
 * - After the first failed step no further change is made; the program sees FAIL results (unknown outputs),
 *   as with Pulumi without --continue-on-error.
 * - Every step is checkpointed when it starts (as a pending operation) and when it ends, so an interrupted
 *   run leaves a state that says what was under way.
 */
import * as os from "node:os";
import { RegistrationRequest, RegistrationResult, MonitorHandler, Severity } from "./monitor";
import { Printer, StepOp, Summary, diffDetail, elapsed, emptySummary, progressLine, renderValue, stepLine } from "./output";
import type { ProviderHost } from "./providerHost";
import { DiffResult, InitFailedError } from "./providerTypes";
import { PendingOperation, ResourceState, StateFile } from "./state";
import {
  PROVIDER_KEY,
  PropertyMap,
  PropertyValue,
  UNKNOWN_VALUE,
  changedKeys,
  clone,
  deepEqual,
  inputKeyDiff,
  processIgnoreChanges,
  type KeyDiff,
  secretKeysOf,
  unwrapMap,
  unwrapSecrets,
  wrapSecretKeys,
} from "./values";
import { errorText } from "./errors";

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

/**
 * The provider calls a deployment makes: the real {@link ProviderHost} in a run, an in-process fake in the
 * engine's unit tests (tests/engine/unit), so the step rules can be tested without starting processes.
 */
export type ProviderClient = Pick<ProviderHost, "check" | "diff" | "create" | "read" | "update" | "delete">;

/** What a deployment needs from the run around it. */
export interface DeploymentOptions {
  project: string;
  stack: string;
  dryRun: boolean;
  old: StateFile;
  printer: Printer;
  /** The provider host, started on first use. */
  host: () => Promise<ProviderClient>;
  /** Called after every step starts and completes with the state so far (not in preview). */
  checkpoint?: (state: StateFile) => void;
  /** Provider operations run at once (Pulumi's --parallel); default {@link defaultParallel}. */
  parallel?: number;
  /** `--target`: only these URNs are created, updated, replaced or deleted; the rest stay as they are. */
  targets?: string[];
  /**
   * `--target-dependents`: what depends on a target is targeted too (in an up, a registration one of whose
   * dependencies was targeted; in the deletions, every dependent of a target).
   */
  targetDependents?: boolean;
  /** `--replace`: these URNs are replaced whatever their diff says. */
  replaceTargets?: string[];
}

/**
 * Pulumi's default degree of parallelism: `PULUMI_PARALLEL` when set to a positive number, else four per
 * CPU (pkg/cmd/pulumi/operations/up.go defaultParallel: GOMAXPROCS * 4).
 */
export function defaultParallel(env: NodeJS.ProcessEnv = process.env): number {
  const fromEnv = Number(env.PULUMI_PARALLEL);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  return os.availableParallelism() * 4;
}

/** The dynamic provider resource types: `pulumi-nodejs:dynamic:Resource` and `pulumi-nodejs:dynamic/<module>:<Type>`. */
export function isDynamicType(type: string): boolean {
  return /^pulumi-nodejs:dynamic(\/[^:]+)?:[^:]+$/.test(type);
}

const STACK_TYPE = "pulumi:pulumi:Stack";
/** The diff key the real engine uses for init errors in replaceOnChanges (step_generator.go initErrorSpecialKey). */
const INIT_ERROR_KEY = "#initerror";

/**
 * A bounded worker pool: at most `size` tasks run at once, the rest wait in order. Pulumi's step executor
 * starts one worker per degree of parallelism (step_executor.go newStepExecutor); provider calls are the
 * steps it bounds.
 */
class WorkerPool {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

/**
 * A step that was queued when the deployment stopped (a step failed, or the run was cancelled): it is never
 * applied. The real step executor cancels its context on the first failed step (step_executor.go
 * cancelDueToError) and checks it before every step of a chain (executeChain: `case <-se.ctx.Done()`), so
 * steps waiting for a worker are dropped, while those already running finish.
 */
class StepNotRun extends Error {}

/** What one custom resource's registration will do. */
interface CustomPlan {
  op: StepOp | "skip";
  /** The new state entry (inputs checked; id and outputs filled in by the step). */
  entry: ResourceState;
  old?: ResourceState;
  /** Output names to store as secrets. */
  secretOutputs: string[];
  /** Changed input names, for display (the real engine's `[diff: ...]`: old inputs against new, see inputKeyDiff). */
  diffs: KeyDiff;
  /** The properties that force a replacement. */
  replaces: string[];
  deleteFirst: boolean;
  /** Delete-before-replace: old dependents that must be deleted (and are re-created when they register). */
  dependents: ResourceState[];
  /** The old resource was already deleted in this run (a dependent of a delete-before-replace). */
  recreating: boolean;
}

/**
 * Pulumi's property paths (`a.b`, `a[0]`, `a["b"]`, `a[*]`, `*`), parsed as the engine does
 * (sdk/go/common/resource/properties_path.go parsePropertyPath, not strict): a name runs to the next `.` or
 * `[`; `["..."]` is a key (`\"` inside is a quote); `[*]` the wildcard; `[n]` an index. A path that does not
 * parse is an error with the engine's message (step_generator.go applyReplaceOnChanges returns it).
 */
function parsePath(path: string): Array<string | number> {
  const parts: Array<string | number> = [];
  if (path.startsWith(".")) throw new Error("expected property path to start with a name or index");
  let rest = path;
  while (rest.length > 0) {
    if (rest[0] === ".") {
      rest = rest.slice(1);
      if (rest.length === 0) throw new Error("expected property path to end with a name or index");
    } else if (rest[0] === "[" && rest[1] === '"') {
      let key = "";
      let i = 2;
      for (;;) {
        if (i >= rest.length) throw new Error("missing closing quote in property name");
        if (rest[i] === '"') break;
        if (rest[i] === "\\" && rest[i + 1] === '"') {
          key += '"';
          i += 2;
        } else key += rest[i++];
      }
      if (rest[i + 1] !== "]") throw new Error("missing closing bracket in property access");
      parts.push(key);
      rest = rest.slice(i + 2);
    } else if (rest[0] === "[") {
      const close = rest.indexOf("]");
      if (close === -1) throw new Error("missing closing bracket in array index");
      const segment = rest.slice(1, close);
      // strconv.ParseInt(segment, 10, 0): an optional sign and decimal digits
      if (segment !== "*" && !/^[+-]?\d+$/.test(segment)) throw new Error(`invalid array index: strconv.ParseInt: parsing "${segment}": invalid syntax`);
      parts.push(segment === "*" ? "*" : Number(segment));
      rest = rest.slice(close + 1);
    } else {
      const end = rest.search(/[.[]/);
      const name = end === -1 ? rest : rest.slice(0, end);
      parts.push(name);
      rest = rest.slice(name.length);
    }
  }
  return parts;
}

/**
 * True when `path` is `other` or a prefix of it (properties_path.go PropertyPath.Contains): `*` matches any key
 * or index at its level, an index only that index, a key only that key.
 */
function pathContains(path: Array<string | number>, other: Array<string | number>): boolean {
  if (other.length < path.length) return false;
  return path.every((p, i) => p === "*" || p === other[i]);
}

/**
 * `prefix` extended by an object key as Pulumi writes property paths (properties_path.go PropertyPath.String):
 * a key holding `.`, `[`, `]` or `"` is quoted (`obj["a.b"]`), so the path parses back to the same keys.
 */
function pathWithKey(prefix: string, key: string): string {
  if (/[.[\]"]/.test(key)) return `${prefix}[${JSON.stringify(key)}]`;
  return prefix ? `${prefix}.${key}` : key;
}

/**
 * The changed leaf paths between two values (what Pulumi's NewDetailedDiffFromObjectDiff lists when it
 * diffs inputs itself): nested objects by key, arrays by index, a whole value when its kind changes.
 */
function diffPaths(olds: PropertyValue | undefined, news: PropertyValue | undefined, prefix: string, out: string[]): void {
  if (deepEqual(olds, news)) return;
  const o = olds === undefined ? undefined : unwrapSecrets(olds);
  const n = news === undefined ? undefined : unwrapSecrets(news);
  const isObj = (v: PropertyValue | undefined): v is PropertyMap => typeof v === "object" && v !== null && !Array.isArray(v);
  if (isObj(o) && isObj(n)) {
    for (const k of new Set([...Object.keys(o), ...Object.keys(n)])) diffPaths(o[k], n[k], pathWithKey(prefix, k), out);
  } else if (Array.isArray(o) && Array.isArray(n)) {
    for (let i = 0; i < Math.max(o.length, n.length); i++) diffPaths(o[i], n[i], `${prefix}[${i}]`, out);
  } else {
    out.push(prefix);
  }
}

/** What the engine makes of a Diff (see Deployment.diff): the provider's answer plus the keys it can see. */
type EngineDiff = DiffResult & { changes: boolean; changedKeys: string[]; paths: string[] };

/**
 * step_generator.go applyReplaceOnChanges: a replaceOnChanges path turns a change into a replacement only for
 * the keys the diff reports as changed (changed keys, detailed-diff paths), and for init errors under
 * "#initerror" (which also count as a change).
 */
function applyReplaceOnChanges(d: EngineDiff, replaceOnChanges: string[], hasInitErrors: boolean): { changes: boolean; replaceKeys: string[] } {
  const replaceKeys = new Set(d.replaces);
  let changes = d.changes;
  if (changes || hasInitErrors) {
    const paths = replaceOnChanges.map(parsePath);
    for (const k of [...d.changedKeys, ...d.paths]) {
      const parsed = parsePath(k);
      if (paths.some((p) => pathContains(p, parsed))) replaceKeys.add(String(parsed[0]));
    }
    if (hasInitErrors && paths.some((p) => pathContains(p, [INIT_ERROR_KEY]))) {
      replaceKeys.add(INIT_ERROR_KEY);
      changes = true;
    }
  }
  return { changes, replaceKeys: [...replaceKeys] };
}

/**
 * Every URN a resource depends on: parent, dependencies, property dependencies, deletedWith (state.go
 * GetAllDependencies). Only ever asked whether it holds a given resource's URN, so an empty entry (the proto's
 * unset string) would be harmless; none is added.
 */
function allDependencies(r: Pick<ResourceState, "dependencies" | "parent" | "propertyDependencies" | "deletedWith">): Set<string> {
  const deps = new Set<string>(r.dependencies);
  if (r.parent) deps.add(r.parent);
  for (const urns of Object.values(r.propertyDependencies ?? {})) for (const u of urns) deps.add(u);
  if (r.deletedWith) deps.add(r.deletedWith);
  return deps;
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
  /** Old resources replaced create-before-delete whose replacement exists: deleted at the end of the run. */
  private readonly replacedOld = new Set<ResourceState>();
  private readonly deleted = new Set<ResourceState>();
  /** Old URNs taken over by a registration through an alias (old URN -> new URN). */
  private readonly aliased = new Map<string, string>();
  /** Dependents deleted ahead of a delete-before-replace: re-created when they register (sg.deletes). */
  private readonly deletedForReplace = new Map<string, ResourceState>();
  /**
   * Old resources deleted ahead of a delete-before-replace in this run: kept in the state as `pendingReplacement`
   * until their replacement is created (step.go DeleteStep.Apply sets PendingReplacement once the delete
   * succeeded; backend/snapshot.go drops the record when the replacement's create ends).
   */
  private readonly pendingReplaced = new Set<ResourceState>();
  /** URNs being replaced in this run (sg.replaces): resources deleted with them are replaced too. */
  private readonly replacing = new Set<string>();
  /** Untargeted registrations with no old state: not created (sg.skippedCreates). */
  private readonly skippedCreates = new Set<string>();
  /** Operations under way, written to the state as `pending_operations`. */
  private readonly pendingOps = new Set<PendingOperation>();
  /** Pending creates of earlier runs: kept until a refresh clears them (backend/snapshot.go snap()). */
  private basePendingCreates: PendingOperation[];
  private oldResources: ResourceState[];
  /** Serializes planning (see planCustom). */
  private planQueue: Promise<void> = Promise.resolve();
  private readonly pool: WorkerPool;
  private readonly targets?: Set<string>;
  /**
   * The targets plus the registrations targeted through --target-dependents (step_generator.go targetsActual:
   * a targeted registration is added, so what depends on it is targeted in turn).
   */
  private readonly targetsActual = new Set<string>();
  private readonly replaceTargets: Set<string>;
  /** Set by {@link cancel}: no new step starts. */
  private cancelled = false;
  /** A step failed (set as it fails, before its error is recorded): queued steps are not run (see StepNotRun). */
  private stepFailed = false;

  constructor(private readonly opts: DeploymentOptions) {
    this.oldResources = opts.old.resources;
    for (const r of this.oldResources) if (!r.pendingDelete) this.oldByUrn.set(r.urn, r);
    this.pool = new WorkerPool(Math.max(1, opts.parallel ?? defaultParallel()));
    this.targets = opts.targets?.length ? new Set(opts.targets) : undefined;
    for (const t of this.targets ?? []) this.targetsActual.add(t);
    this.replaceTargets = new Set(opts.replaceTargets ?? []);
    this.basePendingCreates = (opts.old.pending_operations ?? []).filter((op) => op.type === "creating");
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

  /**
   * Stops starting new steps (the first SIGINT/SIGTERM, as Pulumi's cancellation: steps under way finish,
   * nothing new starts, nothing is deleted, the run fails).
   */
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.fail(`${this.opts.dryRun ? "preview" : "update"} canceled`);
  }

  // ---- checks before the run ------------------------------------------------------------------------

  /**
   * Pulumi's warnings and refusals before the program runs (deploy/deployment_executor.go Execute):
   * `--replace` URNs must exist in the state (checkTargets), and an update or destroy over a state with
   * operations an interrupted run left pending warns about them (printPendingOperationsWarning; not in
   * preview, nor when refreshing first, as refresh resolves them). Returns false when the run must stop.
   */
  preflight(refreshFirst: boolean): boolean {
    for (const urn of this.replaceTargets) {
      if (!this.oldByUrn.has(urn)) this.fail(`${urn}: a --replace target could not be found in the stack`);
    }
    const pending = this.opts.old.pending_operations ?? [];
    if (pending.length > 0 && !this.opts.dryRun && !refreshFirst) {
      const lines = pending.map((op) => `  * ${op.resource.urn}, interrupted while ${op.type}`);
      this.printer.line(
        [
          `warning: Attempting to deploy or update resources with ${pending.length} pending operations from previous deployment.`,
          ...lines,
          "These resources are in an unknown state because the engine was interrupted while waiting for changes to " +
            "these resources to complete. You should confirm whether or not the operations listed completed " +
            "successfully by checking the state of the resources in the cloud.",
          "",
          "Once you have confirmed the status of the interrupted operations, you can repair your stack using " +
            "`refresh`, which will refresh the state from the provider and clear the pending operations if there are " +
            "any (pending CREATE operations are cleared only with `refresh --clear-pending-creates`).",
        ].join("\n"),
      );
    }
    return this.errors.length === 0;
  }

  /** `--target` URNs must exist in the state or the program (deployment_executor.go checkTargets, after the program). */
  private checkTargets(): boolean {
    let ok = true;
    for (const urn of this.targets ?? []) {
      if (!this.oldByUrn.has(urn) && !this.seen.has(urn)) {
        this.fail(`Target '${urn}' could not be found in the stack.`);
        ok = false;
      }
    }
    return ok;
  }

  /**
   * Whether a registration is targeted (step_generator.go continueStepsFromImport isTargeted and
   * isTargetedForUpdate): with no --target everything is; the stack always is; else a URN in the list, or,
   * with --target-dependents, one of whose dependencies (parent, dependencies, property dependencies,
   * deletedWith) was targeted earlier in the run. A targeted registration joins `targetsActual`.
   */
  private isTargeted(urn: string, deps: Set<string> = new Set()): boolean {
    if (!this.targets || urn === this.stackUrn()) return true;
    const targeted = this.targets.has(urn) || (this.opts.targetDependents === true && [...deps].some((d) => this.targetsActual.has(d)));
    if (targeted) this.targetsActual.add(urn);
    return targeted;
  }

  /**
   * The old resources a --target deletion may delete (step_generator.go determineAllowedResourcesToDeleteFromTargets
   * with getTargetDependents): the targets and everything that depends on them, transitively, through a parent,
   * a dependency, a property dependency or deletedWith (graph/dependency_graph.go DependingOn, children
   * included). The state is in dependency order, so one pass finds them all.
   */
  private targetClosure(): Set<string> {
    const closure = new Set<string>();
    for (const r of this.oldResources) {
      if (this.targets?.has(r.urn) || [...allDependencies(r)].some((u) => closure.has(u))) closure.add(r.urn);
    }
    return closure;
  }

  /**
   * The deletions of a run with --target: only those in {@link targetClosure}; one whose URN is not itself in the
   * --target list is refused (diag 2014, the real engine's text) unless --target-dependents, and then nothing is
   * deleted (step_generator.go GenerateDeletes: "We don't want to delete something the user didn't ask for").
   * A preview reports every refusal and still shows the deletions ("In preview we keep going"). Returns the
   * resources to delete, or undefined when the run must stop.
   */
  private async targetedDeletes(candidates: ResourceState[]): Promise<ResourceState[] | undefined> {
    const allowed = this.targetClosure();
    // step_generator.go determineAllowedResourcesToDeleteFromTargets also runs calculateDependentReplacements for
    // each of them: every unregistered dependent's Diff is asked, with the inputs from the deleted resource unknown,
    // and a Diff that fails fails the run before anything is deleted. (Its answers add nothing here: the closure
    // already holds every dependent.)
    for (const r of this.oldResources) {
      if (!allowed.has(r.urn) || r.pendingDelete) continue;
      try {
        await this.dependentReplacements(r);
      } catch (e) {
        this.fail(`${r.type} "${r.name}": ${errorText(e)}`);
        return undefined;
      }
    }
    const deletes = candidates.filter((r) => allowed.has(r.urn));
    if (this.opts.targetDependents) return deletes;
    const unspecified = [...new Set(deletes.filter((r) => !this.targets?.has(r.urn)).map((r) => r.urn))];
    for (const urn of unspecified) {
      this.fail(
        `Resource '${urn}' will be destroyed but was not specified in --target list.\n` +
          "Either include resource in --target list or pass --target-dependents to proceed.",
      );
    }
    return unspecified.length > 0 && !this.opts.dryRun ? undefined : deletes;
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
      // Refused rather than ignored: a change of the trigger would replace the resource under real Pulumi.
      if (req.replacementTrigger) throw new Error(`${req.name}: replacementTrigger is not supported by the local engine`);
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

  /**
   * The old resource of a registration: by URN first, then by its aliases (step_generator.go
   * getOldResource). An old resource found through an alias is taken over, not deleted.
   */
  private findOld(urn: string, aliases: string[]): ResourceState | undefined {
    const direct = this.oldByUrn.get(urn);
    if (direct) return direct;
    for (const alias of aliases) {
      const old = this.oldByUrn.get(alias);
      if (!old || alias === urn) continue;
      if (this.seen.has(alias) && alias !== urn) {
        throw new Error(`Duplicate resource URN '${alias}'; try giving it a unique name (it is also an alias of ${urn})`);
      }
      const claimedBy = this.aliased.get(alias);
      if (claimedBy) throw new Error(`${urn} and ${claimedBy} both claim the old resource ${alias} through an alias`);
      this.aliased.set(alias, urn);
      return old;
    }
    return undefined;
  }

  private registerComponent(urn: string, req: RegistrationRequest): RegistrationResult {
    const old = this.findOld(urn, req.aliases);
    // Only to pass targeting on to its children and dependents (--target-dependents).
    this.isTargeted(urn, allDependencies(req));
    const entry: ResourceState = {
      urn,
      type: req.type,
      name: req.name,
      custom: false,
      parent: req.parent,
      inputs: req.object,
      outputs: old?.outputs ?? {},
      dependencies: req.dependencies,
      propertyDependencies: req.propertyDependencies,
      protect: req.protect,
      additionalSecretOutputs: req.additionalSecretOutputs,
      deleteBeforeReplace: req.deleteBeforeReplace ?? false,
      ...(req.deletedWith ? { deletedWith: req.deletedWith } : {}),
    };
    this.record(old ? "same" : "create", entry, []);
    return { urn, id: "", object: {}, failed: false };
  }

  /**
   * An untargeted registration keeps its old state, and with it its old dependencies: those the program has not
   * registered (yet) are kept as they are too, ahead of it in the state, and so are not deleted even when
   * targeted (step_generator.go continueStepsFromImport, `!isTargeted` getDependencySteps: an untargeted same
   * step for each such dependency, depth first; GenerateDeletes then skips them as isOperatedOn). Pending
   * deletes are left to the deletions, as there.
   */
  private keepOldDependencies(old: ResourceState): void {
    for (const urn of allDependencies(old)) {
      if (this.seen.has(urn) || this.registered.has(urn) || this.deletedForReplace.has(urn) || this.aliased.has(urn)) continue;
      const dep = this.oldByUrn.get(urn);
      if (!dep) continue;
      this.keepOldDependencies(dep);
      if (!this.registered.has(urn)) this.registered.set(urn, structuredClone(dep));
    }
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

  private async check(urn: string, olds: PropertyMap, news: PropertyMap): Promise<PropertyMap> {
    const checked = await (await this.opts.host()).check(urn, unwrapMap(olds), unwrapMap(news));
    if (checked.failures.length > 0) {
      // (a failure without a property is the resource's own, as the real engine's GetResourceInvalidError prints it)
      throw new Error(`invalid inputs: ${checked.failures.map((f) => (f.property ? `${f.property}: ${f.reason}` : f.reason)).join("; ")}`);
    }
    return checked.inputs;
  }

  /**
   * The provider's Diff, as the engine sees it (step_generator.go diffResource): when the provider has no
   * answer (DIFF_UNKNOWN: no diff method, or `changes` neither true nor false) the engine diffs the inputs
   * itself, and only then knows which keys changed. The Node dynamic-provider host never sends changed keys
   * or a detailed diff, so with a provider that answers, `changedKeys` and `paths` are empty.
   */
  private async diff(
    r: { urn: string; id?: string; outputs: PropertyMap; inputs: PropertyMap },
    newInputs: PropertyMap,
    ignoreChanges: string[] = [],
  ): Promise<EngineDiff> {
    const d = await (await this.opts.host()).diff(r.urn, r.id ?? "", unwrapMap(r.outputs), unwrapMap(newInputs), unwrapMap(r.inputs));
    if (d.changes !== undefined) return { ...d, changes: d.changes, changedKeys: [], paths: [] };
    // processIgnoreChanges: ignored paths take the old value before the engine's own comparison (the real engine's
    // info about path errors is printed once, by makePlan, not again here).
    const compared = processIgnoreChanges(newInputs, r.inputs, ignoreChanges).inputs;
    const keys = changedKeys(r.inputs, compared, []);
    const paths: string[] = [];
    for (const k of keys) diffPaths(r.inputs[k], compared[k], k, paths);
    return { ...d, changes: keys.length > 0, changedKeys: keys, paths };
  }

  private async makePlan(urn: string, req: RegistrationRequest): Promise<CustomPlan> {
    const old = this.findOld(urn, req.aliases);
    // Secrecy is decided by what the program sent: a property that held a secret stays secret.
    const secretInputs = secretKeysOf(req.object);
    const entry: ResourceState = {
      urn,
      type: req.type,
      name: req.name,
      custom: true,
      parent: req.parent,
      inputs: {},
      outputs: {},
      dependencies: req.dependencies,
      propertyDependencies: req.propertyDependencies,
      protect: req.protect,
      additionalSecretOutputs: req.additionalSecretOutputs,
      deleteBeforeReplace: req.deleteBeforeReplace ?? false,
      ...(req.deletedWith ? { deletedWith: req.deletedWith } : {}),
      ...(req.retainOnDelete ? { retainOnDelete: true } : {}),
      ...(req.ignoreChanges.length ? { ignoreChanges: req.ignoreChanges } : {}),
      ...(req.replaceOnChanges.length ? { replaceOnChanges: req.replaceOnChanges } : {}),
    };
    const plan: CustomPlan = {
      op: "create",
      entry,
      old,
      secretOutputs: [...secretInputs, ...req.additionalSecretOutputs],
      diffs: { adds: [], deletes: [], updates: [] },
      replaces: [],
      deleteFirst: false,
      dependents: [],
      recreating: false,
    };

    // --target (step_generator.go continueStepsFromImport): an untargeted resource keeps its old state as it
    // is (no Check, no Diff); one that does not exist yet is not created.
    if (!this.isTargeted(urn, allDependencies(entry))) {
      if (old && this.deletedForReplace.has(urn)) {
        // Deleted ahead of a targeted delete-before-replace: it must be re-created, targeted or not. The real
        // engine handles `recreating` (case 1) before the untargeted same step, with Check stubbed to return the
        // old inputs (continueStepsFromImport: `if !isTargeted { checkInputs = ... oldInputs }`).
        entry.inputs = clone(old.inputs);
        plan.op = "replace";
        plan.recreating = true;
        this.replacing.add(urn);
        return plan;
      }
      if (old) {
        plan.op = "same";
        Object.assign(entry, structuredClone(old), { urn });
        this.keepOldDependencies(old);
        return plan;
      }
      this.skippedCreates.add(urn);
      plan.op = "skip";
      return plan;
    }
    // A targeted resource that needs an untargeted one that was not created (validateSteps).
    for (const dep of allDependencies(entry)) {
      if (this.skippedCreates.has(dep)) {
        throw new Error(
          `Resource '${urn}' will be created but its dependency '${dep}' was not specified in the target list (--target).`,
        );
      }
    }

    const recreating = this.deletedForReplace.has(urn);
    const replaceTarget = this.replaceTargets.has(urn);
    // ignoreChanges (step_generator.go processIgnoreChanges, properties_path.go Reset, see values.ts): the old value
    // replaces the new one before Check, so the property neither shows in the diff nor reaches the provider. Reset's
    // rules are the real engine's, `*` included (it also deletes every new input the old inputs lack).
    let news = req.object;
    if (old && req.ignoreChanges.length) {
      const ignored = processIgnoreChanges(req.object, old.inputs, req.ignoreChanges);
      news = ignored.inputs;
      if (ignored.invalid.length) {
        this.log("info", `cannot ignore changes in added or removed elements of the path: ${JSON.stringify(ignored.invalid.join(", "))}`, urn);
      }
    }
    // A resource created afresh (new, re-created after a delete-before-replace, or --replace) is checked
    // without olds, from the program's own inputs (continueStepsFromImport).
    const fresh = !old || recreating || replaceTarget;
    // A value kept from a secret old input stays secret (Reset copies it with its secret marker).
    const keptSecret = fresh ? [] : secretKeysOf(news).filter((k) => !secretInputs.includes(k));
    plan.secretOutputs.push(...keptSecret);
    entry.inputs = wrapSecretKeys(await this.check(urn, fresh ? {} : old.inputs, fresh ? req.object : news), [...secretInputs, ...keptSecret]);
    if (!old) return plan;
    if (recreating) {
      // Its old resource was deleted ahead of a delete-before-replace: this is the second half of a replace.
      plan.op = "replace";
      plan.recreating = true;
      plan.replaces = [];
      this.replacing.add(urn);
      return plan;
    }

    // For display, what the real engine lists: the old inputs against the new ones (after ignoreChanges), internal
    // keys skipped. An update that only reverts drift (the inputs did not change) shows no [diff: ...] at all.
    plan.diffs = inputKeyDiff(old.inputs, entry.inputs);

    // step_generator.go diff(): --replace blames the id; a resource deleted with one being replaced is
    // replaced too; otherwise the provider decides.
    let d: EngineDiff;
    if (replaceTarget) d = { changes: true, replaces: ["id"], deleteBeforeReplace: false, changedKeys: [], paths: [] };
    else if (entry.deletedWith && this.replacing.has(entry.deletedWith)) {
      d = { changes: true, replaces: ["deletedWith"], deleteBeforeReplace: false, changedKeys: [], paths: [] };
    } else d = await this.diff(old, entry.inputs);

    const hasInitErrors = (old.initErrors?.length ?? 0) > 0;
    const { changes, replaceKeys } = applyReplaceOnChanges(d, req.replaceOnChanges, hasInitErrors);
    plan.replaces = replaceKeys;
    // continueStepsFromDiff: changes with replace keys replace, other changes update, and a resource that
    // failed to initialize is updated even without changes. One deleted by an earlier run's delete-before-replace
    // whose create did not succeed is replaced whatever the Diff said (`|| old.PendingReplacement`).
    const pendingReplacement = old.pendingReplacement === true;
    if (pendingReplacement) this.printer.line(`    ${req.name}: deleted by an earlier run ahead of its replacement (pending replacement): replaced now`);
    plan.op = changes || pendingReplacement ? (replaceKeys.length > 0 || pendingReplacement ? "replace" : "update") : hasInitErrors ? "update" : "same";
    if (plan.op !== "replace") return plan;

    // Replacing needs old and new both protected to be refused: unprotecting and replacing in one run is allowed.
    if (req.protect && old.protect) {
      const message =
        `unable to replace resource ${urn} (${plan.replaces.join(", ")} changed) as it is currently marked for protection. ` +
        "To unprotect the resource, remove the `protect` flag from the resource in your Pulumi program and run `up`";
      // Preview reports the error and still shows the replacement; up stops before anything changes.
      if (!this.opts.dryRun) throw new Error(message);
      this.fail(message);
    }
    this.replacing.add(urn);
    // The replacement is a new resource: Check again with no olds and the program's raw inputs (ignoreChanges
    // does not apply to it), except for --replace whose inputs were already checked that way.
    if (!replaceTarget) entry.inputs = wrapSecretKeys(await this.check(urn, {}, req.object), secretInputs);
    // The program's deleteBeforeReplace, when set (true or false), overrides the provider's.
    plan.deleteFirst = req.deleteBeforeReplace ?? d.deleteBeforeReplace;
    if (plan.deleteFirst) plan.dependents = await this.dependentReplacements(old);
    return plan;
  }

  /**
   * Delete-before-replace: the old resources that must go before `root` is deleted, dependents first
   * (step_generator.go calculateDependentReplacements and findDependentCascadeReplacements). A dependent is
   * replaced when it is deleted with a replaced resource, or when the provider's Diff, with every input
   * that came from a replaced resource made unknown, asks for a replacement. Resources already registered in
   * this run cannot depend on the root and are skipped.
   */
  private async dependentReplacements(root: ResourceState): Promise<ResourceState[]> {
    const replaceSet = new Set([root.urn]);
    const out: ResourceState[] = [];
    const index = this.oldResources.indexOf(root);
    for (const r of this.oldResources.slice(index + 1)) {
      if (r.pendingDelete || this.seen.has(r.urn) || this.deleted.has(r) || this.deletedForReplace.has(r.urn)) continue;
      const deps = allDependencies(r);
      if (![...deps].some((u) => replaceSet.has(u))) continue;
      let replace = false;
      if (r.deletedWith && replaceSet.has(r.deletedWith)) replace = true;
      else if (r.custom && r.id) {
        const inputs: PropertyMap = {};
        let touched = false;
        for (const [k, v] of Object.entries(r.inputs)) {
          const fromReplaced = (r.propertyDependencies?.[k] ?? []).some((u) => replaceSet.has(u));
          inputs[k] = fromReplaced ? UNKNOWN_VALUE : v;
          touched ||= fromReplaced;
        }
        if (touched) replace = applyReplaceOnChanges(await this.diff(r, inputs, r.ignoreChanges), r.replaceOnChanges ?? [], false).replaceKeys.length > 0;
      }
      if (!replace) continue;
      if (r.protect) {
        throw new Error(
          `unable to replace resource ${r.urn} as part of replacing ${root.urn} as it is currently marked for protection. ` +
            "To unprotect the resource, remove the `protect` flag from the resource in your Pulumi program and run `up`",
        );
      }
      replaceSet.add(r.urn);
      out.push(r);
    }
    return out;
  }

  private async registerCustom(urn: string, req: RegistrationRequest): Promise<RegistrationResult> {
    const plan = await this.planCustom(urn, req);
    if (!plan) return { urn, id: "", object: {}, failed: true }; // this plan or an earlier one failed
    const { op, entry, old, secretOutputs } = plan;
    const done = (): RegistrationResult => ({ urn, id: entry.id ?? "", object: entry.outputs, failed: false });

    if (op === "skip") {
      // Not targeted and not created: the program gets no id (unknown outputs), the state no entry.
      this.printer.line(stepLine("same", entry.type, entry.name, this.opts.dryRun, "(not targeted: not created)"));
      return { urn, id: "", object: {}, failed: false };
    }
    if (op === "same" && old) {
      entry.id = old.id;
      entry.outputs = wrapSecretKeys(old.outputs, secretOutputs);
      this.record("same", entry, []);
      return done();
    }
    if (this.opts.dryRun) {
      // Preview: the outputs are the inputs; everything else is unknown to the program until up.
      for (const d of plan.dependents) this.markDeletedForReplace(d);
      entry.id = op === "update" ? old?.id : undefined;
      entry.outputs = entry.inputs;
      this.record(op, entry, plan.diffs, op === "replace" ? plan.replaces : undefined);
      return done();
    }
    if (this.cancelled) return { urn, id: "", object: {}, failed: true };
    try {
      return await this.applyCustom(plan, done);
    } catch (e) {
      if (e instanceof StepNotRun) return { urn, id: "", object: {}, failed: true };
      throw e;
    }
  }

  /** Runs one step on a worker, unless the deployment stopped while it waited for one (see StepNotRun). */
  private runStep<T>(step: () => Promise<T>): Promise<T> {
    return this.pool.run(async () => {
      if (this.stepFailed || this.errors.length > 0 || this.cancelled) throw new StepNotRun();
      try {
        return await step();
      } catch (e) {
        // Before the worker is handed on: the error reaches `errors` only a few awaits later.
        this.stepFailed = true;
        throw e;
      }
    });
  }

  /** The steps of a planned create, update or replace (each on a worker: see runStep). */
  private async applyCustom(plan: CustomPlan, done: () => RegistrationResult): Promise<RegistrationResult> {
    const { op, entry, old, secretOutputs } = plan;
    // Provider calls can take minutes (a VM boots): say what is under way, then what it took.
    const started = Date.now();
    if (op === "create") {
      await this.runStep(() => this.create(entry, secretOutputs, "create"));
      this.record("create", entry, [], undefined, started);
      return done();
    }
    if (op === "update" && old) {
      await this.runStep(() => this.update(entry, old, secretOutputs));
      this.record("update", entry, plan.diffs, undefined, started);
      return done();
    }
    // Replace.
    if (old && !plan.recreating) {
      if (plan.deleteFirst) {
        // Delete-before-replace (one chain, in order): dependents that must be replaced, then the resource.
        // A resource deleted with another one of the chain gets no Delete call of its own: the real engine marks
        // the whole chain in sg.deletes before any of it runs, and DeleteStep.Apply skips a resource whose
        // deletedWith is there (step_generator.go calculateDependentReplacements, step.go isDeletedWith).
        // One already pending replacement (deleted by an earlier run) is not deleted again, nor in sg.deletes.
        const chain = new Set([...(old.pendingReplacement ? [] : [old.urn]), ...plan.dependents.map((d) => d.urn)]);
        const goesWith = (r: ResourceState): boolean => r.deletedWith !== undefined && chain.has(r.deletedWith);
        for (const d of [...plan.dependents].reverse()) {
          await this.runStep(() => this.deleteOne(d, "replace", goesWith(d), true));
          this.markDeletedForReplace(d);
        }
        if (!old.pendingReplacement) await this.runStep(() => this.deleteOne(old, "replace", goesWith(old), true));
      }
    }
    const createBeforeDelete = old && !plan.deleteFirst && !plan.recreating ? old : undefined;
    await this.runStep(() => this.create(entry, secretOutputs, "replace", createBeforeDelete));
    this.record("replace", entry, plan.diffs, plan.replaces, started);
    return done();
  }

  private markDeletedForReplace(r: ResourceState): void {
    this.deletedForReplace.set(r.urn, r);
  }

  /** Starts a pending operation: written to the state before the provider is called (snapshot.go BeginMutation). */
  private begin(type: PendingOperation["type"], r: ResourceState): PendingOperation {
    const op: PendingOperation = { type, resource: { urn: r.urn, type: r.type, ...(r.id ? { id: r.id } : {}), inputs: r.inputs } };
    this.pendingOps.add(op);
    this.checkpoint();
    return op;
  }

  private end(op: PendingOperation): void {
    this.pendingOps.delete(op);
  }

  /**
   * Create through the provider (step.go CreateStep.Apply). An initialization failure is a partial success:
   * the resource exists, with exactly the outputs the error carried. For a create-before-delete replacement
   * (`replacing`), the old resource is marked for deletion only once the create succeeded or partly
   * succeeded; a create that failed outright leaves the old one as the live resource.
   */
  private async create(entry: ResourceState, secretOutputs: string[], shownAs: StepOp, replacing?: ResourceState): Promise<void> {
    this.printer.line(progressLine(shownAs, entry.type, entry.name));
    const host = await this.opts.host();
    const op = this.begin("creating", entry);
    try {
      const res = await host.create(entry.urn, unwrapMap(entry.inputs));
      entry.id = res.id;
      entry.outputs = wrapSecretKeys(res.outputs, secretOutputs);
      if (replacing) this.replacedOld.add(replacing);
    } catch (e) {
      if (e instanceof InitFailedError) {
        if (replacing) this.replacedOld.add(replacing);
        this.recordInitFailure(entry, e, secretOutputs, op);
      }
      throw e;
    } finally {
      this.end(op);
    }
  }

  /**
   * Update through the provider (step.go UpdateStep.Apply). After an initialization failure the state keeps
   * the error's outputs and the OLD inputs: the resource was not updated with the new ones
   * (engine/update.go OnResourceStepPost, pulumi/pulumi#2011).
   */
  private async update(entry: ResourceState, old: ResourceState, secretOutputs: string[]): Promise<void> {
    this.printer.line(progressLine("update", entry.type, entry.name));
    entry.id = old.id;
    const host = await this.opts.host();
    const op = this.begin("updating", entry);
    try {
      const outs = await host.update(entry.urn, old.id ?? "", unwrapMap(old.outputs), unwrapMap(entry.inputs), unwrapMap(old.inputs));
      entry.outputs = wrapSecretKeys(outs, secretOutputs);
    } catch (e) {
      if (e instanceof InitFailedError) {
        entry.inputs = old.inputs;
        this.recordInitFailure(entry, e, secretOutputs, op);
      }
      throw e;
    } finally {
      this.end(op);
    }
  }

  /** The error's own properties become the outputs, as the real engine stores them (nothing added). */
  private recordInitFailure(entry: ResourceState, e: InitFailedError, secretOutputs: string[], op: PendingOperation): void {
    entry.id = e.id;
    entry.outputs = wrapSecretKeys(e.properties, secretOutputs);
    entry.initErrors = e.reasons.length ? e.reasons : [e.message];
    this.registered.set(entry.urn, entry);
    this.printer.line(`    ${entry.name}: created but failed to initialize (recorded in the state with id ${e.id}): ${entry.initErrors.join("; ")}`);
    this.end(op);
    this.checkpoint();
  }

  private record(op: StepOp, entry: ResourceState, diffs: string[] | KeyDiff, replaces?: string[], started?: number): void {
    this.registered.set(entry.urn, entry);
    this.summary[op]++;
    const keys = Array.isArray(diffs) ? diffs : [...diffs.adds, ...diffs.deletes, ...diffs.updates].sort();
    this.steps.push({ op, urn: entry.urn, type: entry.type, name: entry.name, diffs: keys, ...(replaces ? { replaces } : {}) });
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
   * With --target only the targets and their dependents are candidates, and a dependent that is not in the
   * list stops the run (stepGenerator.GenerateDeletes, see targetedDeletes). The old half of a targeted
   * replacement is a delete of a targeted URN, so it goes ahead whatever depends on it: untargeted dependents
   * registered in this run keep their old state (GenerateDeletes has no rule about them: they are operated on,
   * so they get no delete step).
   */
  async finishUp(programOk: boolean): Promise<void> {
    if (!programOk || this.errors.length > 0 || this.cancelled) return;
    if (!this.checkTargets()) return;
    const doomed = this.oldResources.filter(
      (r) =>
        !this.deleted.has(r) &&
        (r.pendingDelete || this.replacedOld.has(r) || (!this.registered.has(r.urn) && !this.aliased.has(r.urn) && !this.deletedForReplace.has(r.urn))),
    );
    const deletes = this.targets ? await this.targetedDeletes(doomed) : doomed;
    if (deletes) await this.deleteAll(deletes);
  }

  /**
   * destroy: deletes every resource of the state; with --target the targets and their dependents, which must
   * be in the list too unless --target-dependents (GenerateDeletes, see targetedDeletes).
   */
  async destroy(): Promise<void> {
    if (!this.checkTargets()) return;
    const deletes = this.targets ? await this.targetedDeletes(this.oldResources) : this.oldResources;
    if (deletes) await this.deleteAll(deletes);
  }

  /**
   * Deletes dependency level by level, each level in parallel on the worker pool
   * (stepGenerator.ScheduleDeletes: antichains of the dependency graph, dependents first;
   * deploymentExecutor.performPostSteps runs one antichain at a time). A protected resource fails alone and
   * keeps what it depends on (the step executor continues past deleteProtectedError); any other failed
   * delete stops the deletions not yet started.
   */
  private async deleteAll(resources: ResourceState[]): Promise<void> {
    const order = new Map(this.oldResources.map((r, i) => [r, i]));
    const condemned = new Set(resources);
    // A resource depends on the condemned resources before it in the (dependency-ordered) state whose URN
    // it names (graph/dependency_graph.go DependenciesOf).
    const depsOf = (r: ResourceState): ResourceState[] => {
      const urns = allDependencies(r);
      return resources.filter((x) => x !== r && urns.has(x.urn) && (order.get(x) ?? 0) < (order.get(r) ?? 0));
    };
    const levels: ResourceState[][] = [];
    while (condemned.size > 0) {
      const level = [...condemned].filter((r) => depsOf(r).every((d) => !condemned.has(d)));
      if (level.length === 0) throw new Error("dependency cycle among the resources to delete");
      for (const r of level) condemned.delete(r);
      levels.push(level);
    }
    levels.reverse();
    // deletedWith (as in Pulumi): no Delete call for a resource whose `deletedWith` resource goes in this
    // same run; deleting that one removes it (e.g. deleting a VM releases its address).
    const going = new Set(resources.map((r) => r.urn));
    const kept = new Set<ResourceState>(); // what a failed protected delete depends on stays
    let stopped = false;
    for (const level of levels) {
      await Promise.all(
        level
          .filter((r) => !kept.has(r))
          .map((r) =>
            this.pool.run(async () => {
              if (stopped || this.cancelled) return;
              const replaced = r.pendingDelete === true || this.replacedOld.has(r);
              // (RemovePendingReplaceStep has no protect check: nothing is deleted)
              if (!replaced && r.protect && !r.pendingReplacement) {
                this.fail(
                  `resource "${r.urn}" cannot be deleted because it is protected. To unprotect the resource, remove ` +
                    "the `protect` flag from the resource in your Pulumi program and run `up`",
                );
                // What it depends on must stay (deploymentExecutor.performPostSteps erroredDeps).
                const stack = [r];
                for (let next = stack.pop(); next; next = stack.pop()) {
                  for (const d of depsOf(next)) {
                    if (!kept.has(d)) {
                      kept.add(d);
                      stack.push(d);
                    }
                  }
                }
                return;
              }
              try {
                await this.deleteOne(r, replaced ? "replace" : "delete", r.deletedWith !== undefined && going.has(r.deletedWith));
              } catch (e) {
                stopped = true;
                this.fail(`${r.type} "${r.name}": delete failed: ${errorText(e)}`);
              }
            }),
          ),
      );
      if (stopped || this.cancelled) return;
    }
  }

  /**
   * Deletes one resource. `pendingReplacement`: the delete ahead of a delete-before-replace, after which the
   * state keeps the resource as pending replacement until its replacement is created. A resource already pending
   * replacement that is deleted outright (destroy, or no longer declared) is only dropped from the state
   * (RemovePendingReplaceStep: no provider call); one replaced again (its create-before-delete replacement,
   * or a dependent of another delete-before-replace) gets its Delete call again, as the real engine's
   * DeleteStep.Apply makes it.
   */
  private async deleteOne(r: ResourceState, why: "delete" | "replace", goesWithAnother = false, pendingReplacement = false): Promise<void> {
    // A replaced resource's deletion is part of its replace step; only real deletions count and print.
    const isReplaced = why === "replace";
    const started = Date.now();
    if (r.pendingReplacement && !isReplaced) {
      this.deleted.add(r);
      this.summary.delete++;
      this.steps.push({ op: "delete", urn: r.urn, type: r.type, name: r.name, diffs: [] });
      this.printer.line(stepLine("delete", r.type, r.name, this.opts.dryRun, "(pending replacement: deleted by an earlier run; removed from the state)"));
      this.checkpoint();
      return;
    }
    // retainOnDelete (as in Pulumi, step.go DeleteStep.Apply): no Delete call, the object is left as it is and only
    // dropped from the state; the flag is the one the state holds (the old resource's, also when it is replaced).
    if (!this.opts.dryRun && r.custom && r.id && !goesWithAnother && !r.retainOnDelete) {
      this.printer.line(isReplaced ? ` -   ${r.type}  ${r.name}  deleting the replaced resource (id ${r.id})...` : progressLine("delete", r.type, r.name));
      const host = await this.opts.host();
      const op = this.begin("deleting", r);
      try {
        await host.delete(r.urn, r.id, unwrapMap(r.outputs), unwrapMap(r.inputs));
      } finally {
        this.end(op);
      }
    }
    if (pendingReplacement && !this.opts.dryRun) this.pendingReplaced.add(r);
    this.deleted.add(r);
    const detail = goesWithAnother
      ? `(with ${r.deletedWith?.split("::").pop()})`
      : r.retainOnDelete
        ? "(retainOnDelete: left as it is, dropped from the state)"
        : this.opts.dryRun ? "" : elapsed(started);
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
   * when the provider returns them), or removal from the state when it is gone. Whether a resource drifted
   * is decided as the real engine does since 2024 (step.go RefreshStep.Apply / ResultOp): the provider's Diff
   * of the refreshed outputs against the OLD inputs, i.e. "would an up with an unchanged program change
   * something"; outputs that moved in ways the diff ignores (timestamps, status) are not drift.
   * Afterwards the deployment's old state is the refreshed one (for `preview --refresh` / `up --refresh`).
   * `clearPendingCreates` drops the pending creates of interrupted runs (`refresh --clear-pending-creates`).
   */
  async refresh(clearPendingCreates = false): Promise<void> {
    if (clearPendingCreates) this.basePendingCreates = [];
    // Reads run concurrently (as Pulumi's refresh does); results are applied and printed in state order.
    type Read = Awaited<ReturnType<ProviderClient["read"]>>;
    type Outcome = { ok: true; res: Read; drifted: boolean; keys: string[] } | { ok: false; error: unknown } | undefined;
    const outcomes: Outcome[] = await Promise.all(
      this.oldResources.map((r): Promise<Outcome> | undefined => {
        // RefreshStep.Apply: a pending-replacement resource never changes with a refresh (it was deleted).
        if (!r.custom || !r.id || r.pendingReplacement) return undefined;
        return this.pool.run(async (): Promise<Outcome> => {
          const op = this.opts.dryRun ? undefined : this.begin("reading", r);
          try {
            const host = await this.opts.host();
            const res = await host.read(r.urn, r.id ?? "", unwrapMap(r.outputs), unwrapMap(r.inputs));
            if (!res.id) return { ok: true, res, drifted: true, keys: [] };
            // Diff with the refreshed state as "old" and the old inputs as "new" (the up a no-change program
            // would do), then read it inverted.
            const newInputs = res.inputs ?? unwrapMap(r.inputs);
            const d = await this.diff({ urn: r.urn, id: res.id, outputs: res.outputs, inputs: newInputs }, unwrapMap(r.inputs), r.ignoreChanges);
            return { ok: true, res, drifted: d.changes, keys: d.changedKeys };
          } catch (error) {
            return { ok: false, error };
          } finally {
            if (op) this.end(op);
          }
        });
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
      // A successful Read clears the init errors: RefreshStep.Apply (step.go) stores `InitErrors = initErrors`,
      // which only a partial-failure Read sets, and the Node dynamic-provider host's read never reports one. So
      // after a refresh the next up is no longer forced to Update: only the provider's Diff decides.
      const { initErrors: _cleared, ...kept } = r;
      refreshed.push({ ...kept, id: res.id, outputs, inputs });
      if (!outcome.drifted) {
        this.summary.same++;
        this.steps.push({ op: "same", urn: r.urn, type: r.type, name: r.name, diffs: [] });
        continue;
      }
      // Which properties to show: the keys the engine's own input diff found; else the input properties
      // whose live value differs from the program's; else every output that moved.
      let keys = outcome.keys.filter((k) => k !== PROVIDER_KEY);
      if (keys.length === 0) {
        keys = Object.keys(r.inputs).filter((k) => k !== PROVIDER_KEY && k in outputs && !deepEqual(r.inputs[k], outputs[k]));
      }
      if (keys.length === 0) keys = [...new Set([...changedKeys(r.outputs, outputs), ...changedKeys(r.inputs, inputs)])];
      keys.sort();
      // Show the outputs' values when the outputs moved, else the inputs' (a default the read filled in).
      // Drift an earlier refresh already recorded (the outputs did not move since): the declared value against the
      // live one, as the real engine's inverted diff shows it, not the input against itself (audit).
      const properties = keys.map((k) => {
        const inOutputs = !deepEqual(r.outputs[k], outputs[k]);
        if (inOutputs) return { name: k, old: renderValue(r.outputs[k]), new: renderValue(outputs[k]) };
        if (k in outputs && k in r.inputs && !deepEqual(r.inputs[k], outputs[k]))
          return { name: k, old: renderValue(r.inputs[k]), new: renderValue(outputs[k]) };
        return { name: `${k} (input)`, old: renderValue(r.inputs[k]), new: renderValue(inputs[k]) };
      });
      this.drift.push({ urn: r.urn, type: r.type, name: r.name, gone: false, properties });
      this.summary.update++;
      this.steps.push({ op: "update", urn: r.urn, type: r.type, name: r.name, diffs: keys });
      this.printer.line(stepLine("update", r.type, r.name, true, diffDetail(keys)));
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
   * Pending operations: the ones under way, plus pending creates of earlier runs (only a refresh clears
   * those); other pending operations of earlier runs are dropped (backend/snapshot.go snap()).
   */
  snapshot(): StateFile {
    const resources: ResourceState[] = [...this.registered.values()];
    for (const r of this.oldResources) {
      if (this.deleted.has(r)) {
        if (this.pendingReplaced.has(r) && !this.registered.has(r.urn)) resources.push({ ...r, pendingReplacement: true });
        continue;
      }
      if (r.pendingDelete || this.replacedOld.has(r)) resources.push({ ...r, pendingDelete: true });
      else if (!this.registered.has(r.urn) && !(this.aliased.has(r.urn) && this.registered.has(this.aliased.get(r.urn) ?? ""))) {
        resources.push(r);
      }
    }
    const pending = [...this.pendingOps, ...this.basePendingCreates];
    const { pending_operations: _previous, ...rest } = this.opts.old;
    return { ...rest, resources, ...(pending.length ? { pending_operations: pending } : {}) };
  }

  private checkpoint(): void {
    if (!this.opts.dryRun) this.opts.checkpoint?.(this.snapshot());
  }
}
