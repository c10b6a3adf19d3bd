/** All wire schemas, re-exported for `schemas.*` access (e.g. `schemas.instanceDetail`). */
export * from "./common";
export * from "./instances";
export * from "./network";
export * from "./firewall";
export * from "./storage";
export * from "./snapshots";
export * from "./backups";
export {
  listOrWrapped,
  locationRecord,
  systemRecord,
  tierRecord,
  type LocationRecord,
  type SystemRecord,
  type TierRecord,
} from "./catalog";
export * from "./billing";
