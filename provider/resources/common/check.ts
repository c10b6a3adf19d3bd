import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";

/** One failure of `check`, as Pulumi shows it: the property path and what to do about it. */
export interface CheckFailure {
  property: string;
  reason: string;
}

/** Formats a zod issue path the way users write the property: `deleteOptions.removePublicIp`, `sshKeys[1]`. */
export function propertyPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

/**
 * Validates raw Pulumi inputs with a resource's zod schema. On success returns the normalized inputs
 * (defaults filled, values canonicalized) so diffs compare like with like; on failure, one failure per
 * problem, each naming the property, so the user fixes everything in one go and no API call is made.
 *
 * Inputs that are still unknown during preview (Pulumi sends an unknown sentinel string) are passed through
 * untouched: they are validated again at `up`, when their values are known.
 */
export function checkInputs<S extends z.ZodType>(
  schema: S,
  news: Record<string, unknown>,
): pulumi.dynamic.CheckResult<z.output<S>> {
  const known: Record<string, unknown> = {};
  const unknown: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(news)) {
    if (k === "__provider") continue;
    (isUnknown(v) ? unknown : known)[k] = v;
  }
  const result = schema.safeParse(known);
  if (!result.success) {
    const failures = result.error.issues
      // a required property that is merely unknown during preview is not a failure
      .filter((issue) => !(issue.path.length === 1 && String(issue.path[0]) in unknown))
      .map((issue) => ({ property: propertyPath(issue.path) || "(resource)", reason: issue.message }));
    if (failures.length > 0) return { failures };
    return { inputs: { ...known, ...unknown } as z.output<S> };
  }
  return { inputs: { ...(result.data as Record<string, unknown>), ...unknown } as z.output<S> };
}

/** The sentinel the Pulumi engine uses for values not known until apply (preview of a new dependency). */
export const UNKNOWN_VALUE = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** True when a value, or any value nested in it, is unknown during preview. */
export function isUnknown(value: unknown): boolean {
  if (value === UNKNOWN_VALUE) return true;
  if (Array.isArray(value)) return value.some(isUnknown);
  if (value && typeof value === "object") return Object.values(value).some(isUnknown);
  return false;
}
