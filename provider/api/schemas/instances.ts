/**
 * Wire schemas of the instance operations (api-spec.md §2.2–§2.6, §2.12, §2.17, §4.1, §4.6).
 * Output values are normalized: sizes in GB, cpu as an integer, timestamps as ISO 8601 UTC, `-` as null.
 */
import { z } from "zod";
import {
  cpuCount,
  decimal,
  optionalFlag,
  idString,
  instanceRef,
  integer,
  optionalTimestamp,
  paged,
  phpObject,
  placeholderString,
  sizeGb,
  timestamp,
} from "./common";
import { operationFlagOf } from "../normalize";

/**
 * A name the spec types as a string (an instance's `location`, `tier`), also read from the `{id, name}` object a host
 * may send instead, as the private network's detail does for its location (real-api-facts.md).
 */
const nameText = z.union([z.string(), z.object({ name: z.string() })]).transform((v) => (typeof v === "string" ? v : v.name));

/**
 * A column the provider only shows (a name, a price, a timestamp): `null` or missing read as unknown (null), never a
 * reason to reject the whole answer (real-api-facts audit: one host's empty `tier` failed every read of every VM).
 */
const shown = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v): z.output<T> | null => (v === undefined ? null : v));

/** An integer flag or count (`operation_flag`, `active_operation`), also as a Laravel boolean cast writes it. */
const counter = z.union([integer, z.boolean()]).transform((v) => (typeof v === "boolean" ? (v ? 1 : 0) : v));

/** The operating system summary on list rows (absent on some hosts' rows: real-api-facts.md). */
export const instanceListOs = z.object({
  name: z.string(),
  image: z.string().nullish(),
});

/** One row of the instance list (§2.2). `memory`/`storage` text ("2 GB", "30GB") becomes GB numbers. */
export const instanceListItem = z.object({
  uuid: z.string(),
  hostname: z.string(),
  ip_address: placeholderString,
  cpu: cpuCount,
  memory: sizeGb,
  storage: sizeGb,
  status: z.string(),
  // The docs sample has no `os` on list rows: optional, and null when missing.
  os: phpObject(instanceListOs.nullish()).transform((v) => v ?? null),
  location: shown(nameText),
  tier: shown(nameText),
  price_per_hour: shown(decimal),
  estimated_monthly_cost: shown(decimal),
  cost: decimal.nullish().transform((v) => v ?? null),
  // Non-zero while an operation runs on the instance (only 0 appears in samples): also when the status says so.
  operation_flag: counter,
  created_at: optionalTimestamp,
}).transform((row) => ({ ...row, operation_flag: operationFlagOf(row.operation_flag, row.status) }));

/** The instance list (§4.1): a paged list that also carries `active_operation`. */
export const instanceList = paged(instanceListItem).extend({
  // Count of operations running on the account; 0 in all samples. Tolerated when missing.
  active_operation: counter.nullish().transform((v) => v ?? 0),
});

/** The `os` object of the instance detail (§2.3). `min_memory`/`min_storage` units are not shown. */
export const instanceOs = z.object({
  template_id: integer,
  version: shown(z.union([z.number(), z.string()]).transform((v) => String(v))),
  os_id: shown(integer),
  name: shown(z.string()),
  image: z.string().nullish(),
  min_cpu: shown(integer),
  // (units not shown: a bare number is GB, as sizes elsewhere; "1 GB"/"1024 MB" are read as sizes)
  min_memory: shown(sizeGb),
  min_storage: shown(sizeGb),
});

/**
 * The public address of an instance detail: `{ip_id, ip_address}`, both `-` when none. Output: the object
 * with both fields, or `null` when the instance has no public address.
 */
export const publicIp = z
  // "-" or an empty list (Laravel's empty relation) instead of the object also mean "none" (audit)
  .preprocess((v) => (v === "-" || v === "" || (Array.isArray(v) && v.length === 0) ? null : v), z.object({ ip_id: placeholderString, ip_address: placeholderString }).nullish())
  .transform((v) => {
    if (!v || (v.ip_id === null && v.ip_address === null)) return null;
    return { ip_id: v.ip_id, ip_address: v.ip_address };
  });

/** The instance detail (§2.3). cpu "2"/"2 CPU" -> 2; memory/storage in MB or GB -> GB; dates -> ISO UTC. */
export const instanceDetail = z.object({
  uuid: z.string(),
  hostname: z.string(),
  username: z.string(),
  cpu: cpuCount,
  is_cpu_dedicated: optionalFlag,
  memory: sizeGb,
  storage: sizeGb,
  status: z.string(),
  os_name: shown(z.string()),
  public_ip: publicIp,
  rdns: placeholderString,
  private_network: placeholderString,
  location_id: integer,
  location: shown(nameText),
  tier_id: integer,
  tier: shown(nameText),
  os: instanceOs,
  price_per_hour: shown(decimal),
  estimated_monthly_price: shown(decimal),
  cost: decimal.nullish().transform((v) => v ?? null),
  operation_flag: counter,
  created_at: optionalTimestamp,
  updated_at: optionalTimestamp,
  last_started_at: optionalTimestamp,
  last_backup_at: optionalTimestamp,
}).transform((detail) => ({ ...detail, operation_flag: operationFlagOf(detail.operation_flag, detail.status) }));

