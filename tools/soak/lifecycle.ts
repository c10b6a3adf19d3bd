/**
 * One soak lifecycle: a fresh simulator seeded by the lifecycle's seed, a program that changes from phase to
 * phase (create, updates, refresh, a replace, destroy), faults injected per phase, sometimes an interrupted
 * `up`, and after every phase the comparison of the simulator's truth with the modelled state (truth.ts).
 */
import { startSimulator, type FaultsInput, type RunningSimulator } from "../../simulator";
import { SeededRandom } from "../../simulator/ids";
import { Engine, type DeclaredResource, type RunResult } from "./engine";
import { describeAnswers, hostAnswersFor, hostProfileFor, type HostProfile, type HostVariant } from "./hosts";
import type { ProviderHost } from "./host";
import { compare, compareAfterDestroy, coveredBy, diskFates, notAsDeclared, userObjectsLost, userObjectsOf, type DeletedInstance, type DiskFate, type Finding, type SimTruth, type UserObjects } from "./truth";
import { warpedClock } from "./warp";

/** Settings shared by every lifecycle of a soak. */
export interface LifecycleSettings {
  /** Simulated seconds per asynchronous operation. */
  opSeconds: number;
  /** Time warp factor of the simulator and the provider process (see warp.ts). */
  timeWarp: number;
  /** Deadline of every wait, simulated time (stack config vmhost:createTimeout / updateTimeout / deleteTimeout). */
  timeout: string;
  /** Fault classes that may be injected (default: all). */
  faultClasses: readonly FaultClass[];
  /** Program features left out (to run a soak of what already passes while the rest is being fixed). */
  skip: readonly SoakFeature[];
  /** The host profile of every lifecycle (`--host`; default: drawn per lifecycle, hosts.ts). */
  host?: readonly HostVariant[];
  /** Host variants never drawn (`--skip-host`). */
  skipHost?: readonly HostVariant[];
}

/**
 * Parts of the lifecycles that can be left out: interrupted ups, toggling an Instance's `publicIp`
 * true/false, the PublicIp resource among the dependents, adopting an existing VM (`adoptId`) instead of
 * creating one, cloning one (`cloneFrom`; its replace clones another source), changes made in the panel
 * (out of band) before a refresh, followed by an `up` that must converge, a reserved address of the user's pinned
 * with `publicNetworkId` (on the Instance or the PublicIp); the Instance's `deleteOptions`
 * (keep the address, delete the attached disks), `dedicatedCpu` (on the tier that offers it), a change in the
 * panel right before the destroy (no refresh between), fleets of two or three Instances, and the replace with the
 * resource option `deleteBeforeReplace` on the VM (its dependents asked whether they go first, as the engine does),
 * and a reserved address of the user's put on the VM in the panel and adopted by the PublicIp (`adoptId`).
 */
export const SOAK_FEATURES = [
  "interruptions", "public-ip-toggles", "public-ip-resource", "adoption", "clone", "panel-changes", "pinned-address",
  "delete-options", "dedicated-cpu", "panel-before-destroy", "fleet", "delete-before-replace", "adopted-address",
] as const;
export type SoakFeature = (typeof SOAK_FEATURES)[number];

/** The fault classes a phase may get. */
export const FAULT_CLASSES = ["server-errors", "rate-limit", "latency", "resets", "ambiguous-write", "failed-operation", "stuck-operation"] as const;
export type FaultClass = (typeof FAULT_CLASSES)[number];

/** What one lifecycle found. */
export interface LifecycleReport {
  seed: string;
  kind: "instance" | "dependents" | "fleet";
  /** The host profile the lifecycle ran against (hosts.ts): "default" or its variants joined by "+". */
  host: string;
  /** Faulted requests (5xx, 429, resets) and failed or stuck operations the simulator actually applied. */
  faults: number;
  findings: Finding[];
  trace: string[];
  interrupted: boolean;
  /** Wall time of the lifecycle, ms. */
  wallMs: number;
}

type Spec = Record<string, unknown>;

interface Catalogue {
  vswitches: string[];
  storages: string[];
  /** The account's reserved addresses of the location (for publicNetworkId). */
  reserved: string[];
}

const PASSWORDS = ["Soak-Passw0rd", "Blue-Horse-42", "Green-Tree-77"];

/**
 * Failures the README documents as refusals that only a change of the program ends: an adopted object is never
 * replaced (the soak adopts what an interrupted create made, and its replace-forcing change then meets this), a
 * disk never shrinks, a VM on another private network than an attachment declares is not moved, a snapshot renamed in
 * the panel is not replaced (it would delete that restore point; the user declares the panel's name or runs --replace),
 * nor one adopted or renamed in the panel whose VM is replaced (the VM's delete would take it), and an adopted address
 * is not moved to another VM by its PublicIp (the user declares publicNetworkId).
 */
const DOCUMENTED_REFUSALS: readonly RegExp[] = [
  /was adopted \(adoptId\) and .* can only change with a new/,
  /cannot adopt address .* declare publicNetworkId: /,
  /was adopted \(adoptId\) on instance .* and the program now puts it on instance/,
  /so Pulumi never deletes it on its own, and a VM's delete takes its .* is being replaced in this run/,
  /disks cannot shrink/,
  /an instance is on one private network at a time/,
  /delete this one, a restore point: refused, nothing was changed/,
];

/** The writes during which an interruption kills the provider process: creates, in-place changes, deletes. */
const CREATE_WRITES = new Set(["createInstance", "cloneInstance", "createSnapshot", "createFirewallRule", "addPublicIp"]);
const UPDATE_WRITES = new Set([
  "resizeInstance", "changeTier", "updateHostname", "setPassword", "addPublicIp", "changePublicIp", "startInstance", "stopInstance",
  "updatePrivateNetwork", "updateRdns", "updateFirewallRule", "attachBlockStorage", "detachBlockStorage",
]);
const DELETE_WRITES = new Set(["deleteInstance", "deleteSnapshot", "deleteFirewallRule", "changePublicIp", "detachBlockStorage", "updatePrivateNetwork"]);

/** Runs one lifecycle on its own simulator, through `host` (configured here for this simulator). */
export async function runLifecycle(seed: string, kind: LifecycleReport["kind"], host: ProviderHost, settings: LifecycleSettings): Promise<LifecycleReport> {
  const rnd = new SeededRandom(`soak/${seed}`);
  const trace: string[] = [];
  const log = (line: string): void => {
    trace.push(line);
  };
  const sim = await startSimulator({ seed, opSeconds: settings.opSeconds, clock: warpedClock(settings.timeWarp) });
  const started = Date.now();
  const profile = hostProfileFor(seed, settings.host, settings.skipHost ?? []);
  const report: LifecycleReport = { seed, kind, host: profile.describe, faults: 0, findings: [], trace, interrupted: false, wallMs: 0 };
  try {
    sim.setFaults({ wire: profile.wire });
    log(`(host profile: ${profile.describe}${profile.variants.length ? `; wire ${JSON.stringify(profile.wire)}` : ""})`);
    await configureHost(host, sim, settings.timeout);
    const engine = new Engine(host, log);
    const seeded = await truthOf(sim);
    const cat: Catalogue = {
      vswitches: seeded.vswitches.filter((v) => v.locationId === 1).map((v) => v.uuid),
      storages: seeded.blockStorages.filter((b) => b.locationId === 1).map((b) => b.uuid),
      reserved: seeded.publicIps.filter((p) => p.seeded && p.instanceUuid === null && p.locationId === 1).map((p) => p.uuid),
    };
    const lc = new Lifecycle(seed, kind, rnd, sim, engine, host, settings, cat, userObjectsOf(seeded), report, log, profile);
    await lc.run();
  } catch (e) {
    log(`harness error: ${e instanceof Error ? e.stack : String(e)}`);
    report.findings.push({ kind: "harness-error", object: "soak", what: `the soak itself failed: ${e instanceof Error ? e.message : String(e)}` });
  } finally {
    await sim.close();
  }
  report.wallMs = Date.now() - started;
  return report;
}

/** The stack config of a lifecycle: its simulator, and `timeout` for every wait (vmhost:*Timeout). */
function configureHost(host: ProviderHost, sim: RunningSimulator, timeout: string): Promise<void> {
  return host.configure({
    "vmhost:apiKey": sim.apiKey, "vmhost:baseUrl": sim.url,
    "vmhost:createTimeout": timeout, "vmhost:updateTimeout": timeout, "vmhost:deleteTimeout": timeout,
  });
}

/**
 * The deadline of the clean-up destroys (faults cleared): as the provider's timeout message advises, the user
 * raises it. It keeps a slow or loaded machine (where the warped clock turns a stall of the provider's
 * process into long simulated waits) from leaving resources behind for want of time; what still cannot be
 * destroyed is blocked, not slow.
 */
