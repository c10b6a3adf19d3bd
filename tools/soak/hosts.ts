/**
 * Host profiles of the soak: what a lifecycle's simulator answers as another host of this API may (the simulator's
 * `wire` variants and canned answers, simulator/README.md "Faults"), so that every variant meets faults,
 * interruptions, panel changes and whole lifecycles, not only its own unit tests. Each lifecycle draws its profile
 * from its own generator (`soak/<seed>/host`): the same seed gets the same profile, and the rest of its lifecycle is
 * what it was without profiles. Half the lifecycles get the default host (none of the variants).
 *
 *   --host default | <variant>+<variant>…   every lifecycle gets exactly this profile
 *   --skip-host <variant>,…                 these variants are never drawn
 */
import type { FaultsInput } from "../../simulator";
import { SeededRandom } from "../../simulator/ids";

/** The variants a profile combines (each a way real hosts answer differently: real-api-facts.md). */
export const HOST_VARIANTS = [
  /** `operation_flag` always 0: the transitional status word alone says an operation runs. */
  "operation-flag",
  /** Instance status words in Indonesian, as the panels write them. */
  "status-words",
  /** Text timestamps with a zone after them (WIB, +07:00, GMT+7 or UTC). */
  "time-zone",
  /** Non-essential columns written `null` (prices, names of location and tier, addresses, timestamps…). */
  "null-fields",
  /** List rows without `os`. */
  "list-os",
  /** The detail's `private_network` as the vswitch's uuid, or the VM's private address. */
  "private-network",
  /** A finished snapshot called "Completed" instead of "Ready". */
  "snapshot-word",
  /** Paged lists of at most 50 (a larger limit refused with a 422) or 5 (clamped) rows. */
  "page-size",
  /** "Busy" answered as a 400, 422 or 423 worded in Indonesian instead of a 409 (one write per up). */
  "busy-worded",
  /**
   * Creates (VM, clone, snapshot, rule, address) answered 2xx without the new object's id: `data: null` or without
   * the uuid after the host made it, or at once with the object made a moment later (a queued create).
   */
  "create-without-id",
] as const;
export type HostVariant = (typeof HOST_VARIANTS)[number];

/** A lifecycle's host: the variants drawn, the `wire` they set, and the canned answers of each run. */
export interface HostProfile {
  variants: HostVariant[];
  /** `wire` of the simulator (set at the start and after every clearing of the faults). */
  wire: NonNullable<FaultsInput["wire"]>;
  /** How creates are answered without an id ("create-without-id"). */
  createAnswer?: "data-null" | "no-uuid" | "queued";
  /** One line for a trace or a report: `default` or the variants with their choices. */
  describe: string;
}

const INDONESIAN = {
  Running: "Berjalan", Stopped: "Mati", Error: "Gagal", creating: "Sedang dibuat", stopping: "Sedang dimatikan", starting: "Sedang dinyalakan",
};

/** Every field the provider does not need to know what an object is (tests/resources/null-fields.test.ts). */
const NON_ESSENTIAL = [
  "price_per_hour", "estimated_monthly_cost", "estimated_monthly_price", "cost", "location", "tier", "os_name", "ip_address",
  "ipv6_address", "created_at", "updated_at", "last_started_at", "last_backup_at", "current_hourly_price", "current_cost",
  "estimated_monthly", "network_ip", "location_flag", "gateway", "vid", "total_active_instance", "instance_hostname", "image",
  "version", "os_id", "min_cpu", "min_memory", "min_storage",
];

/** The writes "create-without-id" answers without an id. */
export const CREATE_OPERATIONS = ["createInstance", "cloneInstance", "createSnapshot", "createFirewallRule", "addPublicIp"] as const;

/** Parses `--host`: `default`, or variants joined by `+`. */
export function parseHostFlag(value: string): HostVariant[] {
  if (value === "default") return [];
  return value.split("+").filter(Boolean).map((v) => {
    if (!(HOST_VARIANTS as readonly string[]).includes(v)) throw new Error(`unknown host variant ${v} (default, or of ${HOST_VARIANTS.join(", ")} joined by +)`);
    return v as HostVariant;
  });
}

/**
 * The host profile of lifecycle `seed`: `fixed` when given (`--host`), else drawn: half the lifecycles the default host,
 * the others each variant not in `skip` with a chance of 0.3 (at least one). The choices within a variant (which zone,
 * which page size, …) come from the same generator, so `--host` with the variants of a failing lifecycle and its seed
 * reproduces its profile exactly.
 */
