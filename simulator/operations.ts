/**
 * The asynchronous operation state machine. An operation marks its instance busy (`operation_flag` 1),
 * shows a transitional status, and ends `opSeconds` later. Nothing runs on a timer: {@link advance}
 * is called at the start of every request and admin read and completes, in end-time order, every
 * operation whose end has passed, applying its effect as of its end time. So an injected clock drives
 * progress deterministically.
 */
import { removeInstance } from "./model";
import type { Instance, Operation, OperationKind, SimContext } from "./state";

/** Client operation ids that name an operation kind (accepted by the `failNext` / `stickNext` faults). */
export const kindByOperationId: Readonly<Record<string, OperationKind>> = {
  createInstance: "create", cloneInstance: "clone", resizeInstance: "resize", changeTier: "changeTier",
  startInstance: "start", stopInstance: "stop", restartInstance: "restart", reinstallInstance: "reinstall",
  deleteInstance: "delete", createSnapshot: "snapshot", deleteSnapshot: "snapshotDelete",
  rollbackSnapshot: "rollback",
};

/** The status an instance shows while an operation of this kind runs (null: it keeps its status). */
const transitional: Record<OperationKind, string | null> = {
  create: "creating", clone: "creating", start: "starting", stop: "stopping", restart: "restarting",
  resize: "resizing", changeTier: "resizing", reinstall: "reinstalling", delete: "deleting",
  snapshot: null, snapshotDelete: null, rollback: "rollingback",
};

/** Takes one pending injected outcome for a kind, if any. */
function takeFault(counts: Partial<Record<OperationKind, number>>, kind: OperationKind): boolean {
  const n = counts[kind] ?? 0;
  if (n <= 0) return false;
  counts[kind] = n - 1;
  return true;
}

/** Starts an operation on an (idle) instance. */
export function startOperation(
  ctx: SimContext, inst: Instance, kind: OperationKind, params: Record<string, unknown> = {},
): Operation {
  const stuck = takeFault(ctx.opFaults.stick, kind);
  const fails = !stuck && takeFault(ctx.opFaults.fail, kind);
  const op: Operation = {
    id: ctx.ids.uuid(), kind, instanceUuid: inst.uuid, startedAt: ctx.now,
    endsAt: stuck ? null : ctx.now + Math.round(ctx.opSeconds * 1000),
    outcome: fails ? "failure" : "success", previousStatus: inst.status, params,
  };
  ctx.state.operations.push(op);
  inst.operationId = op.id;
  inst.status = transitional[kind] ?? inst.status;
  inst.updatedAt = ctx.now;
  return op;
}

/** Completes every operation that has ended by `ctx.now`, and settles invoices that are due. */
export function advance(ctx: SimContext): void {
  const due = ctx.state.operations
    .filter((op) => op.endsAt !== null && op.endsAt <= ctx.now)
    .sort((a, b) => a.endsAt! - b.endsAt!);
  for (const op of due) complete(ctx, op);
  settleInvoices(ctx);
}

/** Ends an operation at once with its planned outcome (used by the admin API to un-stick one). */
export function finishNow(ctx: SimContext, op: Operation, outcome: Operation["outcome"] = op.outcome): void {
  op.outcome = outcome;
  op.endsAt = ctx.now;
  complete(ctx, op);
}

/**
 * Drops an operation without applying its effect (admin out-of-band changes): the instance gets back the
 * status it had before, and a snapshot the operation was making or removing is left in `Error`.
 */
export function cancelOperation(ctx: SimContext, op: Operation): void {
  ctx.state.operations = ctx.state.operations.filter((o) => o !== op);
  const inst = ctx.state.instances.find((i) => i.uuid === op.instanceUuid);
  if (inst && inst.operationId === op.id) {
    inst.operationId = null;
    inst.status = op.previousStatus;
    inst.updatedAt = ctx.now;
  }
  const snapshot = ctx.state.snapshots.find((s) => s.uuid === op.params["snapshotUuid"]);
  if (snapshot && (op.kind === "snapshot" || op.kind === "snapshotDelete")) snapshot.status = "Error";
}