const CLEANUP_TIMEOUT = "20m";

async function admin<T>(sim: RunningSimulator, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${sim.adminUrl}${path}`, {
    method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`admin ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const truthOf = (sim: RunningSimulator): Promise<SimTruth> => admin<SimTruth>(sim, "GET", "/state");

class Lifecycle {
  private vm: Spec;
  private deps: { publicIp?: Spec; vswitch?: Spec; storage?: Spec; snapshot?: Spec; rule?: Spec } = {};
  /**
   * A fleet's other Instances by resource name ("vm2", "vm3": no adoption, clone or dependents but one rule), and
   * the firewall rule on vm2. Their hostnames move between them across phases (swapped, handed over to a new
   * Instance, renamed), while the main vm is updated or replaced.
   */
  private fleet: Record<string, Spec> = {};
  private fleetRule: Spec | undefined;
  /**
   * Objects the user asked to lose or gave away: disks a delete took with the VM that held them under
   * `deleteOptions.removeBlockStorage` (checkRemovals), and reserved addresses the user put in the panel on a VM
   * whose address the stack does not manage (its delete releases whatever address the VM holds). Not user objects lost.
   */
  private readonly removedAsAsked = new Set<string>();
  /** Addresses kept reserved as asked (`removePublicIp: false`) once their VM is gone: the user's, not leaks. */
  private readonly keptAsAsked = new Set<string>();
  /** Addresses to keep, by the VM whose delete decides it (see noteDeleteOptions). */
  private readonly keptIfGone = new Map<string, string>();
  /**
   * Each run as it started (simulator clock, ms): whether it is a destroy, the Instances of the state with the
   * `deleteOptions.removeBlockStorage` their delete gets (the recorded outputs), and the Instances the program
   * declares. What a VM's delete must do with its disks follows from the run that sent it (checkRemovals).
   */
  private readonly runs: {
    at: number; name: string; destroys: boolean; vms: Map<string, { name: string; removeBlockStorage: boolean }>; declared: Set<string>;
    /** Hostnames of the Instances recorded as unconfirmed creates whose recorded deleteOptions keep the address. */
    placeholdersKeepingAddress: Set<string>;
  }[] = [];
  /** The simulator's VM removals already checked (index into deletedInstances). */
  private deletionsChecked = 0;
  /** VMs deleted in the panel (which releases their address whatever deleteOptions say). */
  private readonly deletedInPanel = new Set<string>();
  /**
   * Addresses the README says stay reserved in no state: a PublicIp's address taken off or swapped out in the panel
   * right before a destroy, whose delete the engine then skips (`deletedWith`) or which finds it gone ("A `pulumi
   * destroy` before that `up` cannot release it"). Not leaks.
   */
  private readonly leftAsDocumented = new Set<string>();
  /**
   * Addresses added in the panel to a VM whose Instance manages its address: the provider cannot tell them from a
   * reserved address of the user's put there, so they are the user's, never kept or released by the Instance
   * (README, "Public address release"); one the program then takes off stays reserved in no state. Not leaks.
   */
  private readonly givenInPanel = new Set<string>();
  /** Every address added in the panel (see panelChange: one the panel then takes off again is the user's too). */
  private readonly addedInPanel = new Set<string>();
  /** The VM exists before the program (made out of band) and the program adopts it. */
  private readonly adopts: boolean;
  /** The uuid of the VM made out of band for adoption, and whether a state has held it (see ownedByUser). */
  private userVm: string | undefined;
  private userVmAdopted = false;
  /** The VM is a clone (`cloneFrom`) of one of these, made out of band; the replace switches to the other. */
  private readonly clones: boolean;
  private cloneSources: string[] = [];
  /** Dependents other than PublicIp declare `deletedWith: vm` too. */
  private readonly deletedWithVm: boolean;
  /** The address is a reserved one, pinned with publicNetworkId. */
  private readonly pinned: boolean;
  /**
   * From the replace phase on, the program's vm has the resource option `deleteBeforeReplace: true`: the engine then
   * asks each dependent whether it must go first, deletes the old VM before its replacement, and re-creates the
   * dependents that went (engine.ts). Own generator: the rest of a seed's lifecycle stays as it was.
   */
  private readonly deleteBeforeReplace: boolean;
  private deleteFirstNow = false;
  /**
   * The PublicIp adopts a reserved address of the user's (`adoptId`), put on the VM in the panel once the VM exists:
   * the PublicIp is declared from then on. The address is the user's, never the stack's to release.
   */
  private readonly adoptsAddress: boolean;
  private addressDeclared = true;
  private phase = 0;
  /** The generator of the host's canned answers per run (hosts.ts hostAnswersFor). */
  private readonly hostAnswers: SeededRandom;

  constructor(
    private readonly seed: string,
    private readonly kind: LifecycleReport["kind"],
    private readonly rnd: SeededRandom,
    private readonly sim: RunningSimulator,
    private readonly engine: Engine,
    private readonly host: ProviderHost,
    private readonly settings: LifecycleSettings,
    private readonly cat: Catalogue,
    /** The user's own objects (seeded addresses, disks): they must survive every phase (truth.ts userObjectsLost). */
    private readonly user: UserObjects,
    private readonly report: LifecycleReport,
    private readonly log: (line: string) => void,
    /** The host this lifecycle's simulator plays (hosts.ts): its wire set again after each clearing of the faults. */
    private readonly profile: HostProfile,
  ) {
    this.hostAnswers = new SeededRandom(`soak/${seed}/host-answers`);
    const r = rnd;
    const tierId = r.int(1, 3);
    this.vm = {
      locationId: 1, tierId, templateId: 2, hostname: `soak-${seed.replace(/[^a-z0-9]/gi, "").toLowerCase().slice(-12)}`,
      cpu: r.int(1, 2), memory: r.int(1, 2), storage: r.int(10, 30), username: "ops", password: this.pick(PASSWORDS),
    };
    // (its own generator, so leaving adoption out does not change the rest of a seed's lifecycle)
    const extra = new SeededRandom(`soak/${seed}/options`);
    this.adopts = kind === "instance" && !this.skips("adoption") && extra.next() < 0.12;
    this.deletedWithVm = extra.next() < 0.5;
    this.clones = !this.adopts && !this.skips("clone") && extra.next() < 0.12;
    this.deleteBeforeReplace = !this.skips("delete-before-replace") && new SeededRandom(`soak/${seed}/dbr`).next() < 0.35;
    // A tight `timeouts.create` on the VM (its own input, beside the config's deadline): a create or clone then
    // often runs out of time at some step after the API answered, which must leave the VM recorded.
    if (extra.next() < 0.15) this.vm.timeouts = { create: `${extra.int(1, 4)}s` };
    // A reserved address pinned with publicNetworkId (on the Instance, or on the PublicIp resource): swapped by
    // updates, and moved to the new VM by the replace while the old VM still holds it.
    this.pinned = !this.adopts && cat.reserved.length >= 2 && extra.next() < 0.2 && !this.skips("pinned-address");
    // (a fleet's main vm is declared like a lone Instance's)
    if (kind !== "dependents") {
      if (this.pinned) this.vm.publicNetworkId = cat.reserved[0];
      else if (r.next() < 0.5) this.vm.publicIp = r.next() < 0.7 || this.skips("public-ip-toggles");
      if (r.next() < 0.4) this.vm.powerState = "running";
      if (r.next() < 0.3) this.vm.vswitchId = this.pick(cat.vswitches);
    } else {
      // At least two of the five other resources, each depending on the VM.
      const want = new Set<string>();
      const kinds = ["publicIp", "vswitch", "storage", "snapshot", "rule"].filter((k) => k !== "publicIp" || !this.skips("public-ip-resource"));
      while (want.size < 2) for (const k of kinds) if (r.next() < 0.5) want.add(k);
      if (want.has("publicIp")) this.deps.publicIp = r.next() < 0.5 ? { rdns: `mail${r.int(1, 9)}.example.com` } : {};
      if (this.deps.publicIp && this.pinned) this.deps.publicIp.publicNetworkId = cat.reserved[0];
      if (want.has("vswitch")) this.deps.vswitch = { vswitchId: this.pick(cat.vswitches) };
      if (want.has("storage")) this.deps.storage = { blockStorageId: this.pick(cat.storages) };
      if (want.has("snapshot")) this.deps.snapshot = { name: `snap-${r.int(1, 99)}` };
      if (want.has("rule")) this.deps.rule = { protocol: "tcp", port: String(this.pick([22, 80, 443, 8080])), action: this.pick(["accept", "drop"]) };
    }
    // (own generator, so leaving it out does not change the rest of a seed's lifecycle)
    this.adoptsAddress =
      this.deps.publicIp !== undefined && !this.pinned && cat.reserved.length >= 2 && !this.skips("adopted-address") &&
      new SeededRandom(`soak/${seed}/adopted-address`).next() < 0.3;
    this.addressDeclared = !this.adoptsAddress;
    // (their own generators, so leaving a feature out does not change the rest of a seed's lifecycle)
    const more = new SeededRandom(`soak/${seed}/more`);
    // deleteOptions: keep the address (it must then stay reserved, the user's, not a leak), delete the disks the
    // VM holds when it is destroyed (and only then: never as the old half of a replacement).
    if (!this.skips("delete-options") && more.next() < 0.35) this.vm.deleteOptions = { removePublicIp: more.next() < 0.5, removeBlockStorage: more.next() < 0.6 };
    // Where a disk is attached (BlockStorageAttachment) removeBlockStorage decides something: there half the VMs that
    // declare no deleteOptions get `removeBlockStorage: true`, so deletes holding a disk under it are soaked often
    // enough (checkRemovals). (Its own generator: the other lifecycles stay as they were.)
    const disks = new SeededRandom(`soak/${seed}/disk-options`);
    if (!this.skips("delete-options") && this.deps.storage && this.vm.deleteOptions === undefined && disks.next() < 0.5)
      this.vm.deleteOptions = { removePublicIp: true, removeBlockStorage: true };
    // Dedicated CPUs, on the one tier that offers them (Premium, 3).
    if (!this.skips("dedicated-cpu") && more.next() < 0.25) {
      this.vm.tierId = 3;
      this.vm.dedicatedCpu = more.next() < 0.7;
    }
    if (kind === "fleet") {
      const f = new SeededRandom(`soak/${seed}/fleet`);
      const member = (suffix: string): Spec => ({
        locationId: 1, tierId: f.int(1, 3), templateId: 2, hostname: `${String(this.vm.hostname)}-${suffix}`,
        cpu: f.int(1, 2), memory: f.int(1, 2), storage: f.int(10, 20), username: "ops", password: this.pick(PASSWORDS, f),
        ...(f.next() < 0.4 ? { publicIp: true } : {}),
      });
      this.fleet.vm2 = member("b");
      if (f.next() < 0.5) this.fleet.vm3 = member("c");
      if (f.next() < 0.6) this.fleetRule = { protocol: "tcp", port: String(this.pick([22, 443, 5432], f)), action: "accept" };
    }
  }

  private skips(feature: SoakFeature): boolean {
    return this.settings.skip.includes(feature);
  }

  /** One of `items`, drawn from the lifecycle's generator or the one given. */
  private pick<T>(items: readonly T[], r: SeededRandom = this.rnd): T {
    return items[r.int(0, items.length - 1)]!;
  }

  private program(): DeclaredResource[] {
    const vm = { ...this.vm };
    const dbr = this.deleteFirstNow ? { deleteBeforeReplace: true } : {};
    const out: DeclaredResource[] = [{ name: "vm", type: "Instance", dependsOn: [], ...dbr, inputs: () => ({ ...vm }) }];
    const dep = (name: string, type: DeclaredResource["type"], spec: Spec | undefined): void => {
      if (!spec) return;
      const s = { ...spec };
      // `deletedWith: vm` as the README recommends for a PublicIp whose address lives and dies with the VM (the VM's
      // delete releases the address); not for one pinned to the user's reserved address (publicNetworkId), which
      // outlives the VM: its own delete takes it off, back to the account. The others get it in half the
      // lifecycles, so their own deletes are soaked too.
      const ownAddress = type === "PublicIp" && s.publicNetworkId === undefined && s.adoptId === undefined;
      // (an adopted snapshot or rule with deletedWith is refused by the SDK: the user drops deletedWith, as it says)
      const adoptedOwnObject = (type === "Snapshot" || type === "FirewallRule") && s.adoptId !== undefined;
      const deletedWith = ownAddress || (type !== "PublicIp" && this.deletedWithVm && !adoptedOwnObject) ? { deletedWith: "vm" } : {};
      out.push({ name, type, dependsOn: ["vm"], ...deletedWith, inputs: (idOf) => ({ instanceId: idOf("vm"), ...s }) });
    };
    if (this.addressDeclared) dep("address", "PublicIp", this.deps.publicIp);
    dep("network", "VswitchAttachment", this.deps.vswitch);
    dep("disk", "BlockStorageAttachment", this.deps.storage);
    dep("snapshot", "Snapshot", this.deps.snapshot);
    dep("rule", "FirewallRule", this.deps.rule);
    for (const [name, spec] of Object.entries(this.fleet)) {
      const member = { ...spec };
      out.push({ name, type: "Instance", dependsOn: [], inputs: () => ({ ...member }) });
    }
    if (this.fleetRule && this.fleet.vm2) {
      const rule = { ...this.fleetRule };
      const deletedWith = this.deletedWithVm && rule.adoptId === undefined ? { deletedWith: "vm2" } : {};
      out.push({ name: "rule2", type: "FirewallRule", dependsOn: ["vm2"], ...deletedWith, inputs: (idOf) => ({ instanceId: idOf("vm2"), ...rule }) });
    }
    return out;
  }

  // ------------------------------------------------------------------------------------------- faults

  private faultsFor(phase: "create" | "update" | "replace" | "refresh" | "destroy"): FaultsInput[] {
    const r = this.rnd;
    if (r.next() < 0.3) return [];
    const classes = this.settings.faultClasses;
    if (classes.length === 0) return [];
    const count = r.next() < 0.7 ? 1 : 2;
    const out: FaultsInput[] = [];
    const kinds: Record<typeof phase, string[]> = {
      create: ["create", "clone", "snapshot"],
      update: ["resize", "changeTier", "start", "stop"],
      replace: ["create", "clone", "snapshot", "delete", "snapshotDelete"],
      refresh: [],
      destroy: ["delete", "snapshotDelete"],
    };
    const writes: Record<typeof phase, string[]> = {
      create: ["createInstance", "cloneInstance", "addPublicIp", "createSnapshot", "createFirewallRule", "updatePrivateNetwork", "attachBlockStorage"],
      update: ["resizeInstance", "changeTier", "updateHostname", "addPublicIp", "changePublicIp", "startInstance", "stopInstance", "updateFirewallRule", "updateRdns"],
      replace: ["createInstance", "cloneInstance", "deleteInstance", "createSnapshot", "deleteSnapshot", "createFirewallRule", "addPublicIp"],
      refresh: [],
      destroy: ["deleteInstance", "deleteSnapshot", "deleteFirewallRule", "changePublicIp", "detachBlockStorage", "updatePrivateNetwork"],
    };
    for (let i = 0; i < count; i++) {
      const cls = this.pick(classes);
      switch (cls) {
        case "server-errors":
          out.push({ errorRate: Math.round((0.05 + r.next() * 0.25) * 100) / 100, errorStatus: this.pick([500, 502, 503, 504] as const), afterProcessingShare: this.pick([0, 0, 0.3]) });
          break;
        case "rate-limit":
          out.push({ rateLimitPerSecond: r.int(2, 8) });
          break;
        case "latency":
          out.push({ latencyMs: r.int(5, 60) });
          break;
        case "resets":
          out.push({ resetRate: Math.round((0.03 + r.next() * 0.12) * 100) / 100, afterProcessingShare: 0.5 });
          break;
        case "ambiguous-write":
          if (writes[phase].length) out.push({ resetNext: { operation: this.pick(writes[phase]), count: r.int(1, 2), afterProcessing: r.next() < 0.7 } });
          // Half the time the reads that reconcile the write fail too (500 is not retried for reads).
          if (r.next() < 0.5) out.push({ errorRate: Math.round((0.1 + r.next() * 0.2) * 100) / 100, errorStatus: 500 });
          break;
        case "failed-operation":
          if (kinds[phase].length) out.push({ failNext: { kind: this.pick(kinds[phase]), count: 1 } });
          break;
        case "stuck-operation":
          if (kinds[phase].length) out.push({ stickNext: { kind: this.pick(kinds[phase]), count: 1 } });
          break;
      }
    }
    return out;
  }

  // ------------------------------------------------------------------------------------------- phases

  async run(): Promise<void> {
    const r = this.rnd;
    const interruptAt = !this.skips("interruptions") && r.next() < 0.12 ? this.pick(["create", "replace"] as const) : undefined;
    // (own generators, so leaving these out does not change the rest of a seed's lifecycle)
    const later = new SeededRandom(`soak/${this.seed}/later`);
    const interruptLater = !this.skips("interruptions") && later.next() < 0.1 ? (later.next() < 0.5 ? "update" : "destroy") : undefined;
    const panel = !this.skips("panel-changes") && later.next() < 0.3 ? new SeededRandom(`soak/${this.seed}/panel`) : undefined;
    const beforeDestroy = new SeededRandom(`soak/${this.seed}/panel-before-destroy`);
    const panelBeforeDestroy = !this.skips("panel-before-destroy") && beforeDestroy.next() < 0.3 ? beforeDestroy : undefined;
    const fleetPhases = new SeededRandom(`soak/${this.seed}/fleet-phases`);
    if (this.adopts) {
      // A VM made in the panel, as the program declares it; the program adopts it by uuid.
      const v = this.vm;
      const made = await admin<{ data: { uuid: string } }>(this.sim, "POST", "/instances", {
        hostname: v.hostname, locationId: v.locationId, tierId: v.tierId, templateId: v.templateId, cpu: v.cpu,
        memory: v.memory, storage: v.storage, username: v.username, password: v.password,
      });
      this.vm = { adoptId: made.data.uuid, ...v };
      this.userVm = made.data.uuid;
      this.log(`(instance ${made.data.uuid} exists before the program, which adopts it)`);
    }
    if (this.clones) {
      // Two VMs made in the panel; the program clones the first (a clone declares no template, user, keys or
      // backups: they come with the disk), and its replace clones the second.
      const { templateId: _t, username: _u, sshKeys: _k, backups: _b, ...v } = this.vm;
      for (const n of [1, 2]) {
        const made = await admin<{ data: { uuid: string } }>(this.sim, "POST", "/instances", {
          hostname: `${String(v.hostname)}-src${n}`, locationId: v.locationId, tierId: v.tierId, templateId: 2, cpu: v.cpu,
          memory: v.memory, storage: v.storage, username: "ops", password: this.pick(PASSWORDS),
        });
        this.cloneSources.push(made.data.uuid);
      }
      this.vm = { cloneFrom: this.cloneSources[0], ...v };
      this.log(`(the program clones instance ${this.cloneSources[0]}; instance ${this.cloneSources[1]} is the source of its replace)`);
    }
    if (this.pinned && (this.vm.publicNetworkId !== undefined || this.deps.publicIp)) this.log(`(the address is a reserved one, pinned with publicNetworkId)`);
    // (what decides the fate of addresses and disks at the destroy, for reading a trace)
    const { password: _p, ...declared } = this.vm;
    this.log(`(the program: vm ${JSON.stringify(declared)}${Object.keys(this.fleet).length ? `, and ${Object.keys(this.fleet).join(", ")}` : ""})`);
    await this.upPhase("create", interruptAt === "create");
    if (this.adoptsAddress) await this.adoptUsersAddress();
    const updates = r.int(1, 3);
    for (let i = 0; i < updates; i++) {
      this.mutate();
      if (fleetPhases.next() < 0.8) this.mutateFleet(fleetPhases);
      await this.upPhase("update", interruptLater === "update" && i === updates - 1);
    }
    const changedInPanel = panel ? await this.panelChange(panel) : false;
    // (a refresh that failed saw nothing of the panel's change, and a plain up never does: the user refreshes again)
    if (!(await this.refreshPhase()) && changedInPanel) await this.refreshPhase(false);
    // The program unchanged: the up converges what the panel changed (checked against the program after it).
    if (changedInPanel) await this.upPhase("update", false);
    this.replaceChange();
    if (this.deleteBeforeReplace) {
      this.deleteFirstNow = true;
      this.log("(the program gives vm the resource option deleteBeforeReplace: true)");
    }
    // (one Instance replaced while another is renamed, resized, replaced, or hands its name over)
    if (fleetPhases.next() < 0.7) this.mutateFleet(fleetPhases);
    await this.upPhase("replace", interruptAt === "replace");
    if (r.next() < 0.5) {
      this.mutate();
      await this.upPhase("update", false);
    }
    await this.convergePhase();
    // Something changed in the panel right before the destroy, with no refresh between: the destroy works from a
    // state that no longer matches, and must still remove everything of the stack's and nothing of the user's.
    if (panelBeforeDestroy) await this.panelChange(panelBeforeDestroy, "before the destroy");
    await this.destroyPhase(interruptLater === "destroy");
  }

  /**
   * The user puts a reserved address of theirs on the VM in the panel, and the program declares the PublicIp adopting
   * it (README: `adoptId`, the uuid of the address the instance has now). Only on a VM that exists, is idle and holds
   * no address (a swap would leave the VM's own address reserved in no state: the user's doing, not the stack's).
   */
  private async adoptUsersAddress(): Promise<void> {
    const vm = this.engine.state.resources.find((x) => x.name === "vm" && !x.delete);
    const v = vm && (await truthOf(this.sim)).instances.find((i) => i.uuid === vm.id);
    const address = this.cat.reserved[1]!;
    if (!v || v.operation || v.publicIpUuid) {
      this.log("(the VM is not there, busy or holds an address: the PublicIp is declared without adopting)");
      this.addressDeclared = true;
      return;
    }
    await admin(this.sim, "PATCH", `/instances/${v.uuid}`, { publicIp: address });
    this.deps.publicIp = { ...this.deps.publicIp, adoptId: address };
    this.addressDeclared = true;
    this.log(`(in the panel: the user's reserved address ${address} is put on instance ${v.uuid}; the program's PublicIp adopts it)`);
  }

  /**
   * The user's address put on the VM for the PublicIp to adopt, while no resource of the state holds it (the adoption
   * failed or was not run yet): the VM's address is then one nothing in the stack manages, and a delete of the VM
   * releases it (README, the Instance's delete: "a reserved address ... put on a VM whose address the program does not
   * manage"). The user's doing, not a loss: noted before each run, with a line in the trace.
   */
  private noteUnadoptedAddress(truth: SimTruth): void {
    const address = this.deps.publicIp?.adoptId;
    if (typeof address !== "string" || this.removedAsAsked.has(address)) return;
    const onVm = truth.publicIps.find((p) => p.uuid === address)?.instanceUuid;
    if (!onVm || this.engine.state.resources.some((r) => r.id === address && !r.pendingReplacement)) return;
    this.removedAsAsked.add(address);
    this.log(`  (the user's address ${address} is on instance ${onVm} and no resource holds it: that VM's delete may release it, as documented)`);
  }

  /**
   * Whatever happened, the program must be reachable: with the faults gone and the deadlines raised (as the
   * timeout messages advise: the VM's own tight `timeouts` dropped, config at 20m), `up` must go through within
   * two runs, the cloud then as declared. An up that fails at every run (a replacement the API refuses each
   * time, say) is a finding, `stuck`, unless the failure is one of the refusals the README documents, which
   * wait for a change of the program.
   */
  private async convergePhase(): Promise<void> {
    const { timeouts: _tight, ...vm } = this.vm;
    this.vm = vm;
    await configureHost(this.host, this.sim, CLEANUP_TIMEOUT);
    let last: RunResult | undefined;
    for (let attempt = 1; attempt <= 2; attempt++) {
      await this.unstick();
      last = await this.withFaults(`up to converge (no faults, timeouts ${CLEANUP_TIMEOUT}, attempt ${attempt})`, [], () => this.engine.up(this.program()));
      await this.endRun(last);
      await this.check(last.ok);
      if (last.ok) break;
    }
    await configureHost(this.host, this.sim, this.settings.timeout);
    if (!last || last.ok) return;
    const text = last.errors.join(" | ");
    const refusal = DOCUMENTED_REFUSALS.find((r) => r.test(text));
    if (refusal) {
      this.log(`  (a documented refusal: the program must change; ${String(refusal)})`);
      return;
    }
    // A fleet's new Instance taking the hostname of a VM that an earlier, failed up replaced: that old VM is still in
    // the state, marked for deletion, and the engine deletes it only at the end of an up whose creates all went
    // through; until then the create meets it as a stranger (README, "A VM this up replaces is no stranger either":
    // "the next one meets it as a stranger until the engine has deleted it"). A documented limit, not stuck.
    const stranger = /an instance named \S+ already exists in location \d+ \(([0-9a-f-]+)\)/.exec(text)?.[1];
    if (stranger && this.engine.state.resources.some((r) => r.id === stranger && r.delete)) {
      this.log(`  (a documented limit: ${stranger} is the old half of an earlier replacement, still to be deleted, and holds the hostname)`);
      return;
    }
    this.record([{ kind: "stuck", object: "converge", what: `with no faults, up failed twice: ${text.slice(0, 400)}` }]);
  }

  /**
   * Something changed in the panel (out of band) on the program's VM, as users and support do between runs: a
   * resize, a rename, another tier, a stop, the address taken off, added or swapped for a reserved one, the
   * private network left or changed, the rdns changed, its firewall rule changed or deleted, its snapshot renamed
   * or deleted, its disk detached, or the VM deleted. The next refresh must show it, and
   * the next `up` of the unchanged program must make the cloud as declared again. True when something changed.
   */
  private async panelChange(r: SeededRandom, when = "before the refresh"): Promise<boolean> {
    const vm = this.engine.state.resources.find((x) => x.name === "vm" && !x.delete);
    const truth = await truthOf(this.sim);
    const v = vm && truth.instances.find((i) => i.uuid === vm.id);
    if (!v || v.operation) return false;
    const reserved = truth.publicIps.filter((ip) => ip.seeded && ip.instanceUuid === null && ip.uuid !== v.publicIpUuid).map((ip) => ip.uuid);
    const onVm = `/instances/${v.uuid}`;
    const options: [string, Record<string, unknown>, string?][] = [
      ["resized", { cpu: v.cpu === 1 ? 2 : 1, memory: v.memoryGb === 1 ? 2 : 1 }],
      ["renamed", { hostname: `${v.hostname}-panel` }],
      ["moved to another tier", { tierId: v.tierId === 1 ? 2 : 1 }],
      ["stopped", { powerState: "stopped" }],
    ];
    if (v.publicIpUuid) options.push(["its address taken off", { publicIp: false }], ["its rdns changed", { rdns: "panel.example.net" }]);
    // (not while the Instance keeps an address it took off: a VM releases one address when deleted and the API
    // cannot release one on no VM, so with publicIp false one of the two stays reserved whatever the provider
    // does; the provider says so when it takes the second one off)
    else if (vm.outputs.reservedPublicIpId === undefined) options.push(["given an address", { publicIp: true }]);
    if (reserved.length > 0) options.push(["given a reserved address in place of its own", { publicIp: this.pick(reserved, r) }]);
    const seededOnVm = truth.publicIps.some((ip) => ip.seeded && ip.uuid === v.publicIpUuid);
    // (a VM in another network than a VswitchAttachment declares is refused by design, not converged)
    if (this.vm.vswitchId !== undefined) options.push(["moved to another private network", { vswitchId: this.pick(this.cat.vswitches.filter((x) => x !== v.vswitchUuid), r) }]);
    if (v.vswitchUuid) options.push(["taken out of its private network", { vswitchId: null }]);
    // The dependents' objects changed or removed in the panel: the next up puts back what the program declares.
    for (const rule of truth.firewallRules.filter((x) => x.instanceUuid === v.uuid)) {
      const path = `/firewall-rules/${rule.id}`;
      options.push(
        [`with its firewall rule ${rule.id} changed`, { destinationPort: rule.destinationPort === "9999" ? "9998" : "9999", action: rule.action === "A" ? "D" : "A" }, path],
        [`with its firewall rule ${rule.id} deleted`, { deleted: true }, path],
      );
    }
    for (const snap of truth.snapshots.filter((x) => x.instanceUuid === v.uuid && x.status === "Ready")) {
      const path = `/snapshots/${snap.uuid}`;
      options.push([`with its snapshot ${snap.uuid} deleted`, { deleted: true }, path], [`with its snapshot ${snap.uuid} renamed`, { name: `${snap.name}-panel` }, path]);
    }
    for (const disk of truth.blockStorages.filter((x) => x.instanceUuid === v.uuid)) {
      options.push([`with its disk ${disk.uuid} detached`, { instanceId: null }, `/block-storages/${disk.uuid}`]);
    }
    // (an adopted VM deleted in the panel cannot be adopted again: the program would have to change; nor one that
    // keeps an address it took off: nothing can release that address once its VM is gone, and refresh says so;
    // nor one on a pinned reserved address: the panel's delete releases it, and the program would have to change)
    // (nor one that holds a reserved address of the user's: the panel's delete releases it, the user's own doing)
    if (!this.adopts && this.vm.adoptId === undefined && !this.pinned && !seededOnVm && vm.outputs.reservedPublicIpId === undefined && r.next() < 0.15)
      options.splice(0, options.length, ["deleted", { deleted: true }]);
    const [what, patch, path = onVm] = this.pick(options, r);
    this.log(`(in the panel, ${when}: instance ${v.uuid} is ${what}: ${JSON.stringify(patch)})`);
    await admin(this.sim, "PATCH", path, patch);
    if (patch.deleted === true && path === onVm) this.deletedInPanel.add(v.uuid);
    // A reserved address of the user's put on a VM whose address nothing in the program manages (no publicIp or
    // publicNetworkId on the Instance, no PublicIp): the stack cannot tell it from an address a PublicIp gave the
    // VM, and deleting the VM releases the address it holds (`removePublicIp`, the default). The user gave it away.
    // Right before a destroy the same holds with a PublicIp: no up puts its address back, and the VM's delete
    // releases the one the VM holds (the engine skips the PublicIp's delete, deletedWith), and the PublicIp's own
    // address stays reserved, as documented.
    const beforeDestroy = when === "before the destroy";
    // Right before a destroy, what the state records is what the delete goes by: a program that declared publicIp in
    // ups that all failed (soak stop15-585: refused at every Diff) left a state that never managed the address.
    const stateManages = vm.outputs.publicIp !== undefined || vm.outputs.publicNetworkId !== undefined;
    // A PublicIp manages the VM's address only once the state holds one on this VM: the program declaring it is not
    // enough (soak stop16h-…-51: its create had not run yet; the swapped-in address then made it refuse to add one, as
    // documented, and the VM's delete as the old half of a replacement released the address the VM held, the user's).
    const publicIpInState = this.engine.state.resources.some(
      (x) => x.type === "PublicIp" && !x.delete && String(x.outputs.instanceId ?? x.inputs.instanceId ?? "").toLowerCase() === v.uuid.toLowerCase(),
    );
    const managed =
      ((this.vm.publicIp !== undefined || this.vm.publicNetworkId !== undefined) && (!beforeDestroy || stateManages)) ||
      (this.deps.publicIp !== undefined && !beforeDestroy && publicIpInState);
    if (beforeDestroy && this.deps.publicIp !== undefined && patch.publicIp !== undefined && v.publicIpUuid) {
      this.leftAsDocumented.add(v.publicIpUuid);
      this.log(`  (the PublicIp's address ${v.publicIpUuid} is off its VM: the destroy cannot release it, as documented)`);
    }
    if (patch.publicIp === true && path === onVm) {
      const given = (await truthOf(this.sim)).instances.find((i) => i.uuid === v.uuid)?.publicIpUuid;
      if (given) this.addedInPanel.add(given);
      // (also under a PublicIp that pins a reserved address: its create assigns that address even when the VM holds
      // another one, which goes back to the account as documented; soak stop16h-…-127: judged a leak)
      if (given && (this.vm.publicIp !== undefined || this.vm.publicNetworkId !== undefined || this.deps.publicIp?.publicNetworkId !== undefined)) {
        this.givenInPanel.add(given);
        this.log(`  (the address ${given} given in the panel is the user's: the Instance never keeps or releases it)`);
      }
    }
    // An address the panel added and the panel takes off again (swapped for a reserved one, or taken off) stays
    // reserved by the user's own doing: no resource made or held it (soak stop16b-221: added to an adopted VM whose
    // address nothing manages, then swapped for a reserved one before the destroy; judged a leak). While it stays on
    // the VM it is still checked: the VM's delete must release it as removePublicIp says.
    if (patch.publicIp !== undefined && patch.publicIp !== true && path === onVm && v.publicIpUuid && this.addedInPanel.has(v.publicIpUuid) && !this.givenInPanel.has(v.publicIpUuid)) {
      this.givenInPanel.add(v.publicIpUuid);
      this.log(`  (the address ${v.publicIpUuid}, added in the panel, is taken off in the panel: it stays reserved, the user's)`);
    }
    if (typeof patch.publicIp === "string" && !managed) {
      this.removedAsAsked.add(patch.publicIp);
      this.log(`  (the user's reserved address ${patch.publicIp} now goes with that VM: the ${stateManages ? "program" : "state"} does not manage its address)`);
    }
    return true;
  }


  /** A random in-place change of the program. */
  private mutate(): void {
    const r = this.rnd;
    const vm = this.vm;
    const options: (() => void)[] = [
      () => { vm.cpu = r.int(1, 3); vm.memory = r.int(1, 4); },
      () => { vm.storage = Number(vm.storage) + r.int(1, 10); },
      () => { vm.hostname = `${String(vm.hostname).replace(/-r\d+$/, "")}-r${r.int(1, 99)}`; },
      () => { vm.tierId = r.int(1, 3); },
      () => { vm.password = this.pick(PASSWORDS); },
    ];
    if (vm.deleteOptions !== undefined)
      options.push(() => {
        const o = vm.deleteOptions as { removePublicIp: boolean; removeBlockStorage: boolean };
        vm.deleteOptions = r.next() < 0.5 ? { ...o, removePublicIp: !o.removePublicIp } : { ...o, removeBlockStorage: !o.removeBlockStorage };
      });
    if (vm.dedicatedCpu !== undefined && vm.tierId === 3) options.push(() => { vm.dedicatedCpu = !vm.dedicatedCpu; });
    const otherReserved = (current: unknown): string => this.cat.reserved.find((x) => x !== current)!;
    if (this.kind === "instance") {
      if (this.pinned) options.push(() => { vm.publicNetworkId = otherReserved(vm.publicNetworkId); });
      else if (!this.skips("public-ip-toggles"))
        options.push(
          () => { vm.publicIp = vm.publicIp === true ? false : true; },
          () => { vm.publicIp = vm.publicIp === true ? false : true; },
        );
      options.push(
        () => { vm.powerState = vm.powerState === "stopped" ? "running" : "stopped"; },
        () => { vm.vswitchId = vm.vswitchId ? this.pick(["", ...this.cat.vswitches]) : this.pick(this.cat.vswitches); },
      );
    } else {
      const d = this.deps;
      if (d.publicIp) options.push(() => { d.publicIp = { ...d.publicIp, rdns: `host${r.int(1, 99)}.example.com` }; });
      if (d.publicIp?.publicNetworkId) options.push(() => { d.publicIp = { ...d.publicIp, publicNetworkId: otherReserved(d.publicIp!.publicNetworkId) }; });
      if (d.rule) options.push(() => { d.rule = { ...d.rule, port: String(this.pick([22, 80, 443, 8080, 9000])), action: this.pick(["accept", "drop"]) }; });
      if (d.vswitch) options.push(() => { d.vswitch = { vswitchId: this.pick(this.cat.vswitches) }; });
      if (d.storage) options.push(() => { d.storage = { blockStorageId: this.pick(this.cat.storages) }; });
      if (d.snapshot) options.push(() => { d.snapshot = { name: `snap-${r.int(1, 99)}` }; });
    }
    const n = r.int(1, 2);
    const before = JSON.stringify(vm);
    for (let i = 0; i < n; i++) this.pick(options)();
    // Off another tier than Premium, as the provider's refusal advises (it turns them off before the tier change).
    if (vm.dedicatedCpu === true && vm.tierId !== 3) vm.dedicatedCpu = false;
    this.keepHostnamesDistinct();
    // (the vm's new declaration, for reading a trace: what its delete will do depends on it)
    if (JSON.stringify(vm) !== before) {
      const { password: _p, ...declared } = vm;
      this.log(`  (the program now declares vm ${JSON.stringify(declared)})`);
    }
  }

  /**
   * A change of a fleet's other Instances, in the same `up` as the main vm's: hostnames swapped between vm and
   * vm2, vm2's name handed over to a new vm3 while vm2 is renamed away (or vm3 removed from the program), vm2
   * renamed or resized, or vm2 replaced (while vm is updated, or replaced itself in the replace phase).
   */
  private mutateFleet(r: SeededRandom): void {
    const vm2 = this.fleet.vm2;
    if (!vm2) return;
    const options: (() => void)[] = [
      () => {
        const h = this.vm.hostname;
        this.vm.hostname = vm2.hostname;
        vm2.hostname = h;
        this.log(`  (the program swaps the hostnames of vm and vm2)`);
      },
      () => {
        if (this.fleet.vm3) {
          delete this.fleet.vm3;
          this.log(`  (the program removes vm3)`);
          return;
        }
        this.fleet.vm3 = { ...vm2, cpu: 1, memory: 1, storage: 10, publicIp: r.next() < 0.5 };
        vm2.hostname = this.freshHostname(String(vm2.hostname), r);
        this.log(`  (vm2 is renamed to ${String(vm2.hostname)}; a new vm3 takes its name ${String(this.fleet.vm3.hostname)})`);
      },
      () => { vm2.hostname = this.freshHostname(String(vm2.hostname), r); },
      () => { vm2.cpu = r.int(1, 3); vm2.memory = r.int(1, 3); },
      () => { vm2.username = vm2.username === "ops" ? "deploy" : "ops"; },
    ];
    if (this.fleet.vm3) options.push(() => { this.fleet.vm3!.storage = Number(this.fleet.vm3!.storage) + r.int(1, 5); });
    this.pick(options, r)();
    this.keepHostnamesDistinct();
  }

  /** `base` with a new `-m<n>` suffix that no Instance of the program declares. */
  private freshHostname(base: string, r: SeededRandom): string {
    const taken = new Set([this.vm, ...Object.values(this.fleet)].map((v) => String(v.hostname)));
    const stem = base.replace(/-m\d+$/, "");
    for (;;) {
      const name = `${stem}-m${r.int(1, 99)}`;
      if (!taken.has(name)) return name;
    }
  }

  /**
   * Two Instances of one program never declare one hostname (the provider refuses the second as a clash inside
   * the stack, as documented): a random rename that would, gets another name.
   */
  private keepHostnamesDistinct(): void {
    const seen = new Set([String(this.vm.hostname)]);
    for (const member of Object.values(this.fleet)) {
      if (seen.has(String(member.hostname))) member.hostname = this.freshHostname(String(member.hostname), this.rnd);
      seen.add(String(member.hostname));
    }
  }

  /** A change that replaces the VM (create-before-delete, same hostname). */
  private replaceChange(): void {
    if (this.vm.cloneFrom !== undefined) this.vm.cloneFrom = this.cloneSources.find((s) => s !== this.vm.cloneFrom);
    else if (this.rnd.next() < 0.5) this.vm.username = this.vm.username === "ops" ? "deploy" : "ops";
    else this.vm.sshKeys = [`ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA${this.rnd.int(1000, 9999)} soak@ci`];
  }

  private async withFaults<T>(name: string, faults: FaultsInput[], run: () => Promise<T>, destroys = false): Promise<T> {
    const since = this.sim.requests().at(-1)?.seq ?? 0;
    const before = await truthOf(this.sim);
    this.noteDeleteOptions(before);
    this.noteUnadoptedAddress(before);
    this.noteRun(name, before, destroys);
    let scheduledOps = 0;
    for (const f of faults) {
      this.sim.setFaults(f);
      if (f.failNext || f.stickNext) scheduledOps++;
    }
    // The host's own answers for this run (a busy worded as a 400/422/423, creates answered without the id): not
    // faults of the phase, so also in the runs without faults. (own generator: the rest of the lifecycle stays as it was)
    const answers = hostAnswersFor(this.profile, destroys ? [...DELETE_WRITES] : [...CREATE_WRITES, ...UPDATE_WRITES], this.hostAnswers, this.settings.timeWarp);
    for (const a of answers) this.sim.setFaults(a);
    this.log(`phase ${++this.phase} ${name}${faults.length ? ` with faults ${JSON.stringify(faults)}` : ""}${answers.length ? ` (host: ${describeAnswers(answers)})` : ""}`);
    // Every run is a deployment of its own, as with the CLI (a fresh provider process per run): the provider
    // forgets what it noted for the last one (objects adopted or held by the stack's resources, VMs being replaced
    // or renamed), so one run's notes never decide another's. (A new process per run made the soak 5x slower.)
    await this.host.newDeployment();
    try {
      return await run();
    } finally {
      const left = await admin<{ failNext: Record<string, number>; stickNext: Record<string, number> }>(this.sim, "GET", "/faults");
      const pendingOps = Object.values(left.failNext).reduce((a, b) => a + b, 0) + Object.values(left.stickNext).reduce((a, b) => a + b, 0);
      await admin(this.sim, "DELETE", "/faults");
      // (the clearing takes the wire too: the host stays the host it is)
      this.sim.setFaults({ wire: this.profile.wire });
      const faulted = this.sim.requests().filter((q) => q.seq > since && (q.reset || q.status === 429 || (q.status !== null && q.status >= 500)));
      this.report.faults += faulted.length + Math.max(0, scheduledOps - pendingOps);
    }
  }

  private async upPhase(name: "create" | "update" | "replace", interrupt: boolean): Promise<void> {
    const program = this.program();
    const result = await this.withFaults(name, this.faultsFor(name), async () => {
      if (!interrupt) return this.engine.up(program);
      return this.interrupted(() => this.engine.up(program), name === "update" ? UPDATE_WRITES : CREATE_WRITES, name === "update" ? "change" : "create");
    });
    await this.endRun(result);
    await this.check(result.ok);
    if (result.interrupted) {
      // The user runs `pulumi up` again (the CLI warns about the pending create).
      const again = await this.withFaults(`${name} (re-run after the interruption)`, [], () => this.engine.up(this.program()));
      await this.endRun(again);
      await this.check(again.ok);
      // Then what the README says: an object the interrupted create made is refused as a twin, naming it and
      // adoptId; the user sets adoptId and runs `up` again, then `pulumi refresh --clear-pending-creates`.
      if (await this.adoptWhatPendingCreatesMade()) {
        // Re-run until it goes through, as a user would: a VM still being made is waited for (up to the deadline),
        // one in Error is recorded with an error and repaired by the next up.
        for (let attempt = 1; attempt <= 3; attempt++) {
          const adopted = await this.withFaults(`${name} (adopting what the interrupted create made, attempt ${attempt})`, [], () => this.engine.up(this.program()));
          await this.endRun(adopted);
          await this.check(adopted.ok);
          if (adopted.ok) break;
          await this.unstick();
        }
      }
      await this.refreshPhase();
    }
    await this.unstick();
  }

  /**
   * For each pending create whose object exists and is in no state: `adoptId` on its declaration, as the refusal
   * of the re-run advises (Instance, PublicIp, Snapshot, FirewallRule; an attachment's create is found done by
   * the re-run). True when the program changed.
   */
  private async adoptWhatPendingCreatesMade(): Promise<boolean> {
    const truth = await truthOf(this.sim);
    const known = new Set(this.engine.state.resources.map((x) => x.id));
    const specs: Record<string, Spec | undefined> = {
      vm: this.vm, address: this.deps.publicIp, snapshot: this.deps.snapshot, rule: this.deps.rule, ...this.fleet, rule2: this.fleetRule,
    };
    let changed = false;
    for (const op of this.engine.state.pending.filter((p) => p.type === "creating")) {
      const spec = specs[op.name];
      const made = coveredBy(op, truth).filter((id) => !known.has(id));
      if (!spec || made.length !== 1) continue;
      this.log(`  (the user sets adoptId: "${made[0]}" on ${op.name}, as the refusal advises)`);
      spec.adoptId = made[0];
      delete spec.cloneFrom; // (check refuses adoptId beside cloneFrom: adopting is instead of cloning)
      changed = true;
    }
    return changed;
  }

  /** Whether every object the pending creates made is in the state or gone (see refreshPhase); logs the ones that are not. */
  private async pendingCreatesResolved(): Promise<boolean> {
    const creates = this.engine.state.pending.filter((p) => p.type === "creating");
    if (creates.length === 0) return true;
    const truth = await truthOf(this.sim);
    const known = new Set(this.engine.state.resources.map((r) => r.id.toLowerCase()));
    let resolved = true;
    for (const op of creates) {
      const left = coveredBy(op, truth).filter((id) => !known.has(id.toLowerCase()));
      if (left.length === 0) continue;
      resolved = false;
      this.log(`  (the pending create of ${op.name} is not cleared: ${left.join(", ")}, which it made, is in no state yet)`);
    }
    return resolved;
  }

  /**
   * A run (`up` or `destroy`) whose CLI dies while one of `writes` is in flight (the provider process is killed
   * a random part of an operation after the first such request was sent).
   */
  private async interrupted(run: () => Promise<RunResult>, writes: ReadonlySet<string>, what: string): Promise<RunResult> {
    const sinceSeq = this.sim.requests().at(-1)?.seq ?? 0;
    let finished = false;
    const running = run().finally(() => {
      finished = true;
    });
    const delayMs = this.rnd.int(0, Math.ceil((this.settings.opSeconds * 1000) / this.settings.timeWarp));
    const deadline = Date.now() + 30_000;
    while (!finished && Date.now() < deadline) {
      if (this.sim.requests().some((q) => q.seq > sinceSeq && q.operation !== null && writes.has(q.operation))) {
        await new Promise((r) => setTimeout(r, delayMs));
        if (!finished) {
          this.log(`  ** interrupted (the provider process is killed ${delayMs} ms after the ${what} was sent)`);
          this.report.interrupted = true;
          await this.host.kill();
        }
        break;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    return running;
  }

  /**
   * `pulumi refresh`, with `--clear-pending-creates` when the README says to: once every object the pending creates
   * made is adopted (in the state) or gone, or (`clearAll`) when the stack is being destroyed. Not
   * --import-pending-creates, which in Pulumi's source only relabels the operation, and nothing turns it into a
   * resource. A pending create cleared while its object is in no state is forgotten: counted as an orphan. One whose
   * object the program declares adoptId on while no up has got through to adopt it yet stays (soak stop16-…-66: the
   * harness cleared it after three ups failed for another resource's error, and the VM the program was about to adopt
   * was judged a duplicate; the next up adopted it); the last destroy's check counts whatever no state took.
   */
  private async refreshPhase(faults = true, clearAll = false): Promise<boolean> {
    const clearPendingCreates = clearAll || (await this.pendingCreatesResolved());
    const result = await this.withFaults(faults ? "refresh" : "refresh again (no faults)", faults ? this.faultsFor("refresh") : [], () =>
      this.engine.refresh({ clearPendingCreates }),
    );
    await this.endRun(result);
    await this.check(false);
    return result.ok;
  }

  private async destroyPhase(interrupt: boolean): Promise<void> {
    // A fresh provider process for the destroy, as the CLI starts one per run (what any earlier run left in the
    // process, beyond the per-deployment notes, must not help the destroy).
    await this.host.kill();
    // A PublicIp that a refresh recorded `detached` (its address taken off in the panel) and that no up has put
    // back since (the ups after it failed, e.g. on a documented refusal): the destroy cannot release that address
    // (README, "A `pulumi destroy` before that `up` cannot release it"; with deletedWith the engine skips its
    // Delete, pkg/resource/deploy/step.go). Not a leak (soak sweep, seed c3-127).
    for (const r of this.engine.state.resources)
      if (r.type === "PublicIp" && !r.delete && r.outputs.detached === true) {
        this.leftAsDocumented.add(r.id);
        this.log(`  (the PublicIp's address ${r.id} is recorded detached and no up put it back: the destroy cannot release it, as documented)`);
      }
    const result = await this.withFaults(
      "destroy", this.faultsFor("destroy"), () => (interrupt ? this.interrupted(() => this.engine.destroy(), DELETE_WRITES, "delete") : this.engine.destroy()), true,
    );
    await this.endRun(result);
    await this.check(false);
    await this.unstick();
    // The user re-runs until the state is empty, faults gone (pending creates resolved as refresh offers),
    // with a raised deadline.
    if (this.engine.state.resources.length > 0 || this.engine.state.pending.length > 0) await configureHost(this.host, this.sim, CLEANUP_TIMEOUT);
    for (let attempt = 1; attempt <= 2 && (this.engine.state.resources.length > 0 || this.engine.state.pending.length > 0); attempt++) {
      if (this.engine.state.pending.length > 0) await this.refreshPhase(true, true);
      const again = await this.withFaults(`destroy (again, no faults, timeouts ${CLEANUP_TIMEOUT}, attempt ${attempt})`, [], () => this.engine.destroy(), true);
      await this.endRun(again);
      await this.unstick();
    }
    const truth = await truthOf(this.sim);
    this.resolveDeleteOptions(truth);
    this.checkRemovals(truth);
    this.record(compareAfterDestroy(this.engine.state, truth, this.ownedByUser()));
    this.record(userObjectsLost(this.userObjects(), truth, this.removedAsAsked));
  }

  /**
   * What the program asked deleting a VM to leave, per the VMs' recorded `deleteOptions` (the outputs: what the
   * provider's delete reads), noted while the VM exists: the addresses a VM holds or keeps reserved under
   * `removePublicIp: false` stay in the account. Noted before every run and at every check, and resolved once the
   * VM is gone, whenever that happens (a stuck delete ends between phases). (Disks: checkRemovals.)
   */
  private noteDeleteOptions(truth: SimTruth): void {
    for (const r of this.engine.state.resources.filter((x) => x.type === "Instance")) {
      const options = r.outputs.deleteOptions as { removePublicIp?: boolean; removeBlockStorage?: boolean } | undefined;
      const vm = truth.instances.find((v) => v.uuid === r.id);
      if (!vm) continue;
      // (an option turned back on forgets what the VM was to keep)
      for (const [address, holder] of this.keptIfGone) if (holder === r.id && options?.removePublicIp !== false) this.keptIfGone.delete(address);
      if (options?.removePublicIp === false) {
        if (vm.publicIpUuid) this.keptIfGone.set(vm.publicIpUuid, r.id);
        if (typeof r.outputs.reservedPublicIpId === "string") this.keptIfGone.set(r.outputs.reservedPublicIpId, r.id);
      }
    }
  }

  /** Notes a run as it starts (see `runs`), from the state and program it starts with. */
  private noteRun(name: string, truth: SimTruth, destroys: boolean): void {
    const vms = new Map<string, { name: string; removeBlockStorage: boolean }>();
    const placeholdersKeepingAddress = new Set<string>();
    for (const r of this.engine.state.resources.filter((x) => x.type === "Instance")) {
      const options = r.outputs.deleteOptions as { removeBlockStorage?: boolean; removePublicIp?: boolean } | undefined;
      vms.set(r.id.toLowerCase(), { name: r.name, removeBlockStorage: options?.removeBlockStorage === true });
      if (r.id.startsWith("unconfirmed-") && options?.removePublicIp === false && typeof r.outputs.hostname === "string")
        placeholdersKeepingAddress.add(r.outputs.hostname);
    }
    const declared = new Set(destroys ? [] : this.program().filter((d) => d.type === "Instance").map((d) => d.name));
    this.runs.push({ at: Date.parse(truth.now ?? ""), name, destroys, vms, declared, placeholdersKeepingAddress });
  }

  /**
   * What a VM's delete was to do with the disks attached to it, per the run that sent it (the last run started
   * before the request: a stuck delete ends between runs, an interrupted one in the next run) and the VM's
   * recorded `deleteOptions.removeBlockStorage` then. In a destroy, or an `up` whose program no longer declares
   * the Instance, the option holds; in an `up` that declares it, the VM goes as the old half of a replacement
   * the provider's diff reported (this run's, or the one that left it pending deletion), whose disks are data the
   * program still wants: detached and kept whatever the option says (README, "Delete"). Undefined for a VM no state
   * held when the run started (nothing the program said about it).
   */
  private diskFateOf(d: DeletedInstance): DiskFate | undefined {
    const run = this.runs.filter((x) => x.at <= d.requestedAt).at(-1);
    const vm = run?.vms.get(d.uuid.toLowerCase());
    if (!run || !vm) return undefined;
    if (!vm.removeBlockStorage) return { remove: false, why: `${vm.name}'s deleteOptions.removeBlockStorage is false, run "${run.name}"` };
    if (run.destroys) return { remove: true, why: `${vm.name} destroyed under deleteOptions.removeBlockStorage true, run "${run.name}"` };
    if (!run.declared.has(vm.name)) return { remove: true, why: `${vm.name} removed from the program under deleteOptions.removeBlockStorage true, run "${run.name}"` };
    return { remove: false, why: `${vm.name} deleted as the old half of a replacement (deleteOptions.removeBlockStorage true applies only when the VM itself goes), run "${run.name}"` };
  }

  /**
   * Every VM removal since the last check against what its delete was to do with its disks (truth.ts diskFates), and
   * the address kept by the delete of a VM that an unconfirmed create made: the placeholder's delete (before its
   * replacement) deletes it with the deleteOptions recorded with the create, which may keep the address (the user's
   * then, as for any VM deleted under `removePublicIp: false`). Such a VM can appear and go within one run, so it is
   * known only from the removal.
   */
  private checkRemovals(truth: SimTruth): void {
    for (const d of (truth.deletedInstances ?? []).slice(this.deletionsChecked)) {
      if (d.by !== "api" || d.removeIp || !d.publicIpUuid || !truth.publicIps.some((p) => p.uuid === d.publicIpUuid && p.instanceUuid === null)) continue;
      const run = this.runs.filter((x) => x.at <= d.requestedAt).at(-1);
      if (!run?.placeholdersKeepingAddress.has(d.hostname) || this.keptAsAsked.has(d.publicIpUuid)) continue;
      this.keptAsAsked.add(d.publicIpUuid);
      this.log(`  (address ${d.publicIpUuid} stays reserved with ${d.uuid} gone, the VM of an unconfirmed create deleted under its recorded removePublicIp: false: the user's now)`);
    }
    const { findings, removed, notes } = diskFates(truth, this.deletionsChecked, (d) => this.diskFateOf(d));
    this.deletionsChecked = truth.deletedInstances?.length ?? 0;
    for (const note of notes) this.log(`  ${note}`);
    for (const disk of removed) this.removedAsAsked.add(disk);
    this.record(findings);
  }

  /** Of what noteDeleteOptions noted, what stayed with a VM that is now gone. */
  private resolveDeleteOptions(truth: SimTruth): void {
    const gone = (vm: string): boolean => !truth.instances.some((v) => v.uuid === vm);
    for (const [address, vm] of this.keptIfGone) {
      if (!gone(vm)) continue;
      this.keptIfGone.delete(address);
      if (!truth.publicIps.some((p) => p.uuid === address)) {
        // (the panel's delete releases the address whatever the program says)
        if (!this.deletedInPanel.has(vm))
          this.record([{ kind: "user-object-lost", object: `user:${address}`, what: `address ${address} was released with ${vm}, whose deleteOptions.removePublicIp is false` }]);
        continue;
      }
      if (truth.publicIps.some((p) => p.uuid === address && p.seeded)) continue; // (the user's anyway)
      this.keptAsAsked.add(address);
      this.log(`  (address ${address} stays reserved with ${vm} gone, as removePublicIp: false asks: the user's now)`);
    }
  }

  /** The user's objects that must still exist: the seeded ones, and the VMs made in the panel that no state took. */
  private userObjects(): UserObjects {
    const owned = this.ownedByUser();
    return { ...this.user, vms: [...this.cloneSources, ...(this.userVm && owned.has(this.userVm) ? [this.userVm] : [])] };
  }

  /**
   * The VM made out of band for adoption, while no state has held it yet (an adoption that failed leaves the
   * user's VM as it was: not an orphan). Once adopted it is the stack's like any other.
   */
  private ownedByUser(): ReadonlySet<string> {
    if (this.userVm && this.engine.state.resources.some((r) => r.id === this.userVm)) this.userVmAdopted = true;
    return new Set([...(this.userVm && !this.userVmAdopted ? [this.userVm] : []), ...this.cloneSources, ...this.keptAsAsked, ...this.leftAsDocumented, ...this.givenInPanel]);
  }

  /**
   * An operation stuck by a fault never ends in the simulator; on a real host it ends late (or support ends
   * it). Between phases each is ended, as success or failure, so the next phase starts from a VM that is
   * idle (possibly in Error).
   */
  private async unstick(): Promise<void> {
    const truth = await truthOf(this.sim);
    for (const vm of truth.instances) {
      if (vm.operation && vm.operation.endsAt === null) {
        const outcome = this.rnd.next() < 0.5 ? "success" : "failure";
        this.log(`  (the stuck operation on ${vm.uuid} ends late: ${outcome})`);
        await admin(this.sim, "POST", `/instances/${vm.uuid}/finish-operation`, { outcome });
      }
    }
  }

  /**
   * Logs a run's outcome. After a run that failed, the provider process is ended like the CLI ends its plugins
   * at the end of every run: whatever a failed or timed-out call left behind in it (a wait still polling, a
   * per-instance lock still held) must not reach the next run. (After a successful run the process is kept
   * for speed: every call has returned, so nothing of that run should still be at work. Starting a host costs
   * ~0.3 s of CPU; one per run would make the soak several times slower. Every destroy starts a fresh one: the
   * provider keeps per-deployment state that a destroy must not inherit, see destroyPhase.)
   */
  private async endRun(result: RunResult): Promise<void> {
    this.log(`  => ${result.interrupted ? "interrupted" : result.ok ? "ok" : `failed: ${result.errors.join(" | ").slice(0, 400)}`}`);
    if (!result.ok) await this.host.kill();
  }

  /**
   * After a phase: the simulator's truth against the state. After an `up` that reported success, also against
   * the program (success means "as declared"), and `preview --refresh` then must plan nothing: nothing changed
   * since, so any planned step is false drift (a CI's `--expect-no-changes` would fail).
   */
  private async check(upSucceeded: boolean): Promise<void> {
    const truth = await truthOf(this.sim);
    this.resolveDeleteOptions(truth);
    this.noteDeleteOptions(truth);
    this.checkRemovals(truth);
    this.record(compare(this.engine.state, truth, upSucceeded, this.ownedByUser()));
    this.record(userObjectsLost(this.userObjects(), truth, this.removedAsAsked));
    if (!upSucceeded) return;
    this.record(notAsDeclared(this.engine.state, truth, { vm: this.vm, otherVms: this.fleet, ...this.deps }));
    await this.host.newDeployment(); // a preview is a run of its own
    const preview = await this.engine.previewRefreshed(this.program());
    for (const step of [...preview.planned, ...preview.errors]) {
      this.record([{ kind: "false-drift", object: `drift:${step.split(":")[0]!}`, what: `right after a successful up, with nothing changed, preview --refresh: ${step}` }]);
    }
  }

  private record(findings: Finding[]): void {
    for (const f of findings) {
      // One object is reported once per lifecycle, at the phase it first shows (an orphan that remains
      // after destroy is still one orphan).
      if (this.report.findings.some((x) => x.object === f.object)) continue;
      this.report.findings.push(f);
      this.log(`  !! ${f.kind}: ${f.what}`);
    }
  }
}
