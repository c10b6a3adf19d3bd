/**
 * Snapshots of an instance (`client.snapshots`).
 */
import type { CallFunction } from "../operations";
import { bodyFromInputs } from "../request";
import type { CreatedSnapshot, DeletedSnapshot, RolledBackSnapshot, Snapshot, SnapshotPrice } from "../schemas/snapshots";
import { undefinedIfNotFound, type RequestOptions } from "./util";

/** The snapshot operations. */
export interface SnapshotsApi {
  /** The instance's snapshots. */
  list(instanceUuid: string, options?: RequestOptions): Promise<Snapshot[]>;
  /**
   * Starts a snapshot (never re-sent automatically: an ambiguous failure throws `AmbiguousRequestError`;
   * look for the name in `list` before retrying). Answers `{snap_uuid}` before the snapshot is ready.
   */
  create(instanceUuid: string, params: { name: string; description: string }, options?: RequestOptions): Promise<CreatedSnapshot>;
  /** Rolls the instance back to a snapshot; the instance must be started afterwards. */
  rollback(instanceUuid: string, snapshotUuid: string, options?: RequestOptions): Promise<RolledBackSnapshot>;
  /** Starts deleting a snapshot; resolves to undefined if it was already gone (404/410). */
  delete(instanceUuid: string, snapshotUuid: string, options?: RequestOptions): Promise<DeletedSnapshot | undefined>;
  /** Monthly price estimate of a snapshot for a tier. */
  price(instanceUuid: string, params: { tierId: number }, options?: RequestOptions): Promise<SnapshotPrice>;
}

/** Builds the snapshot operations on a generic call. */
export function createSnapshotsApi(call: CallFunction): SnapshotsApi {
  return {
    list: (instanceUuid, options) =>
      call("listSnapshots", { path: { instance_uuid: instanceUuid }, signal: options?.signal }),
    create: (instanceUuid, p, options) =>
      call("createSnapshot", {
        path: { instance_uuid: instanceUuid },
        ...bodyFromInputs({ name: ["name", p.name], description: ["description", p.description] }),
        signal: options?.signal,
      }),
    rollback: (instanceUuid, snapshotUuid, options) =>
      call("rollbackSnapshot", {
        path: { instance_uuid: instanceUuid, snapshot_uuid: snapshotUuid },
        body: {},
        signal: options?.signal,
      }),
    delete: (instanceUuid, snapshotUuid, options) =>
      undefinedIfNotFound(
        call("deleteSnapshot", {
          path: { instance_uuid: instanceUuid, snapshot_uuid: snapshotUuid },
          body: {},
          signal: options?.signal,
        }),
      ),
    price: (instanceUuid, p, options) =>
      call("getSnapshotPrice", { path: { instance_uuid: instanceUuid }, query: { tier_id: p.tierId }, signal: options?.signal }),
  };
}
