/**
 * An in-process stand-in for the dynamic-provider host (tools/local-engine ProviderClient) and for the program
 * (a RegistrationRequest per resource), so the engine's step rules (tools/local-engine/deployment.ts) run without
 * starting the language runtime or the provider host. The fake cloud behaves like tests/engine/fixtures'
 * fixture-cloud provider: `zone` changes replace, other input changes update, and faults are set per name.
 */
import { Deployment, DeploymentOptions, ProviderClient } from "../../../tools/local-engine/deployment";
import { RegistrationRequest, RegistrationResult } from "../../../tools/local-engine/monitor";
import { Printer } from "../../../tools/local-engine/output";
import { CheckFailure, DiffResult, InitFailedError } from "../../../tools/local-engine/providerTypes";
import { ResourceState, StateFile } from "../../../tools/local-engine/state";
import { PropertyMap } from "../../../tools/local-engine/values";

export const PROJECT = "proj";
export const STACK = "dev";
export const TYPE = "pulumi-nodejs:dynamic:Resource";
export const STACK_URN = `urn:pulumi:${STACK}::${PROJECT}::pulumi:pulumi:Stack::${PROJECT}-${STACK}`;

/** The URN of a dynamic resource whose parent is the stack. */
export function urnOf(name: string, type = TYPE): string {
  return `urn:pulumi:${STACK}::${PROJECT}::${type}::${name}`;
}

const nameOf = (urn: string): string => urn.split("::").pop() ?? urn;

/** A promise with its resolve, to hold a provider call until the test lets it go. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Per-name behaviour of the fake cloud. */
export interface Faults {
  failCreate: Set<string>;
  initFailCreate: Set<string>;
  failUpdate: Set<string>;
  initFailUpdate: Set<string>;
  failDelete: Set<string>;
  failRead: Set<string>;
  failCheck: Set<string>;
  /** Diff answers neither true nor false (DIFF_UNKNOWN): the engine diffs the inputs itself. */
  unknownDiff: Set<string>;
  /** Diff asks for delete-before-replace. */
  dbr: Set<string>;
  /** Read reports the resource gone. */
  gone: Set<string>;
  /** Read reports a new id (the cloud re-created it). */
  newId: Map<string, string>;
  /** Read reports these outputs changed. */
  drift: Map<string, PropertyMap>;
  /** Read also returns inputs. */
  readInputs: Map<string, PropertyMap>;
  /** Calls held until the gate opens, by "<method> <name>". */
  hold: Map<string, Promise<void>>;
}

/** The fake provider: records every call as "<method> <name>[ <id>]" in `calls`. */
export class FakeProvider implements ProviderClient {
  readonly calls: string[] = [];
  readonly faults: Faults = {
    failCreate: new Set(),
    initFailCreate: new Set(),
    failUpdate: new Set(),
    initFailUpdate: new Set(),
    failDelete: new Set(),
    failRead: new Set(),
    failCheck: new Set(),
    unknownDiff: new Set(),
    dbr: new Set(),
    gone: new Set(),
    newId: new Map(),
    drift: new Map(),
    readInputs: new Map(),
    hold: new Map(),
  };
  /** Arguments of each call, for assertions on what the provider was given. */
  readonly args: Array<{ call: string; args: unknown[] }> = [];
  /** Calls under way at once, and the most seen. */
  running = 0;
  maxRunning = 0;
  /** Ids are `id-<n>` from `firstId` on (a later run's provider starts past the ids of the state it gets). */
  constructor(private nextId = 1) {}

  private async enter(method: string, urn: string, id?: string, ...args: unknown[]): Promise<() => void> {
    const call = `${method} ${nameOf(urn)}${id ? " " + id : ""}`;
    this.calls.push(call);
    this.args.push({ call, args });
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    const held = this.faults.hold.get(`${method} ${nameOf(urn)}`);
    if (held) await held;
    return () => void this.running--;
  }

  async check(urn: string, olds: PropertyMap, news: PropertyMap): Promise<{ inputs: PropertyMap; failures: CheckFailure[] }> {
    this.calls.push(`check ${nameOf(urn)}`);
    this.args.push({ call: `check ${nameOf(urn)}`, args: [olds, news] });
    if (this.faults.failCheck.has(nameOf(urn))) return { inputs: news, failures: [{ property: "size", reason: "too big" }, { property: "zone", reason: "unknown" }] };
    return { inputs: { ...news, checked: true }, failures: [] };
  }

  async diff(urn: string, id: string, olds: PropertyMap, news: PropertyMap, oldInputs: PropertyMap): Promise<DiffResult> {
    const name = nameOf(urn);
    this.calls.push(`diff ${name}`);
    this.args.push({ call: `diff ${name}`, args: [id, olds, news, oldInputs] });
    const dbr = this.faults.dbr.has(name);
    if (this.faults.unknownDiff.has(name)) return { changes: undefined, replaces: [], deleteBeforeReplace: dbr };
    const keys = [...new Set([...Object.keys(oldInputs), ...Object.keys(news)])].filter(
      (k) => k !== "__provider" && JSON.stringify(oldInputs[k]) !== JSON.stringify(news[k]),
    );
    const replaces = keys.filter((k) => k === "zone");
    return { changes: keys.length > 0, replaces, deleteBeforeReplace: dbr };
  }

