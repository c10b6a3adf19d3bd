/**
 * Snapshot: pure mapping from the API's snapshot record (normalized by the client) to the resource's
 * outputs and the inputs `read` reports. No I/O.
 */
import type { Snapshot as ApiSnapshot } from "../../api";
import type { SnapshotInputs, SnapshotOutputs } from "./inputs";

/**
 * What one poll of a snapshot being taken concludes. `unknown`: a status word that names neither progress nor an end
 * (the API's snapshot statuses are an unpublished enum: real-api-facts.md); the caller decides by the instance.
 */
export type SnapshotProgress = "ready" | "failed" | "pending" | "unknown";

const READY_WORDS = new Set(["ready", "active", "available", "success", "successful", "completed", "complete", "done", "finished", "created", "ok"]);
// (exact: a snapshot read as failed is replaced, which deletes it; an unknown word is decided by its instance instead)
const FAILED_WORDS = new Set(["error", "failed", "failure", "fail"]);
const PENDING_WORDS = /creat|process|pend|queue|progress|running|start|wait|saving|snapshotting|build|prepar|schedul/;

/**
 * Classifies a snapshot's status. Settled: `Ready` (the simulator's word; `active`, `available`, `success`,
 * `completed`, `done` and the like, which hosts may send, read alike) and `Error` (the one value the spec shows;
 * `Failed` is treated alike); words of progress ("creating", "Processing", "in progress", ...) are still going;
 * anything else is `unknown` (simulator audit: a host whose finished word was not listed made every snapshot wait to
 * its deadline, 30 minutes by default). Case and spaces are ignored.
 */
export function snapshotProgress(status: string): SnapshotProgress {
  const s = status.trim().toLowerCase();
  if (READY_WORDS.has(s)) return "ready";
  if (FAILED_WORDS.has(s)) return "failed";
  if (s === "" || PENDING_WORDS.test(s)) return "pending";
  return "unknown";
}

/**
 * Inputs carried from the state into outputs (never sent to the API): the provider-only ones, and what the program
 * declared as name and description (`declaredName`, `declaredDescription`: a refresh keeps them, so the diff tells a
 * change made in the panel from one made in the program; see diff.ts). A state written before they were recorded has
 * none, and none are made up: the diff then refuses rather than replace (diff.ts).
 */
export type Carried = Pick<SnapshotOutputs, "instanceId" | "adoptId" | "timeouts" | "declaredName" | "declaredDescription">;

/** What create and update carry: the declared inputs, with `name` and `description` recorded as declared. */
export function declaring(inputs: Pick<SnapshotInputs, "instanceId" | "name" | "description" | "adoptId" | "timeouts">): Carried {
  return {
    instanceId: inputs.instanceId,
    ...(inputs.adoptId !== undefined ? { adoptId: inputs.adoptId } : {}),
    ...(inputs.timeouts !== undefined ? { timeouts: inputs.timeouts } : {}),
    declaredName: inputs.name,
    declaredDescription: inputs.description,
  };
}

/** The outputs of a snapshot: its API values plus the carried inputs. */
export function snapshotOutputs(carried: Carried, s: ApiSnapshot): SnapshotOutputs {
  return {
    instanceId: carried.instanceId,
    name: s.name,
    description: s.description,
    ...(carried.adoptId !== undefined ? { adoptId: carried.adoptId } : {}),
    ...(carried.timeouts !== undefined ? { timeouts: carried.timeouts } : {}),
    ...(typeof carried.declaredName === "string" ? { declaredName: carried.declaredName } : {}),
    ...(typeof carried.declaredDescription === "string" ? { declaredDescription: carried.declaredDescription } : {}),
    status: s.status,
    isCurrentState: s.is_current_state,
    attachedStorage: s.attached_storage.map((a) => ({ id: a.id, name: a.name, size: a.size })),
    currentHourlyPrice: s.current_hourly_price,
    estimatedMonthly: s.estimated_monthly,
    createdAt: s.created_at,
  };
}

