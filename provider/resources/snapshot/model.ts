/**
 * Snapshot: pure mapping from the API's snapshot record (normalized by the client) to the resource's
 * outputs and the inputs `read` reports. No I/O.
 */
import type { Snapshot as ApiSnapshot } from "../../api";
import type { SnapshotInputs, SnapshotOutputs } from "./inputs";

/** What one poll of a snapshot being taken concludes. */
export type SnapshotProgress = "ready" | "failed" | "pending";

/**
 * Classifies a snapshot's status. Settled: `Ready` (the spec's value; `active`, `available` and `success`,
 * which some hosts send, read alike) and `Error` (the one failure value the spec shows; `Failed` is treated
 * alike); anything else ("creating", "Processing", ...) is still going. Case and spaces are ignored.
 */
export function snapshotProgress(status: string): SnapshotProgress {
  const s = status.trim().toLowerCase();
  if (s === "ready" || s === "active" || s === "available" || s === "success") return "ready";
  if (s === "error" || s === "failed") return "failed";
  return "pending";
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