  async create(urn: string, properties: PropertyMap): Promise<{ id: string; outputs: PropertyMap }> {
    const name = nameOf(urn);
    const leave = await this.enter("create", urn, undefined, properties);
    try {
      if (this.faults.failCreate.has(name)) throw new Error(`create of ${name} refused`);
      const id = `id-${this.nextId++}`;
      if (this.faults.initFailCreate.has(name)) throw new InitFailedError(`${name} did not boot`, id, { status: "broken", size: properties.size ?? null }, ["did not boot"]);
      return { id, outputs: { ...properties, status: "running" } };
    } finally {
      leave();
    }
  }

  async read(urn: string, id: string, properties: PropertyMap, inputs: PropertyMap): Promise<{ id: string; outputs: PropertyMap; inputs?: PropertyMap }> {
    const name = nameOf(urn);
    const leave = await this.enter("read", urn, id, properties, inputs);
    try {
      if (this.faults.failRead.has(name)) throw new Error(`read of ${name} refused`);
      if (this.faults.gone.has(name)) return { id: "", outputs: {} };
      const readInputs = this.faults.readInputs.get(name);
      return {
        id: this.faults.newId.get(name) ?? id,
        outputs: { ...properties, ...(this.faults.drift.get(name) ?? {}) },
        ...(readInputs ? { inputs: readInputs } : {}),
      };
    } finally {
      leave();
    }
  }

  async update(urn: string, id: string, olds: PropertyMap, news: PropertyMap, oldInputs: PropertyMap): Promise<PropertyMap> {
    const name = nameOf(urn);
    const leave = await this.enter("update", urn, id, olds, news, oldInputs);
    try {
      if (this.faults.failUpdate.has(name)) throw new Error(`update of ${name} refused`);
      if (this.faults.initFailUpdate.has(name)) throw new InitFailedError(`${name} broke`, id, { status: "broken" }, []);
      return { ...news, status: "running" };
    } finally {
      leave();
    }
  }

  async delete(urn: string, id: string, properties: PropertyMap, oldInputs: PropertyMap): Promise<void> {
    const name = nameOf(urn);
    const leave = await this.enter("delete", urn, id, properties, oldInputs);
    try {
      if (this.faults.failDelete.has(name)) throw new Error(`delete of ${name} refused`);
    } finally {
      leave();
    }
  }

  /** Only the calls that change the cloud (create, update, delete), in order. */
  changes(): string[] {
    return this.calls.filter((c) => /^(create|update|delete) /.test(c));
  }
}

/** Options of one resource in the fake program (RegistrationRequest fields, defaults filled in). */
export type ResOpts = Partial<Omit<RegistrationRequest, "name" | "object">>;

/** A registration of the fake program: a dynamic resource under the stack unless said otherwise. */
export function request(name: string, object: PropertyMap, o: ResOpts = {}): RegistrationRequest {
  return {
    type: TYPE,
    name,
    parent: STACK_URN,
    custom: true,
    object: { __provider: "serialized", ...object },
    protect: false,
    dependencies: [],
    deleteBeforeReplace: undefined,
    propertyDependencies: {},
    aliases: [],
    deletedWith: "",
    ignoreChanges: [],
    replaceOnChanges: [],
    additionalSecretOutputs: [],
    provider: "",
    importId: "",
    retainOnDelete: false,
    replacementTrigger: false,
    ...o,
  };
}

/** An empty stack's state. */
export function emptyState(): StateFile {
  return { version: 1, project: PROJECT, stack: STACK, secretsSalt: "c2FsdA==", resources: [] };
}

/** One engine run against the fake provider: the deployment, what it printed, every checkpointed state. */
export class Run {
  readonly printer = new Printer();
  readonly checkpoints: StateFile[] = [];
  readonly deployment: Deployment;

  constructor(
    readonly provider: FakeProvider,
    old: StateFile,
    opts: Partial<Omit<DeploymentOptions, "old" | "printer" | "host" | "checkpoint">> = {},
  ) {
    this.deployment = new Deployment({
      project: PROJECT,
      stack: STACK,
      dryRun: false,
      old,
      printer: this.printer,
      host: async () => provider,
      checkpoint: (s) => this.checkpoints.push(structuredClone(s)),
      parallel: 4,
      ...opts,
    });
  }

  /** Registers the stack, as every program does first. */
  async stack(): Promise<RegistrationResult> {
    return this.deployment.register({ ...request(`${PROJECT}-${STACK}`, {}), type: "pulumi:pulumi:Stack", parent: "", custom: false, object: {} });
  }

  register(name: string, object: PropertyMap, o: ResOpts = {}): Promise<RegistrationResult> {
    return this.deployment.register(request(name, object, o));
  }

  /** The state as the run leaves it. */
  state(): StateFile {
    return this.deployment.snapshot();
  }

  text(): string {
    return this.printer.text();
  }
}

/** A resource of the fake state by name. */
export function resource(state: StateFile, name: string): ResourceState | undefined {
  return state.resources.find((r) => r.name === name && !r.pendingDelete);
}

/**
 * Runs a whole `up` of `program` (the stack registered first, then the program, then the deletions) and
 * returns the run.
 */
export async function up(
  provider: FakeProvider,
  old: StateFile,
  program: (run: Run) => Promise<unknown>,
  opts: Partial<Omit<DeploymentOptions, "old" | "printer" | "host" | "checkpoint">> = {},
): Promise<Run> {
  const run = new Run(provider, old, opts);
  if (!run.deployment.preflight(false)) return run;
  await run.stack();
  await program(run);
  await run.deployment.finishUp(true);
  return run;
}
