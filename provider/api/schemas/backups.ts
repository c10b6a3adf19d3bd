/**
 * Wire schemas of backups (api-spec.md §2.12, §2.13, §4.3, §4.6).
 */
import { z } from "zod";
import { attachedStorage, decimal, idString, optionalTimestamp, paged, unknownData } from "./common";

/** Backup price estimate (§2.12). */
export const backupPrice = z.object({
  storage_size: decimal,
  block_storage_size: decimal,
  price_per_hour: decimal,
  price_per_month: decimal,
});

/** A backup history item (§2.13). `size` is a number (unit not shown; GB on the panel). */
export const backup = z.object({
  id: idString,
  schedule: z.string().nullish().transform((v) => v ?? null),
  current_cost: decimal.nullish().transform((v) => v ?? null),
  est_this_month: decimal.nullish().transform((v) => v ?? null),
  size: decimal.nullish().transform((v) => v ?? null),
  created_at: optionalTimestamp,
  attached_storage: z.array(attachedStorage).nullish().transform((v) => v ?? []),
});

/** Paged backup history. */
export const backupList = paged(backup);

/** Delete-backup answers are not shown. */
export const deletedBackup = unknownData;

/** Normalized backup price. */
export type BackupPrice = z.output<typeof backupPrice>;
/** Normalized backup history item. */
export type Backup = z.output<typeof backup>;
/** Normalized backup history page. */
export type BackupList = z.output<typeof backupList>;
