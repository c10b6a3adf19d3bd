/** Block storage routes: list, options per location, attach, detach. */
import { fieldError, notFound } from "../errors";
import type { Handler } from "../handler";
import { ok, queryInput } from "../handler";
import { locationById, requireIdle } from "../model";
import type { BlockStorage, SimContext } from "../state";
import { Validator } from "../validation";
import { dayMonthYearTime } from "../wire";

function findStorage(ctx: SimContext, id: string): BlockStorage {
  const b = ctx.state.blockStorages.find((x) => x.uuid === id.toLowerCase());
  if (!b) throw notFound("Block storage");
  return b;
}

const listBlockStorages: Handler = (ctx) =>
  ok("Success", ctx.state.blockStorages.map((b) => {
    const inst = b.instanceUuid ? ctx.state.instances.find((i) => i.uuid === b.instanceUuid) : undefined;
    return {
      id: b.uuid,
      name: b.name,
      size: `${b.sizeGb}GB`,
      location_id: b.locationId,
      location: locationById(ctx.state, b.locationId)?.name ?? "",
      instance_id: b.instanceUuid,
      instance_hostname: inst?.hostname ?? null,
      status: b.instanceUuid ? "Attached" : "Available",
      created_at: dayMonthYearTime(b.createdAt, ctx.wire?.textTimeZone),
    };
  }));

const listBlockStorageOptions: Handler = (ctx, req) => {
  const v = new Validator(queryInput(req.query));
  const locationId = v.integer("location_id", { required: true });
  if (locationId !== undefined && !locationById(ctx.state, locationId)) v.fail("location_id", "The selected location id is invalid.");
  v.check();
  return ok("Success", ctx.state.blockStorages
    .filter((b) => b.locationId === locationId && b.instanceUuid === null)
    .map((b) => ({ id: b.uuid, name: b.name, size: `${b.sizeGb}GB` })));
};

const attachBlockStorage: Handler = (ctx, req) => {
  const storage = findStorage(ctx, req.params["block_storage_id"]!);
  const v = new Validator(req.body);
  const instanceId = v.uuid("instance_id", { required: true });
  v.check();
  const inst = ctx.state.instances.find((i) => i.uuid === instanceId);
  if (!inst) throw fieldError("instance_id", "The selected instance id is invalid.");
  if (inst.locationId !== storage.locationId) throw fieldError("instance_id", "The block storage and the instance must be in the same location.");
  if (storage.instanceUuid !== null && storage.instanceUuid !== inst.uuid) {
    throw fieldError("instance_id", "The block storage is already attached to another instance.");
  }
  requireIdle(inst);
  storage.instanceUuid = inst.uuid;
  inst.updatedAt = ctx.now;
  return ok("Block storage successfully attached", { storage_id: storage.uuid });
};

const detachBlockStorage: Handler = (ctx, req) => {
  const storage = findStorage(ctx, req.params["block_storage_id"]!);
  const inst = storage.instanceUuid ? ctx.state.instances.find((i) => i.uuid === storage.instanceUuid) : undefined;
  if (inst) {
    requireIdle(inst);
    inst.updatedAt = ctx.now;
  }
  // Detaching a storage that is not attached changes nothing and is answered as success.
  storage.instanceUuid = null;
  return ok("Block storage successfully detached", { storage_id: storage.uuid });
};

/** Handlers of the storage routes, by operation id. */
export const storageHandlers = {
  listBlockStorages, listBlockStorageOptions, attachBlockStorage, detachBlockStorage,
} satisfies Record<string, Handler>;
