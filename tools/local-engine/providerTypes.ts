/**
 * What the dynamic-provider host's calls answer, apart from the gRPC client in providerHost.ts, so the step logic
 * (deployment.ts) and its in-process tests load neither gRPC nor the provider protocol's generated code.
 */
import { PropertyMap } from "./values";

/** A Check failure: the property it names and why. */
export interface CheckFailure {
  property: string;
  reason: string;
}

/** What Diff decided. `changes` is undefined when the provider has no diff (DIFF_UNKNOWN). */
export interface DiffResult {
  changes: boolean | undefined;
  replaces: string[];
  deleteBeforeReplace: boolean;
}

/**
 * A Create or Update that reached the cloud but did not finish: the provider threw an error carrying
 * `id`, `properties` and `reasons` (Pulumi's ErrorResourceInitFailed). The resource exists and must be
 * recorded, not forgotten.
 */
export class InitFailedError extends Error {
  constructor(
    message: string,
    readonly id: string,
    readonly properties: PropertyMap,
    readonly reasons: string[],
  ) {
    super(message);
    this.name = "InitFailedError";
  }
}
