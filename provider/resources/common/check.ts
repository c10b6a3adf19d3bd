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
 * The `error` option of a resource's input object (`z.strictObject(shape, unknownPropertyError("PublicIp", names))`):
 * an unknown property's message names the resource and every property it takes (`issueFailures` adds "did you
 * mean"); every other issue keeps its schema's own message.
 */
export function unknownPropertyError(resource: string, names: readonly string[]) {
  return {
    error: (issue: z.core.$ZodRawIssue): string | undefined =>
      issue.code === "unrecognized_keys"
        ? `unknown propert${issue.keys.length > 1 ? "ies" : "y"} ${issue.keys.join(", ")}: a ${resource} takes ${names.join(", ")}`
        : undefined,
  };
}

/** The property names of an object schema (through refinements), for "did you mean" and "allowed are". */
function shapeKeys(schema: z.ZodType): string[] {
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape;
  return shape && typeof shape === "object" ? Object.keys(shape) : [];
}

/** The closest of `known` to a mistyped `name` (case-insensitive, at most 2 edits), if any. */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  // (a name differing only in case is at distance 0, so the loop finds it first)
  let best: { k: string; d: number } | undefined;
  for (const k of known) {
    const d = editDistance(lower, k.toLowerCase());
    if (d <= 2 && (!best || d < best.d)) best = { k, d };
  }
  return best?.k;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

// zod's own wording ("Invalid input: expected string, received number", "Unrecognized key: ...",
// "Too small: ...", "Invalid option: ..."): a schema field without its own message produces it. It never
// reaches the user: {@link issueFailures} rewrites it to name the property and the fix.
const GENERIC_ZOD_TEXT = /^(Invalid (input|option|string|type|value|element|union|key)|Unrecognized key|Too (small|big)|Expected |Required$)/;

/** True when a message is zod's generic text rather than one written for the user. */
export function isGenericValidatorText(message: string): boolean {
  return GENERIC_ZOD_TEXT.test(message);
}

const TYPE_WORDS: Record<string, string> = {
  string: "a string", number: "a number", boolean: "true or false", object: "an object", array: "a list",
  int: "a whole number", bigint: "a whole number",
};

/** A bound as users read it: "3 characters", "1 item", "9" (a number's bound has no unit). */
function countOf(bound: number | bigint, origin: string): string {
  const unit = origin === "string" ? "character" : origin === "array" ? "item" : undefined;
  return unit ? `${String(bound)} ${unit}${Number(bound) === 1 ? "" : "s"}` : String(bound);
}

/** A message for an issue whose schema gave none: the property, what it must be, and the fix. */
function fallbackReason(prop: string, issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return `${prop} must be ${TYPE_WORDS[issue.expected] ?? issue.expected}${issue.input === undefined ? " (it is required)" : ""}`;
    case "invalid_value":
      return `${prop} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "too_small":
      return `${prop} must be at least ${countOf(issue.minimum, issue.origin)}`;
    case "too_big":
      return `${prop} must be at most ${countOf(issue.maximum, issue.origin)}`;
    default:
      return `${prop} has an invalid value: see the property's description in the docs`;
  }
}

/**
 * Turns zod issues into check failures: each names the property as the user writes it (nested path
 * included, e.g. `timeouts.create`), an unknown property under its own name (with "did you mean" when a
 * known one is close), and never zod's generic text.
 */
