/**
 * Wire schemas of snapshots (api-spec.md §2.11, §2.12, §4.3, §4.6).
 */
import { z } from "zod";
import { attachedStorage, decimal, idString, optionalFlag, optionalTimestamp } from "./common";

/** A snapshot (§2.11). Status is a free string (`Error` is one member of an unpublished enum). */
export const snapshot = z.object({
  id: idString,
  name: z.string(),
  description: z.string().nullish().transform((v) => v ?? ""),
  status: z.string(),
  current_hourly_price: decimal.nullish().transform((v) => v ?? null),
  current_cost: decimal.nullish().transform((v) => v ?? null),
  estimated_monthly: decimal.nullish().transform((v) => v ?? null),
  is_current_state: optionalFlag,
  attached_storage: z.array(attachedStorage).nullish().transform((v) => v ?? []),
  created_at: optionalTimestamp,
});

/** Snapshot price estimate (§2.12). */
export const snapshotPrice = z.object({ price_per_month: decimal });

/** Create answers `{snap_uuid}`. */
export const createdSnapshot = z.object({ snap_uuid: z.string() });

/** Rollback answers `{uuid}` (the instance); the instance must be started afterwards. */
export const rolledBackSnapshot = z.object({ uuid: z.string() });

/** Delete answers `{vm_uuid, snap_uuid}` (tolerated when partial). */
export const deletedSnapshot = z
  .object({ vm_uuid: z.string().optional(), snap_uuid: z.string().optional() })
  .nullish()
  .transform((v) => ({ vm_uuid: v?.vm_uuid ?? null, snap_uuid: v?.snap_uuid ?? null }));

/** Normalized snapshot. */
export type Snapshot = z.output<typeof snapshot>;
/** Normalized snapshot price. */
export type SnapshotPrice = z.output<typeof snapshotPrice>;
/** Create-snapshot answer. */
export type CreatedSnapshot = z.output<typeof createdSnapshot>;
/** Rollback answer. */
export type RolledBackSnapshot = z.output<typeof rolledBackSnapshot>;
/** Delete-snapshot answer. */
export type DeletedSnapshot = z.output<typeof deletedSnapshot>;
