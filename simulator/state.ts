/**
 * The simulator's in-memory model of one customer account. Everything is plain JSON-serializable data
 * (epoch-ms numbers for times), so `GET /__sim/state` can dump it as is; wire formatting happens only in
 * the handlers. The catalogue parts come from seed.ts; the rest changes with requests.
 */
import type { SeededRandom } from "./ids";
import type { TextTimeZone } from "./wire";

/** A data-centre location (integer id). */
export interface Location {
  id: number;
  name: string;
  code: string;
  country: string;
  /** URL of a flag image (some hosts add it to vswitch list items as `location_flag`). */
  flag: string;
  /** First three octets of the addresses the location hands out automatically, e.g. `103.150.12`. */
  autoIpPrefix: string;
}

/** A price tier (integer id). Prices are Rupiah per hour. */
export interface Tier {
  id: number;
  name: string;
  description: string;
  icon: string;
  dedicatedCpuAvailable: boolean;
  cpuPerHour: number;
  /** Extra per-CPU price per hour when the CPU is dedicated. */
  dedicatedCpuPerHour: number;
  memoryPerGbHour: number;
  storagePerGbHour: number;
  snapshotPerGbHour: number;
  backupPerGbHour: number;
}

/** An OS template (integer template id); minimums are CPUs and GB. */
export interface OsTemplate {
  id: number;
  osId: number;
  name: string;
  version: string;
  image: string;
  minCpu: number;
  minMemory: number;
  minStorage: number;
}

/** An instance size template (sizes in GB). */
export interface SizeTemplate {
  id: number;
  title: string;
  cpu: number;
  ramGb: number;
  diskGb: number;
  createdAt: number;
  updatedAt: number;
}

/** A public IPv4 address of the account. */
export interface PublicIp {
  uuid: string;
  address: string;
  locationId: number;
  /** The instance it is assigned to, or null when it sits unassigned in the account (reserved). */
  instanceUuid: string | null;
  rdns: string | null;
  /** True for the seeded reserved addresses (usable as `public_network`), false for auto-allocated ones. */
  seeded: boolean;
  createdAt: number;
}

/** The optional gateway of a private network. */
export interface Gateway {
  uuid: string;
  hostname: string;
  privateIp: string;
}

/** A private network (vswitch). */
export interface Vswitch {
  uuid: string;
  name: string;
  tag: number;
  locationId: number;
  networkIp: string;
  gateway: Gateway | null;
  status: string;
  createdAt: number;
  updatedAt: number;
}

/** A block storage volume. */
export interface BlockStorage {
  uuid: string;
  name: string;
  sizeGb: number;
  locationId: number;
  instanceUuid: string | null;
  createdAt: number;
}

/** Kinds of asynchronous operation (also the `kind` values of the `failNext` / `stickNext` faults). */
export type OperationKind =
  | "create" | "clone" | "resize" | "changeTier" | "start" | "stop" | "restart" | "reinstall" | "delete"
  | "snapshot" | "snapshotDelete" | "rollback";

/** All operation kinds. */
export const operationKinds: readonly OperationKind[] = [
  "create", "clone", "resize", "changeTier", "start", "stop", "restart", "reinstall", "delete",
  "snapshot", "snapshotDelete", "rollback",
];

/** An asynchronous operation running on one instance (the instance is busy until it ends). */
export interface Operation {
  id: string;
  kind: OperationKind;
  instanceUuid: string;
  startedAt: number;
  /** When it ends; null for an operation stuck by the `stickNext` fault (it never ends). */
  endsAt: number | null;
  outcome: "success" | "failure";
  /** Instance status before the operation (resize and change-tier return to it). */
  previousStatus: string;
  /** Kind-specific parameters applied at the end (new sizes, tier, template, snapshot uuid, ...). */
  params: Record<string, unknown>;
}

