/**
 * Field builders shared by the resources' input schemas (and the SDK functions' arguments): each message
 * names the property and shows a valid value, so a check failure tells the user the fix. Every uuid input of
 * every resource is built with {@link uuidOf}: one rule (trimmed, lower-cased) so `6F1C…` and `6f1c…` are
 * one value in diffs and a program written with upper-case ids converges (the API answers lower case).
 */
import { z } from "zod";
import { WAIT_LIMITS_TEXT, bareDurationMessage, isBareDuration, parseWaitDuration } from "../../duration";

/** A uuid in any letter case (8-4-4-4-12 hex digits). */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const EXAMPLE_UUID = "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab";

/** The one uuid comparison of the package: case and surrounding blanks do not matter. */
export function sameUuid(a: string | null | undefined, b: string | null | undefined): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return a === b;
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/**
 * A uuid property; the message names the property and what a valid value looks like. Normalized to lower
 * case so `6F1C…` and `6f1c…` are one value in diffs. `hint` adds where to find one ("use instance.id").
 */
export function uuidOf(what: string, hint = `e.g. ${EXAMPLE_UUID}`) {
  return z
    .string({
      error: (issue) =>
        issue.input === undefined ? `${what} is required: a uuid, ${hint}` : `${what} must be a uuid string, ${hint}`,
    })
    .trim()
    .toLowerCase()
    .regex(UUID_RE, `${what} must be a uuid (8-4-4-4-12 hex digits), ${hint}`);
}

/** A uuid property that also takes "" (meaning "none", e.g. Instance `vswitchId`); lower-cased like {@link uuidOf}. */
export function uuidOrBlankOf(what: string, blankMeans: string) {
  return z
    .string({ error: `${what} must be a uuid string, or "" for ${blankMeans}` })
    .trim()
    .toLowerCase()
    .refine((v) => v === "" || UUID_RE.test(v), { error: `${what} must be a uuid (8-4-4-4-12 hex digits), or "" for ${blankMeans}` });
}

/**
 * One duration string of `timeouts` ("90s", "20m", "1h30m"). A unit is required: "30" would read as 30 seconds
 * while a VM's create takes minutes and Terraform's and Pulumi's own `customTimeouts` refuse a bare number, so
 * whoever writes "30" most likely means minutes (config keys such as vmhost:requestTimeout still take seconds).
 */
export function durationOf(what: string) {
  return z
    .string({ error: `${what} must be a duration string such as "90s", "20m" or "1h30m"` })
    .refine((v) => !isBareDuration(v), {
      error: (issue) => bareDurationMessage(what, String(issue.input)),
      abort: true,
    })
    .refine(
      (v) => parseWaitDuration(v) !== undefined,
      `${what} must be a positive duration such as "90s", "20m" or "1h30m", ${WAIT_LIMITS_TEXT}`,
    );
}

/** What each wait of a resource's `timeouts` means, by kind (the description shown in the docs). */
export type TimeoutDocs = Partial<Record<"create" | "update" | "delete", string>>;

const DEFAULT_TIMEOUT_DOCS: Required<TimeoutDocs> = {
  create: 'How long create may wait, e.g. "10m". Default: config vmhost:createTimeout, else the provider default.',
  update: 'How long an update may wait, e.g. "10m". Default: config vmhost:updateTimeout, else the provider default.',
  delete: 'How long delete may wait, e.g. "10m". Default: config vmhost:deleteTimeout, else the provider default.',
};

/**
 * The `timeouts` input of a resource with the given waits (a Snapshot has no update). Unknown keys and a
 * non-object are reported under `timeouts` with the allowed keys, never as zod's generic text.
 */
export function timeoutsOf(docs: TimeoutDocs = DEFAULT_TIMEOUT_DOCS) {
  const kinds = (["create", "update", "delete"] as const).filter((k) => docs[k] !== undefined);
  const shape: Partial<Record<"create" | "update" | "delete", z.ZodOptional<ReturnType<typeof durationOf>>>> = {};
  for (const k of kinds) shape[k] = durationOf(`timeouts.${k}`).optional().describe(docs[k]!);
  const example = `{ ${kinds.map((k) => `${k}: "10m"`).join(", ")} }`;
  return z
    .strictObject(shape as Record<"create" | "update" | "delete", z.ZodOptional<ReturnType<typeof durationOf>>>, {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `timeouts only takes ${kinds.join(", ")} (durations like "10m"), not ${issue.keys.join(", ")}`
          : issue.code === "invalid_type"
            ? `timeouts must be an object such as ${example}`
            : undefined,
    })
    .describe('Deadlines of the waits of this resource: durations with a unit, like "90s", "10m" or "1h30m" (a bare "30" is refused).');
}

/** How long create, update and delete may wait for the resource to settle. */
export const timeoutsSchema = timeoutsOf();

/**
 * The hand-written parts of a resource's reference page (tools/schema appends them to the resource's
 * description in schema.json, as Pulumi providers' schemas carry their examples).
 */
export interface ResourceDocs {
  /** A complete TypeScript program using the resource (imports included). */
  example: string;
  /** How to bring an existing object under Pulumi (`adoptId`: `pulumi import` does not work for dynamic resources). */
  adoption: string;
  /** Extra markdown sections (e.g. the Instance's required inputs per create mode). */
  sections?: string;
}
