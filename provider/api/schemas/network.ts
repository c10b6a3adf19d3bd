/**
 * Wire schemas of public addresses and private networks (vswitches) (api-spec.md §2.9, §2.10, §4.1, §4.4, §4.6).
 */
import { z } from "zod";
import { decimal, flag, idString, integer, location, optionalTimestamp, phpObject, phpRecord, placeholderString } from "./common";

/** Answer of change-public-ip: `{instance, public_ip}`; `public_ip` is null (or `-`/blank) after a removal. */
export const changedPublicIp = z.object({
  instance: z.string(),
  public_ip: placeholderString,
});

/** Answer of add-public-ip: `{vm_uuid, ip_address}`. */
export const addedPublicIp = z.object({
  vm_uuid: z.string(),
  ip_address: placeholderString,
});

/** Answer of update-rdns: the stored reverse DNS name (a string). */
export const storedRdns = z.string();

/** The gateway of a private network; every field is null when no gateway is set. */
export const vswitchGateway = phpObject(z
  .object({ uuid: z.string().nullish(), hostname: z.string().nullish(), private_ip: z.string().nullish() })
  .nullish())
  .transform((g) => ({ uuid: g?.uuid ?? null, hostname: g?.hostname ?? null, private_ip: g?.private_ip ?? null }));

/**
 * A private network in the list and options endpoints (§2.9). `location` is a name string here and is
 * output as `{id: null, name}` so list rows and details look the same. `location_flag` (one host) is kept.
 */
export const vswitch = z.object({
  uuid: z.string(),
  name: z.string(),
  tag: integer,
  // (a name the provider only compares when known: null or missing is unknown, real-api-facts audit)
  location: location.nullish().transform((v) => v ?? null),
  location_flag: z.string().nullish(),
  network_ip: z.string().nullish().transform((v) => v ?? null),
  gateway: vswitchGateway,
  status: z.string(),
  created_at: optionalTimestamp,
});

/** A private network's detail (§2.9): `location` is `{id, name}` here; `vid` may arrive as a number. */
export const vswitchDetail = z.object({
  uuid: z.string(),
  name: z.string(),
  tag: integer,
  vid: z.union([z.string(), z.number()]).nullish().transform((v) => (v === undefined || v === null ? null : String(v))),
  location: location.nullish().transform((v) => v ?? null),
  total_active_instance: integer.nullish().transform((v) => v ?? null),
  status: z.string(),
  gateway: vswitchGateway,
  created_at: optionalTimestamp,
  last_update_at: optionalTimestamp,
});

/** A node of the private network graph (§2.10); `type`, `data` and `style` contents are not shown. */
export const vswitchGraphNode = z.object({
  id: idString,
  type: z.string().nullish(),
  position: phpObject(z.object({ x: decimal, y: decimal }).nullish()),
  data: phpRecord.nullish(),
  style: phpRecord.nullish(),
  parent: idString.nullish(),
  draggable: flag.nullish(),
});

/** An edge of the private network graph (§2.10). */
export const vswitchGraphEdge = z.object({
  id: idString,
  source: idString,
  target: idString,
  label: z.string().nullish(),
});

/** The private network topology graph (§2.10). */
export const vswitchGraph = z.object({
  nodes: z.array(vswitchGraphNode),
  edges: z.array(vswitchGraphEdge),
});

/** Normalized change-public-ip answer. */
export type ChangedPublicIp = z.output<typeof changedPublicIp>;
/** Normalized add-public-ip answer. */
export type AddedPublicIp = z.output<typeof addedPublicIp>;
/** Normalized private network gateway (all null when none). */
export type VswitchGateway = z.output<typeof vswitchGateway>;
/** Normalized private network list item. */
export type Vswitch = z.output<typeof vswitch>;
/** Normalized private network detail. */
export type VswitchDetail = z.output<typeof vswitchDetail>;
/** Normalized private network graph. */
export type VswitchGraph = z.output<typeof vswitchGraph>;
