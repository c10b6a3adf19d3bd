/**
 * Snapshot: pure mapping from the API's snapshot record (normalized by the client) to the resource's
 * outputs and the inputs `read` reports. No I/O.
 */
import type { Snapshot as ApiSnapshot } from "../../api";
import type { SnapshotInputs, SnapshotOutputs } from "./inputs";

/** What one poll of a snapshot being taken concludes. */
export type SnapshotProgress = "ready" | "failed" | "pending";

// The API's snapshot statuses are an unpublished enum (real-api-facts.md: `Error` is one member); the simulator says
// `Ready`. Hosts may answer in English or Indonesian. "created" is neither list: some APIs use it for the first state.
const READY_WORDS = new Set([
  "ready", "active", "available", "success", "successful", "succeeded", "completed", "complete", "done", "finished", "ok",
  "siap", "tersedia", "selesai", "aktif", "berhasil", "sukses",
]);
const FAILED_WORDS = /error|fail|gagal/;

/**
 * Classifies a snapshot's status: `ready` for a finished word (above), `failed` for a word of failure ("Error",
 * "failed", "create_failed", "gagal"), anything else `pending`: a word this provider does not know is waited on, never
 * taken as finished (a review: taking it as finished once the instance was idle recorded as a restore point a snapshot
 * still being taken, or failed in words not listed). The wait says so, naming the word, and its deadline error too.
 * Case and spaces are ignored.
 */
export function snapshotProgress(status: string): SnapshotProgress {
  const s = status.trim().toLowerCase().replace(/[\s_-]+/g, " ");
  if (READY_WORDS.has(s)) return "ready";
  if (FAILED_WORDS.test(s)) return "failed";
  return "pending";
}

/** Words of progress ("creating", "in progress", "diproses", ...): a pending status not among them is unknown to this provider. */
export function isKnownProgressWord(status: string): boolean {
  const s = status.trim().toLowerCase();
  return s === "" || /creating|process|proses|pend|queue|antri|progress|running|start|wait|menunggu|membuat|saving|snapshotting|build|prepar|schedul/.test(s);
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