/** A virtual machine. Sizes in GB. */
export interface Instance {
  uuid: string;
  /** Integer id of the created-instance response. */
  id: number;
  /** Creation sequence, the tie-breaker of sorting. */
  seq: number;
  hostname: string;
  username: string;
  /** Stored so tests can check set-password; never returned by the API. */
  password: string;
  sshKeys: string[];
  includeBackup: boolean;
  cpu: number;
  memoryGb: number;
  storageGb: number;
  dedicatedCpu: boolean;
  tierId: number;
  locationId: number;
  templateId: number;
  status: string;
  /** The running operation, or null. `operation_flag` is 1 while it is set. */
  operationId: string | null;
  vswitchUuid: string | null;
  privateIp: string | null;
  nodeId: number;
  billingId: number;
  firewallDefault: "A" | "D";
  /** The source instance when created by clone. */
  clonedFrom: string | null;
  createdAt: number;
  updatedAt: number;
  lastStartedAt: number | null;
  lastBackupAt: number | null;
}

/** A snapshot of an instance. */
export interface Snapshot {
  uuid: string;
  instanceUuid: string;
  name: string;
  description: string;
  status: string;
  sizeGb: number;
  attachedStorage: { id: string; name: string; size: number }[];
  isCurrentState: boolean;
  createdAt: number;
  /** When it became Ready (its cost accrues from then); null while creating or failed. */
  readyAt: number | null;
}

/** A backup file in an instance's backup history. */
export interface Backup {
  uuid: string;
  instanceUuid: string;
  schedule: string;
  sizeGb: number;
  attachedStorage: { id: string; name: string; size: number }[];
  createdAt: number;
}

/** A firewall rule of an instance. */
export interface FirewallRule {
  id: string;
  instanceUuid: string;
  destinationPort: string;
  protocol: "tcp" | "udp";
  action: "A" | "D";
  sourceIp: string | null;
  description: string;
  useIpset: boolean;
  createdAt: number;
  updatedAt: number;
}

/** A payment method (fees are computed from the top-up amount). */
export interface PaymentMethod {
  category: "bank" | "card" | "ritel" | "ewallet" | "qris";
  name: string;
  code: string;
  image: string;
  /** Fixed part of the fee (Rupiah). */
  flatFee: number;
  /** Proportional part of the fee (fraction of the amount). */
  percentFee: number;
}

/** A top-up invoice. */
export interface Invoice {
  uuid: string;
  referenceNumber: string;
  paymentMethod: string;
  amount: number;
  fee: number;
  vat: number;
  vaNumber: string;
  qrString: string;
  paymentUrl: string;
  status: "Pending" | "Paid";
  createdAt: number;
  /** When the simulated payment arrives (one operation duration after creation). */
  paysAt: number;
}

/** A credit transaction. */
export interface CreditEntry {
  id: number;
  type: "Add" | "Deduct";
  description: string;
  amount: number;
  balanceAfter: number;
  createdAt: number;
}

/** One line of a billing report. */
export interface BillingLine {
  id: number;
  serviceName: string;
  serviceType: string;
  tierName: string;
  tierIcon: string;
  details: { name: string; basePrice: number; totalUptimeHour: number; totalCost: number }[];
}

/** A monthly billing report. */
export interface BillingReport {
  id: number;
  uuid: string;
  /** `October 2024`. */
  period: string;
  /** `YYYY-MM-DD`, the path key of getBillingReport. */
  billingDate: string;
  status: "Settled" | "Not Settled";
  fullySettle: boolean;
  canDownload: boolean;
  lines: (BillingLine & { service: string })[];
}

/** Counters for sequential ids and auto-allocated addresses. */
export interface Counters {
  instanceId: number;
  instanceSeq: number;
  creditId: number;
  billingId: number;
  /** Next host number of auto-allocated public addresses, per location id. */
  autoIpHost: Record<number, number>;
  invoiceNumber: number;
}

/** The whole account. */
export interface SimState {
  seed: string;
  customerId: number;
  locations: Location[];
  tiers: Tier[];
  templates: OsTemplate[];
  sizeTemplates: SizeTemplate[];
  paymentMethods: PaymentMethod[];
  publicIps: PublicIp[];
  vswitches: Vswitch[];
  blockStorages: BlockStorage[];
  instances: Instance[];
  snapshots: Snapshot[];
  backups: Backup[];
  firewallRules: FirewallRule[];
  operations: Operation[];
  invoices: Invoice[];
  credit: CreditEntry[];
  balance: number;
  billingReports: BillingReport[];
  /** Every instance removed so far, oldest first (not an API object: for the admin dump, see DeletedInstance). */
  deletedInstances: DeletedInstance[];
  counters: Counters;
}