function complete(ctx: SimContext, op: Operation): void {
  const state = ctx.state;
  const at = op.endsAt ?? ctx.now;
  state.operations = state.operations.filter((o) => o !== op);
  const inst = state.instances.find((i) => i.uuid === op.instanceUuid);
  if (!inst) return;
  inst.operationId = null;
  inst.updatedAt = at;
  const snapshot = typeof op.params["snapshotUuid"] === "string"
    ? state.snapshots.find((s) => s.uuid === op.params["snapshotUuid"]) : undefined;

  if (op.outcome === "failure") {
    // Snapshot operations fail on the snapshot; the instance goes back to what it was doing.
    if (op.kind === "snapshot" || op.kind === "snapshotDelete") {
      if (snapshot) snapshot.status = "Error";
      inst.status = op.previousStatus;
    } else {
      inst.status = "Error";
    }
    return;
  }

  switch (op.kind) {
    case "create":
    case "clone":
      inst.status = "Running";
      inst.lastStartedAt = at;
      if (inst.includeBackup) {
        // First scheduled backup right after creation, so the history is never empty for such instances.
        state.backups.push({
          uuid: ctx.ids.uuid(), instanceUuid: inst.uuid, schedule: "Daily", sizeGb: inst.storageGb,
          attachedStorage: [], createdAt: at,
        });
        inst.lastBackupAt = at;
      }
      break;
    case "start":
    case "restart":
      inst.status = "Running";
      inst.lastStartedAt = at;
      break;
    case "stop":
      inst.status = "Stopped";
      break;
    case "resize":
      inst.cpu = Number(op.params["cpu"]);
      inst.memoryGb = Number(op.params["memoryGb"]);
      inst.storageGb = Number(op.params["storageGb"]);
      inst.dedicatedCpu = Boolean(op.params["dedicatedCpu"]);
      inst.status = op.previousStatus;
      break;
    case "changeTier":
      inst.tierId = Number(op.params["tierId"]);
      inst.status = op.previousStatus;
      break;
    case "reinstall":
      inst.templateId = Number(op.params["templateId"]);
      if (typeof op.params["username"] === "string") inst.username = op.params["username"];
      if (typeof op.params["password"] === "string") inst.password = op.params["password"];
      inst.status = "Running";
      inst.lastStartedAt = at;
      break;
    case "delete":
      removeInstance(state, inst, Boolean(op.params["removeIp"]), Boolean(op.params["removeBlockStorage"]), at, { by: "api", requestedAt: op.startedAt });
      break;
    case "snapshot":
      if (snapshot) {
        snapshot.status = "Ready";
        snapshot.readyAt = at;
        for (const s of state.snapshots) if (s.instanceUuid === inst.uuid) s.isCurrentState = s === snapshot;
      }
      inst.status = op.previousStatus;
      break;
    case "snapshotDelete":
      if (snapshot) state.snapshots = state.snapshots.filter((s) => s !== snapshot);
      inst.status = op.previousStatus;
      break;
    case "rollback":
      // The real API says the instance must be started after a rollback: it ends Stopped.
      if (snapshot) for (const s of state.snapshots) if (s.instanceUuid === inst.uuid) s.isCurrentState = s === snapshot;
      inst.status = "Stopped";
      break;
  }
}

function settleInvoices(ctx: SimContext): void {
  const state = ctx.state;
  const due = state.invoices.filter((inv) => inv.status === "Pending" && inv.paysAt <= ctx.now).sort((a, b) => a.paysAt - b.paysAt);
  for (const inv of due) {
    inv.status = "Paid";
    state.balance = Math.round((state.balance + inv.amount) * 100) / 100;
    const method = state.paymentMethods.find((m) => m.code === inv.paymentMethod);
    state.credit.push({
      id: state.counters.creditId++, type: "Add", description: `Top up via ${method?.name ?? inv.paymentMethod}`,
      amount: inv.amount, balanceAfter: state.balance, createdAt: inv.paysAt,
    });
  }
}
