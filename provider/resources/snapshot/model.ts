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

/** Provider-only inputs carried from the state into outputs (never sent to the API). */
type Carried = Pick<SnapshotInputs, "instanceId" | "adoptId" | "timeouts">;

/** The outputs of a snapshot: its API values plus the carried provider-only inputs. */
export function snapshotOutputs(carried: Carried, s: ApiSnapshot): SnapshotOutputs {
  return {
    instanceId: carried.instanceId,
    name: s.name,
    description: s.description,
    ...(carried.adoptId !== undefined ? { adoptId: carried.adoptId } : {}),
    ...(carried.timeouts !== undefined ? { timeouts: carried.timeouts } : {}),
    status: s.status,
    isCurrentState: s.is_current_state,
    attachedStorage: s.attached_storage.map((a) => ({ id: a.id, name: a.name, size: a.size })),
    currentHourlyPrice: s.current_hourly_price,
    estimatedMonthly: s.estimated_monthly,
    createdAt: s.created_at,
  };
}