/**
 * The record of an instance's removal: what its delete asked and what it took or left, as of the moment it
 * happened (a test cannot see that moment otherwise: the disks a VM held when its delete ran, say).
 */
export interface DeletedInstance {
  uuid: string;
  hostname: string;
  /** `api`: a delete request's operation finished; `panel`: the admin API's out-of-band delete. */
  by: "api" | "panel";
  /** When the delete was requested (its operation started), and when the instance went (epoch ms). */
  requestedAt: number;
  deletedAt: number;
  /** The delete's `remove_ip` and `remove_block_storage` (the panel's delete: true, false). */
  removeIp: boolean;
  removeBlockStorage: boolean;
  /** The block storages attached at the moment it went (deleted or detached per removeBlockStorage). */
  blockStorages: string[];
  /** The uuid of the public address it held when it went (released or kept reserved per removeIp), if any. */
  publicIpUuid: string | null;
}

/** Mutable per-simulator context the handlers need besides the state. */
export interface SimContext {
  state: SimState;
  /** Seeded generator for new ids (reset with the state). */
  ids: SeededRandom;
  /** Current time (epoch ms) of this request. */
  now: number;
  /** Duration of asynchronous operations, seconds. */
  opSeconds: number;
  /** Pending injected operation outcomes, consumed by operations.ts. */
  opFaults: OperationFaults;
  /** Wire variants chosen with the `wire` fault (absent: the defaults). */
  wire?: WireVariants;
}

/**
 * How some fields are written, where api-spec.md leaves the text open or real-api-facts.md shows hosts differ.
 * Every field is optional; absent = the simulator's default.
 */
export interface WireVariants {
  /** What the instance detail's `private_network` shows: the vswitch name (default), its uuid, or the VM's private address. */
  privateNetwork?: "name" | "uuid" | "ip";
  /** The key of the console URL: `url` (default, the spec) or `webview` (what one client reads, real-api-facts.md). */
  consoleUrlKey?: "url" | "webview";
  /** Whether instance list rows carry `os` (default true, the spec; the hosts' docs sample has none). */
  listOs?: boolean;
  /** The status word of a finished snapshot (default `Ready`; the spec shows only `Error`). */
  snapshotReady?: string;
  /**
   * The largest `limit` paged lists take (default 100; api-spec.md §8: "maximum page size: not shown"), as a host with
   * a smaller cap: a larger one is refused with Laravel's 422 (`overPageSize: "refuse"`, default) or served as pages of
   * this size (`"clamp"`, `per_page` and `total_pages` saying so).
   */
  maxPageSize?: number;
  /** What a `limit` above `maxPageSize` gets: a 422 on `limit` (default) or pages of `maxPageSize`. */
  overPageSize?: "refuse" | "clamp";
  /**
   * `false`: `operation_flag` and `active_operation` stay 0 while operations run (the samples of real-api-facts.md
   * only ever show 0), the transitional status (`creating`, `resizing`, …) alone telling that one runs.
   */
  operationFlag?: boolean;
  /**
   * How text timestamps carry a zone (real-api-facts.md: "Timezone not stated"): Jakarta time with ` WIB`, `+07:00` or
   * ` GMT+7` after it, or UTC time with ` UTC`. Absent: Jakarta time, no zone (the samples). ISO ones are unchanged.
   */
  textTimeZone?: TextTimeZone;
  /**
   * Keys written as `null` wherever they appear in the `data` of GET answers (at any depth: list rows, details,
   * nested objects), as a host leaves columns empty: `["price_per_hour", "location", "os", …]`.
   */
  nullFields?: string[];
  /**
   * The instance status words as a host writes them, by the simulator's own word (`Running`, `Stopped`, `Error`,
   * `creating`, `stopping`, …): `{"Running": "Berjalan", "Error": "Gagal"}` (list rows, detail, create answer). Words
   * not given stay as they are.
   */
  statusWords?: Record<string, string>;
}

/** Injected outcomes of the next operations of a kind (`failNext` / `stickNext`). */
export interface OperationFaults {
  fail: Partial<Record<OperationKind, number>>;
  stick: Partial<Record<OperationKind, number>>;
}