export function issueFailures(issues: readonly z.core.$ZodIssue[], schema: z.ZodType, resource = "this resource"): CheckFailure[] {
  const failures: CheckFailure[] = [];
  const rootKeys = shapeKeys(schema);
  for (const issue of issues) {
    const prop = propertyPath(issue.path);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const property = prop ? `${prop}.${key}` : key;
        if (prop) {
          // a nested object (timeouts, deleteOptions): its schema's message lists what it takes
          failures.push({ property, reason: isGenericValidatorText(issue.message) ? `${property} is not a property of ${prop}: remove it` : issue.message });
          continue;
        }
        const near = closestName(key, rootKeys);
        // the schema's own message (it lists what the resource takes) when it has one
        const base = isGenericValidatorText(issue.message)
          ? `${key} is not a property of ${resource}${rootKeys.length ? ` (it takes ${rootKeys.join(", ")})` : ""}`
          : issue.keys.length === 1 ? issue.message : `${key} is not a known property (${issue.message})`;
        failures.push({ property, reason: near ? `${base}: did you mean ${near}?` : base });
      }
      continue;
    }
    const property = prop || "(inputs)";
    failures.push({ property, reason: isGenericValidatorText(issue.message) ? fallbackReason(property, issue) : issue.message });
  }
  return failures;
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
  resource?: string,
): pulumi.dynamic.CheckResult<z.output<S>> {
  const known: Record<string, unknown> = {};
  const unknown: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(news)) {
    if (k === "__provider") continue;
    (isUnknown(v) ? unknown : known)[k] = v;
  }
  // reportInput: the issues carry the value seen, so a wrong-typed value is not reported as missing ("it is required").
  const result = schema.safeParse(known, { reportInput: true });
  if (!result.success) {
    const relevant = result.error.issues
      // a required property that is merely unknown during preview is not a failure
      .filter((issue) => !(issue.path.length === 1 && String(issue.path[0]) in unknown));
    const failures = issueFailures(relevant, schema, resource).map(withoutSecretValue);
    if (failures.length > 0) return { failures };
    // Only values unknown until `up` are missing, so zod ran no transform: each known value is parsed on its own
    // (trimmed, a blank description dropped, as `up` will have them). Before, the preview passed the raw values, and
    // a value `up` then sent differently failed only after the VM was created (audit). Rules across properties that
    // need an unknown one are decided at `up`.
    const shape = schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : undefined;
    const normalized: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(known)) {
      const field = shape?.[k]?.safeParse(v);
      normalized[k] = field?.success ? field.data : v;
    }
    return { inputs: withoutUndefined({ ...normalized, ...unknown }) as z.output<S> };
  }
  return { inputs: withoutUndefined({ ...(result.data as Record<string, unknown>), ...unknown }) as z.output<S> };
}

/** Inputs that hold secrets (the VM's password), whose value the engine must never print. */
const SECRET_INPUTS = new Set(["password"]);

/**
 * A failure of a secret input is reported without its property: the real engine prints a failure with a property
 * as "property X value {V} has a problem", formatting V with %v (step_generator.go issueCheckFailures), and a secret
 * PropertyValue prints its plaintext that way. Without a property it prints only the reason, which names the input.
 */
function withoutSecretValue(failure: CheckFailure): CheckFailure {
  const top = failure.property.split(/[.[]/)[0]!;
  if (!SECRET_INPUTS.has(top)) return failure;
  return { property: "", reason: failure.reason.startsWith(top) ? failure.reason : `${failure.property}: ${failure.reason}` };
}

/**
 * The checked inputs without `undefined` values (a blank optional input the schema drops): the dynamic-provider
 * host turns Check's answer into a protobuf Struct, which throws "Unexpected struct type." on an undefined value
 * (audit: FirewallRule `description: ""`, documented as "the same as none", failed every preview and up).
 */
function withoutUndefined(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    out[k] = Object.prototype.toString.call(v) === "[object Object]" ? withoutUndefined(v as Record<string, unknown>) : v;
  }
  return out;
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

/**
 * A failure whose reason starts with its own property ("vswitchId: the private network …", the refusals shared
 * with update errors, where the prefix names the field) loses that prefix: the engine prints the property
 * already, and the message read "vswitchId: vswitchId: …" (new-user audit).
 */
export function withoutPropertyPrefix(failure: CheckFailure): CheckFailure {
  const prefix = `${failure.property}: `;
  return failure.property && failure.reason.startsWith(prefix) ? { ...failure, reason: failure.reason.slice(prefix.length) } : failure;
}
