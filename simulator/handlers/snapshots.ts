/** Snapshot and backup routes, with their price estimates. */
import { fieldError, notFound } from "../errors";
import type { Handler, RequestData } from "../handler";
import { ok, paginate, queryInput } from "../handler";
import { attachedStorages, findInstance, requireIdle, tierById, tierOf } from "../model";
import { startOperation } from "../operations";
import type { Backup, Instance, SimContext, Snapshot, Tier } from "../state";
import { Validator } from "../validation";
import { dayMonthYearTime, round2 } from "../wire";
import { pageParams } from "./instances";

const instanceOf = (ctx: SimContext, req: RequestData): Instance => findInstance(ctx.state, req.params["instance_uuid"]!);

/** A snapshot on the wire; prices are null until it is Ready. */
function snapshotWire(ctx: SimContext, inst: Instance, s: Snapshot): Record<string, unknown> {
  const hourly = s.readyAt === null ? null : round2(s.sizeGb * tierOf(ctx.state, inst).snapshotPerGbHour);
  return {
    id: s.uuid,
    name: s.name,
    description: s.description,
    // `Ready` is the simulator's word for a finished snapshot (the spec shows only `Error`): `wire.snapshotReady` renames it.
    status: s.status === "Ready" && ctx.wire?.snapshotReady ? ctx.wire.snapshotReady : s.status,
    current_hourly_price: hourly,
    current_cost: hourly === null ? null : round2(hourly * Math.max(0, ctx.now - s.readyAt!) / 3600000),
    estimated_monthly: hourly === null ? null : round2(hourly * 720),
    is_current_state: s.isCurrentState,
    attached_storage: s.attachedStorage,
    created_at: dayMonthYearTime(s.createdAt, ctx.wire?.textTimeZone),
  };
}

function findSnapshot(ctx: SimContext, inst: Instance, uuid: string): Snapshot {
  const s = ctx.state.snapshots.find((x) => x.instanceUuid === inst.uuid && x.uuid === uuid.toLowerCase());
  if (!s) throw notFound("Snapshot");
  return s;
}

/** Reads the required `tier_id` query parameter of the price estimates. */
function tierQuery(ctx: SimContext, req: RequestData): Tier {
  const v = new Validator(queryInput(req.query));
  const tierId = v.integer("tier_id", { required: true });
  const tier = tierId === undefined ? undefined : tierById(ctx.state, tierId);
  if (tierId !== undefined && !tier) v.fail("tier_id", "The selected tier id is invalid.");
  v.check();
  return tier!;
}

const dataSize = (ctx: SimContext, inst: Instance): { storage: number; block: number } => ({
  storage: inst.storageGb,
  block: attachedStorages(ctx.state, inst).reduce((sum, b) => sum + b.sizeGb, 0),
});

const listSnapshots: Handler = (ctx, req) => {
  const inst = instanceOf(ctx, req);
  return ok("Success", ctx.state.snapshots.filter((s) => s.instanceUuid === inst.uuid).map((s) => snapshotWire(ctx, inst, s)));
};

const createSnapshot: Handler = (ctx, req) => {
  const inst = instanceOf(ctx, req);
  const v = new Validator(req.body);
  const name = v.string("name", { required: true, max: 50, pattern: /^[A-Za-z0-9][A-Za-z0-9 _.-]*$/ });
  const description = v.string("description", { required: true, max: 255 });
  v.check();
  requireIdle(inst);
  const size = dataSize(ctx, inst);
  const snapshot: Snapshot = {
    uuid: ctx.ids.uuid(), instanceUuid: inst.uuid, name: name!, description: description!, status: "creating",
    sizeGb: size.storage + size.block,
    attachedStorage: attachedStorages(ctx.state, inst).map((b) => ({ id: b.uuid, name: b.name, size: b.sizeGb })),
    isCurrentState: false, createdAt: ctx.now, readyAt: null,
  };
  ctx.state.snapshots.push(snapshot);
  startOperation(ctx, inst, "snapshot", { snapshotUuid: snapshot.uuid });
  return ok("Creating snapshot...", { snap_uuid: snapshot.uuid });
};