export function hostProfileFor(seed: string, fixed: readonly HostVariant[] | undefined, skip: readonly HostVariant[]): HostProfile {
  const r = new SeededRandom(`soak/${seed}/host`);
  const allowed = HOST_VARIANTS.filter((v) => !skip.includes(v));
  let variants: HostVariant[];
  if (fixed) variants = [...fixed];
  else if (r.next() < 0.5 || allowed.length === 0) variants = [];
  else {
    variants = allowed.filter(() => r.next() < 0.3);
    if (variants.length === 0) variants = [allowed[r.int(0, allowed.length - 1)]!];
  }
  const pick = <T>(items: readonly T[]): T => items[r.int(0, items.length - 1)]!;
  // (each choice drawn whether or not its variant is on, so a fixed profile gets the choices the drawn one had)
  const zone = pick(["WIB", "+07:00", "GMT+7", "UTC"] as const);
  const network = pick(["uuid", "ip"] as const);
  const page = pick([{ maxPageSize: 50 }, { maxPageSize: 5, overPageSize: "clamp" as const }]);
  const createAnswer = pick(["data-null", "no-uuid", "queued"] as const);
  const wire: HostProfile["wire"] = {};
  const words: string[] = [];
  for (const v of variants) {
    switch (v) {
      case "operation-flag": wire.operationFlag = false; words.push(v); break;
      case "status-words": wire.statusWords = INDONESIAN; words.push(v); break;
      case "time-zone": wire.textTimeZone = zone; words.push(`${v}(${zone})`); break;
      // (not the vswitches' `network_ip` beside a private network shown as the VM's address: with neither the name nor
      // the uuid nor the network's range, nothing in the API tells which network the address is on, so a declared
      // vswitchId could never be confirmed and every join waits until its deadline (soak seed hD-1). The provider tells
      // it only where one network of the location lacks its range (common/private-network.ts onlyNetworkThatCanHold);
      // the simulator leaves out every network's, a combination no client can read. Excluded here.)
      case "null-fields": wire.nullFields = variants.includes("private-network") && network === "ip" ? NON_ESSENTIAL.filter((k) => k !== "network_ip") : NON_ESSENTIAL; words.push(v); break;
      case "list-os": wire.listOs = false; words.push(v); break;
      case "private-network": wire.privateNetwork = network; words.push(`${v}(${network})`); break;
      case "snapshot-word": wire.snapshotReady = "Completed"; words.push(v); break;
      case "page-size": Object.assign(wire, page); words.push(`${v}(${page.maxPageSize}${page.overPageSize ? ", clamp" : ""})`); break;
      case "busy-worded": words.push(v); break;
      case "create-without-id": words.push(`${v}(${createAnswer})`); break;
    }
  }
  return {
    variants, wire, ...(variants.includes("create-without-id") ? { createAnswer } : {}),
    describe: words.length ? words.join("+") : "default",
  };
}

/**
 * The canned answers of one run under `profile` (drawn from `r`): a busy answer worded as another host words it for one
 * of the run's `writes` (the provider waits and sends it again), and every create of the run answered without the id.
 * `warp`: the soak's time warp (a queued create's effect comes 2-4 simulated seconds after the answer).
 */
export function hostAnswersFor(profile: HostProfile, writes: readonly string[], r: SeededRandom, warp: number): FaultsInput[] {
  const out: FaultsInput[] = [];
  if (profile.variants.includes("busy-worded") && writes.length > 0 && r.next() < 0.6) {
    const [status, message] = [
      [422, "VM sedang diproses, silakan coba lagi nanti."],
      [400, "Instance sedang diproses, silakan coba lagi nanti."],
      [423, "Proses sedang berjalan, silakan tunggu."],
    ][r.int(0, 2)] as [number, string];
    out.push({ respondNext: { operation: writes[r.int(0, writes.length - 1)]!, status, message, count: 1 } });
  }
  if (profile.createAnswer) {
    for (const operation of CREATE_OPERATIONS) {
      const base = { operation, status: 200, count: 20, message: "Sedang diproses." };
      if (profile.createAnswer === "data-null") out.push({ respondNext: { ...base, data: null, afterProcessing: true } });
      else if (profile.createAnswer === "no-uuid") out.push({ respondNext: { ...base, data: { status: "creating" }, afterProcessing: true } });
      else out.push({ respondNext: { ...base, data: null, effectAfterMs: Math.max(1, Math.round((2_000 + r.next() * 2_000) / warp)) } });
    }
  }
  return out;
}

/** The canned answers of a run, short, for its trace line. */
export function describeAnswers(answers: readonly FaultsInput[]): string {
  const parts: string[] = [];
  let creates: string | undefined;
  for (const a of answers) {
    const r = a.respondNext;
    if (!r) continue;
    if (r.status >= 400) parts.push(`busy as ${r.status} "${r.message}" on the next ${r.operation}`);
    else creates = r.effectAfterMs !== undefined ? `creates answered 200 data null, made ${r.effectAfterMs} ms later` : `creates answered 200 with ${JSON.stringify(r.data)}`;
  }
  if (creates) parts.push(creates);
  return parts.join("; ");
}
