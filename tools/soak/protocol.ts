/**
 * Messages between the soak (the engine side) and its provider process (tools/soak/worker.ts, the host side),
 * over Node's IPC channel. They carry what the engine and the dynamic-provider host exchange over gRPC:
 * property bags as JSON, and for a failure the message plus, for an initialization failure, the id,
 * properties and reasons the host puts in `ErrorResourceInitFailed`.
 */
import type { ResourceName } from "../../sdk/nodejs/stub";

/** A property bag as the engine holds it (JSON values). */
export type Props = Record<string, unknown>;

/** One provider method call, as the engine makes it. */
export type ProviderCall =
  | { method: "check"; resource: ResourceName; olds: Props; news: Props }
  | { method: "diff"; resource: ResourceName; id: string; olds: Props; news: Props }
  | { method: "create"; resource: ResourceName; properties: Props }
  | { method: "read"; resource: ResourceName; id: string; properties: Props }
  | { method: "update"; resource: ResourceName; id: string; olds: Props; news: Props }
  | { method: "delete"; resource: ResourceName; id: string; properties: Props };

/** What the host answers to each call (the gRPC response's content). */
export interface CheckAnswer { inputs: Props; failures: { property: string; reason: string }[] }
export interface DiffAnswer { changes: boolean | undefined; replaces: string[]; deleteBeforeReplace: boolean }
export interface CreateAnswer { id: string; properties: Props }
/** `id` "" means the resource is gone (the engine drops it). */
export interface ReadAnswer { id: string; properties: Props; inputs?: Props }
export interface UpdateAnswer { properties: Props }

/** A failed call: `initFailure` set when the error carried an id (the engine records the resource). */
export interface CallFailure {
  message: string;
  initFailure?: { id: string; properties: Props; reasons: string[] };
}

/** Parent -> child. */
export type ToWorker =
  | { seq: number; kind: "configure"; config: Record<string, string> }
  | { seq: number; kind: "call"; call: ProviderCall }
  /** A new run (deployment) starts: the provider forgets what it noted for the previous one. */
  | { seq: number; kind: "newDeployment" };

/** Child -> parent. */
export type FromWorker =
  | { seq: number; ok: true; value: unknown }
  | { seq: number; ok: false; failure: CallFailure }
  | { seq: 0; kind: "ready" };

/** The value the soak's stand-in host puts in `__provider` (the real host: the serialized provider's code). */
export const PROVIDER_MARK = "soak:serialized-provider";
