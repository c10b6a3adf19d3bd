/**
 * Block storage (`client.storage`).
 */
import type { CallFunction } from "../operations";
import { collectAll } from "../paginate";
import { bodyFromInputs } from "../request";
import type { AttachedBlockStorage, BlockStorage, BlockStorageOption } from "../schemas/storage";
import { LIST_ALL_PAGE_SIZE, type RequestOptions } from "./util";

/** The block storage operations. */
export interface StorageApi {
  /** Block storages of a location that are not attached to any instance (sizes in GB). */
  listOptions(params: { locationId: number }, options?: RequestOptions): Promise<BlockStorageOption[]>;
  /**
   * Every block storage of the account with its attached instance (`attached_instance_uuid`, null when
   * detached). Not in the spec (client code only): all pages are collected when the host pages it.
   */
  list(options?: RequestOptions): Promise<BlockStorage[]>;
  /** Attaches a block storage to an instance. */
  attach(blockStorageId: string, params: { instanceId: string }, options?: RequestOptions): Promise<AttachedBlockStorage | null>;
  /** Detaches a block storage from its instance (client code only; no body). */
  detach(blockStorageId: string, options?: RequestOptions): Promise<unknown>;
}

/** Builds the block storage operations on a generic call. */
export function createStorageApi(call: CallFunction): StorageApi {
  return {
    listOptions: (p, options) =>
      call("listBlockStorageOptions", { query: { location_id: p.locationId }, signal: options?.signal }),
    // Every page (a bare array is one page): a disk past page 1 read as "missing", so a refresh dropped an attachment
    // that stands, delete left the disk attached, and create said it did not exist.
    list: (options) =>
      collectAll((page) => call("listBlockStorages", { query: { page, limit: LIST_ALL_PAGE_SIZE }, signal: options?.signal })),
    attach: (blockStorageId, p, options) =>
      call("attachBlockStorage", {
        path: { block_storage_id: blockStorageId },
        ...bodyFromInputs({ instance_id: ["instanceId", p.instanceId] }),
        signal: options?.signal,
      }),
    detach: (blockStorageId, options) =>
      call("detachBlockStorage", { path: { block_storage_id: blockStorageId }, body: {}, signal: options?.signal }),
  };
}
