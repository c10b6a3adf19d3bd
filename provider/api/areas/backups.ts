/**
 * Backups of an instance (`client.backups`).
 */
import type { CallFunction } from "../operations";
import { collectAll } from "../paginate";
import type { Backup, BackupList, BackupPrice } from "../schemas/backups";
import { LIST_ALL_PAGE_SIZE, undefinedIfNotFound, type RequestOptions } from "./util";

/** The backup operations. */
export interface BackupsApi {
  /** One page of the instance's backup history. */
  list(instanceUuid: string, query?: { page?: number; limit?: number }, options?: RequestOptions): Promise<BackupList>;
  /** The whole backup history across pages. */
  listAll(instanceUuid: string, options?: RequestOptions): Promise<Backup[]>;
  /** Backup price estimate for a tier. */
  price(instanceUuid: string, params: { tierId: number }, options?: RequestOptions): Promise<BackupPrice>;
  /** Deletes a backup file; resolves to undefined if it was already gone (404/410). */
  delete(instanceUuid: string, backupUuid: string, options?: RequestOptions): Promise<unknown>;
}

/** Builds the backup operations on a generic call. */
export function createBackupsApi(call: CallFunction): BackupsApi {
  const api: BackupsApi = {
    list: (instanceUuid, query, options) =>
      call("listBackups", {
        path: { instance_uuid: instanceUuid },
        query: { page: query?.page, limit: query?.limit },
        signal: options?.signal,
      }),
    listAll: (instanceUuid, options) =>
      collectAll((page) => api.list(instanceUuid, { page, limit: LIST_ALL_PAGE_SIZE }, options)),
    price: (instanceUuid, p, options) =>
      call("getBackupPrice", { path: { instance_uuid: instanceUuid }, query: { tier_id: p.tierId }, signal: options?.signal }),
    delete: (instanceUuid, backupUuid, options) =>
      undefinedIfNotFound(
        call("deleteBackup", {
          path: { instance_uuid: instanceUuid, snapshot_uuid: backupUuid },
          body: {},
          signal: options?.signal,
        }),
      ),
  };
  return api;
}