/**
 * The response of create (§2.4). Only `uuid` is required: the VM exists (and bills) once this answer
 * arrives, so an unexpected shape of any other field must not turn a successful create into an error.
 */
export const createdInstance = z.object({
  uuid: z.string(),
  hostname: z.string().optional(),
  node_id: integer.optional(),
  cpu: cpuCount.optional(),
  memory: sizeGb.optional(),
  storage: sizeGb.optional(),
  status: z.string().optional(),
  username: z.string().optional(),
  active_price_per_min: decimal.optional(),
  inactive_price_per_min: decimal.optional(),
  template_id: integer.optional(),
  billing_id: integer.optional(),
  customer_id: integer.optional(),
  updated_at: optionalTimestamp,
  created_at: optionalTimestamp,
  id: integer.optional(),
});

/** A size template (§2.5); `total_ram` and `total_disk` are GB (real-api-facts.md). */
export const sizeTemplate = z.object({
  id: integer,
  title: z.string(),
  total_cpu: integer,
  total_ram: sizeGb,
  total_disk: sizeGb,
  created_at: optionalTimestamp,
  updated_at: optionalTimestamp,
});

/** Monitoring series (§2.6). `time` ("YYYY-MM-DD HH:MM", UTC+7) -> ISO UTC; the last point is in progress. */
export const instanceMetrics = z.object({
  cpu: z.array(z.object({ time: timestamp, cpu: decimal })),
  memory: z.array(
    z.object({
      time: timestamp,
      raw_max_memory: decimal,
      max_memory: z.string(),
      raw_usage_memory: decimal,
      usage_memory: z.string(),
    }),
  ),
  network: z.array(
    z.object({ time: timestamp, raw_netin: decimal, netin: z.string(), raw_netout: decimal, netout: z.string() }),
  ),
  disk: z.array(
    z.object({
      time: timestamp,
      raw_diskwrite: decimal,
      diskwrite: z.string(),
      raw_diskread: decimal,
      diskread: z.string(),
    }),
  ),
});

/** `{vm_uuid}`: the answer of change-tier and private-network updates. */
export const vmUuidRef = z.object({ vm_uuid: z.string() });

/** Clone answers only the new instance's uuid. */
export const clonedInstance = z.object({ uuid: z.string() });

/**
 * Delete answers an array of `{uuid, hostname}`; a single object or nothing is accepted too and output
 * as an array.
 */
export const deletedInstances = z
  .union([z.array(instanceRef), instanceRef, z.null()])
  .optional()
  .transform((v) => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]));

/**
 * The virtual console (§2.17): `{url, password}`. One client reads `data.webview` instead of `data.url`
 * (real-api-facts.md): either is accepted and output as `url`.
 */
export const consoleConnection = z
  .object({ url: z.string().optional(), webview: z.string().optional(), password: z.string().nullish() })
  .refine((v) => v.url !== undefined || v.webview !== undefined, { message: "neither url nor webview is present" })
  .transform((v) => ({ url: (v.url ?? v.webview)!, password: v.password ?? null }));

/** Change-tier cost estimate (§2.12). */
export const changeTierCost = z.object({
  current_monthly_cost: decimal,
  estimated_new_monthly_cost: decimal,
});

/** An instance without a public address (options endpoint): `{id, hostname}`, id being the uuid. */
export const instanceOption = z.object({ id: idString, hostname: z.string() });

/** Normalized instance list row. */
export type InstanceListItem = z.output<typeof instanceListItem>;
/** Normalized instance list page (rows, page info, `active_operation`). */
export type InstanceList = z.output<typeof instanceList>;
/** Normalized instance detail. */
export type InstanceDetail = z.output<typeof instanceDetail>;
/** Normalized `os` object of the instance detail. */
export type InstanceOs = z.output<typeof instanceOs>;
/** Normalized public address of an instance (`null` on the detail when there is none). */
export type InstancePublicIp = NonNullable<z.output<typeof publicIp>>;
/** Normalized create response. */
export type CreatedInstance = z.output<typeof createdInstance>;
/** Normalized size template. */
export type SizeTemplate = z.output<typeof sizeTemplate>;
/** Normalized monitoring series. */
export type InstanceMetrics = z.output<typeof instanceMetrics>;
/** `{vm_uuid}` answer. */
export type VmUuidRef = z.output<typeof vmUuidRef>;
/** Clone answer. */
export type ClonedInstance = z.output<typeof clonedInstance>;
/** Normalized virtual console connection. */
export type ConsoleConnection = z.output<typeof consoleConnection>;
/** Normalized change-tier cost estimate. */
export type ChangeTierCost = z.output<typeof changeTierCost>;
/** An instance without a public address. */
export type InstanceOption = z.output<typeof instanceOption>;
/** Reference to an instance: `{uuid, hostname?}`. */
export type { InstanceRef } from "./common";
