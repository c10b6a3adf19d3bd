/**
 * Field builders shared by the resources' input schemas: each message names the property and shows a valid
 * value, so a check failure tells the user the fix.
 */
import { z } from "zod";
import { parseDuration } from "./duration";

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A uuid property; the message names the property and what a valid value looks like. Normalized to lower
 * case so `6F1C…` and `6f1c…` are one value in diffs.
 */
export function uuidOf(what: string, example = "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab") {
  return z
    .string({
      error: (issue) =>
        issue.input === undefined ? `${what} is required: a uuid, e.g. ${example}` : `${what} must be a uuid string, e.g. ${example}`,
    })
    .trim()
    .toLowerCase()
    .regex(UUID_RE, `${what} must be a uuid (8-4-4-4-12 hex digits), e.g. ${example}`);
}

/** One duration string of `timeouts` ("90s", "20m", "1h30m"). */
export function durationOf(what: string) {
  return z
    .string({ error: `${what} must be a duration string such as "90s", "20m" or "1h30m"` })
    .refine(
      (v) => parseDuration(v) !== undefined && parseDuration(v)! > 0,
      `${what} must be a positive duration such as "90s", "20m" or "1h30m"`,
    );
}

/** How long create, update and delete may wait for the instance to settle. */
export const timeoutsSchema = z
  .strictObject(
    {
      create: durationOf("timeouts.create").optional().describe('How long create may wait, e.g. "10m". Default: config vmhost:createTimeout, else the provider default.'),
      update: durationOf("timeouts.update").optional().describe('How long an update may wait, e.g. "10m". Default: config vmhost:updateTimeout, else the provider default.'),
      delete: durationOf("timeouts.delete").optional().describe('How long delete may wait, e.g. "10m". Default: config vmhost:deleteTimeout, else the provider default.'),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `timeouts only takes create, update and delete (durations like "10m")`
          : issue.code === "invalid_type"
            ? `timeouts must be an object such as { create: "10m", delete: "5m" }`
            : undefined,
    },
  )
  .describe('Deadlines of the waits of this resource (durations like "10m").');