const rollbackSnapshot: Handler = (ctx, req) => {
  const inst = instanceOf(ctx, req);
  const snapshot = findSnapshot(ctx, inst, req.params["snapshot_uuid"]!);
  requireIdle(inst);
  if (snapshot.status !== "Ready") throw fieldError("snapshot_uuid", `The snapshot is not ready (status ${snapshot.status}).`);
  startOperation(ctx, inst, "rollback", { snapshotUuid: snapshot.uuid });
  return ok("Snapshot rollback is in progress. Start the instance after the rollback finishes.", { uuid: inst.uuid });
};

const deleteSnapshot: Handler = (ctx, req) => {
  const inst = instanceOf(ctx, req);
  const snapshot = findSnapshot(ctx, inst, req.params["snapshot_uuid"]!);
  requireIdle(inst);
  snapshot.status = "deleting";
  startOperation(ctx, inst, "snapshotDelete", { snapshotUuid: snapshot.uuid });
  return ok("Removing snapshot...", { vm_uuid: inst.uuid, snap_uuid: snapshot.uuid });
};

const getSnapshotPrice: Handler = (ctx, req) => {
  const inst = instanceOf(ctx, req);
  const tier = tierQuery(ctx, req);
  const size = dataSize(ctx, inst);
  return ok("Success", { price_per_month: round2((size.storage + size.block) * tier.snapshotPerGbHour * 720) });
};

const getBackupPrice: Handler = (ctx, req) => {
  const inst = instanceOf(ctx, req);
  const tier = tierQuery(ctx, req);
  const size = dataSize(ctx, inst);
  const perHour = round2((size.storage + size.block) * tier.backupPerGbHour);
  return ok("Success", {
    storage_size: size.storage, block_storage_size: size.block, price_per_hour: perHour, price_per_month: round2(perHour * 720),
  });
};

function backupWire(ctx: SimContext, inst: Instance, b: Backup): Record<string, unknown> {
  const hourly = b.sizeGb * tierOf(ctx.state, inst).backupPerGbHour;
  return {
    id: b.uuid,
    schedule: b.schedule,
    current_cost: round2(hourly * Math.max(0, ctx.now - b.createdAt) / 3600000),
    est_this_month: round2(hourly * 720),
    size: b.sizeGb,
    created_at: dayMonthYearTime(b.createdAt, ctx.wire?.textTimeZone),
    attached_storage: b.attachedStorage,
  };
}

const listBackups: Handler = (ctx, req) => {
  const inst = instanceOf(ctx, req);
  const v = new Validator(queryInput(req.query));
  const { page, limit } = pageParams(v, ctx);
  v.check();
  const items = ctx.state.backups.filter((b) => b.instanceUuid === inst.uuid)
    .sort((a, b) => b.createdAt - a.createdAt).map((b) => backupWire(ctx, inst, b));
  const paged = paginate(items, page, limit);
  return ok("Instance backup schedules", { page: paged.page, data: paged.data });
};

const deleteBackup: Handler = (ctx, req) => {
  const inst = instanceOf(ctx, req);
  const id = req.params["snapshot_uuid"]!.toLowerCase();
  const backup = ctx.state.backups.find((b) => b.instanceUuid === inst.uuid && b.uuid === id);
  if (!backup) throw notFound("Backup");
  requireIdle(inst);
  ctx.state.backups = ctx.state.backups.filter((b) => b !== backup);
  return ok("Removing backup...", { vm_uuid: inst.uuid, snap_uuid: backup.uuid });
};

/** Handlers of the snapshot and backup routes, by operation id. */
export const snapshotHandlers = {
  listSnapshots, createSnapshot, rollbackSnapshot, deleteSnapshot, getSnapshotPrice, getBackupPrice, listBackups, deleteBackup,
} satisfies Record<string, Handler>;
