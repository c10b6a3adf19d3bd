/**
 * Building blocks of the wire schemas: the `{message, data}` envelope, the page object of paged lists, and
 * field types that accept every wire variant and output the normalized value.
 *
 * Conventions of every schema in `schemas/`:
 * - `z.input<typeof S>` is the wire format (what the service sends; the simulator validates its own
 *   answers against it); `z.output<typeof S>` is the normalized value the client returns.
 * - Field names stay the wire's snake_case names so a reader maps them to api-spec.md 1:1.
 * - Objects strip unknown fields instead of rejecting them: hosts add fields (`ipv6_address`, `location_flag`).
 */
import { z } from "zod";
import {
  NormalizeError,
  normalizeLocation,
  parseCpu,
  parseDateOnly,
  parseRupiah,
  parseSizeGb,
  parseTimestamp,
  placeholderToNull,
} from "../normalize";

/** Wraps a normalizer so its failure becomes a zod issue at the field's path. */
function normalized<I, O>(input: z.ZodType<I>, fn: (value: I) => O) {
  return input.transform((value, ctx): O => {
    try {
      return fn(value);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: error instanceof NormalizeError ? error.message : String(error) });
      return z.NEVER;
    }
  });
}

/**
 * An object field that PHP may write as `[]` when it is empty (json_encode of an empty array; Laravel's empty
 * relation): `[]` is read as absent (null), so the field's schema decides (a nullish object: null).
 */
export function phpObject<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => (Array.isArray(v) && v.length === 0 ? null : v), schema);
}

/** A free-form object that PHP writes as `[]` when empty: `[]` (or null) is read as `{}`. */
export const phpRecord = z.preprocess((v) => (v === null || (Array.isArray(v) && v.length === 0) ? {} : v), z.record(z.string(), z.unknown()));

/** The response envelope: `{ message: string, data: <payload> }`. A missing or null message becomes `""`. */
export function envelope<T extends z.ZodType>(data: T) {
  return z.object({
    message: z.string().nullish().transform((m) => m ?? ""),
    data,
  });
}

/** An integer that some Laravel hosts serialise as a numeric string. */
export const integer = z.union([z.number().int(), z.string().regex(/^-?\d+$/)]).transform((v) => Number(v));

/**
 * A decimal number (prices, costs); Laravel `decimal` casts arrive as strings, so `"0.5"` is accepted, and so is
 * text in the Indonesian format the panel's money uses (`"1.200,50"`, `"Rp10.000,00"`: parseRupiah): read-only
 * figures that must not fail a whole read (audit: a refresh of every Instance failed on such a price).
 */
export const decimal = normalized(z.union([z.number(), z.string()]), (v) =>
  typeof v === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : parseRupiah(v),
);

/** A boolean; Laravel may answer `0`/`1` or `"0"`/`"1"` for a boolean column. */
export const flag = z
  .union([z.boolean(), z.literal(0), z.literal(1), z.literal("0"), z.literal("1")])
  .transform((v) => v === true || v === 1 || v === "1");

/** A {@link flag} that may be missing or null (a column a host leaves empty): false then. */
export const optionalFlag = flag.nullish().transform((v) => v ?? false);

/** An identifier that is a string in the spec but may arrive as a number: always output as a string. */
export const idString = z.union([z.string(), z.number()]).transform((v) => String(v));

/** A size in GB (see `parseSizeGb`): `"2 GB"`, `"30GB"`, `"2048 MB"`, or a number of GB. */
export const sizeGb = normalized(z.union([z.string(), z.number()]), parseSizeGb);

/** A CPU count (see `parseCpu`): `2`, `"2"`, `"2 CPU"`. */
export const cpuCount = normalized(z.union([z.string(), z.number()]), parseCpu);

/** A timestamp in any known form, output as ISO 8601 UTC (see `parseTimestamp`). */
export const timestamp = normalized(z.string(), parseTimestamp);

/**
 * A timestamp in a field the provider never computes with (billing, credit history): output ISO 8601 UTC
 * when it can be read, else the API's text as sent, so an unknown date format never fails the whole call.
 * Absent (`null`, missing, `""`, `-`): `null`.
 */
export const lenientTimestamp = z
  .union([z.string(), z.null()])
  .optional()
  .transform((v): string | null => {
    const value = placeholderToNull(v);
    if (value === null || value.trim() === "") return null;
    try {
      return parseTimestamp(value);
    } catch {
      return value.trim();
    }
  });

/** A date (`YYYY-MM-DD` when readable) in a field the provider never computes with: the API's text otherwise. */
export const lenientDate = z.string().transform((v) => {
  try {
    return parseDateOnly(v);
  } catch {
    return v.trim();
  }
});

/** A timestamp that may be absent (`null`, missing, `""` or `-`): output `null`. */
export const optionalTimestamp = z
  .union([z.string(), z.null()])
  .optional()
  .transform((v, ctx): string | null => {
    const value = placeholderToNull(v);
    if (value === null || value.trim() === "") return null;
    try {
      return parseTimestamp(value);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: (error as Error).message });
      return z.NEVER;
    }
  });

/** A date without time (`"26/08/2024"`, `"2024-08-26"`), output as `YYYY-MM-DD`. */
export const dateOnly = normalized(z.string(), parseDateOnly);

/** Rupiah money text (`"Rp10.000,00"`) or a number, output as a number of rupiah. */
export const rupiah = normalized(z.union([z.string(), z.number()]), parseRupiah);

/** A string where the service writes `-` (or nothing) for "none": output the string or `null`. */
export const placeholderString = z
  .union([z.string(), z.null()])
  .optional()
  .transform((v) => {
    const value = placeholderToNull(v);
    return value === null || value === "" ? null : value;
  });

/** A location given as a name (lists) or `{id, name}` (details): output `{ id: number | null, name }`. */
export const location = z
  .union([z.string(), z.object({ id: z.union([z.number(), z.string(), z.null()]).optional(), name: z.string() })])
  .transform((v, ctx) => {
    try {
      return normalizeLocation(v);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: (error as Error).message });
      return z.NEVER;
    }
  });

/** The page object of paged lists (api-spec.md §2.1 rule 5). */
export const pageInfo = z.object({
  total: integer,
  count: integer,
  per_page: integer,
  current_page: integer,
  total_pages: integer,
});

/** Normalized page information of a paged list. */
export type PageInfo = z.output<typeof pageInfo>;

/** A paged list: `{ data: [items], page: {...} }`. */
export function paged<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), page: pageInfo });
}

/**
 * A list that is documented as paged but that some hosts answer as a bare array (endpoints only seen in
 * client code): both are accepted and output as `{ data, page }`, with a single synthesized page for an array.
 */
export function pagedOrArray<T extends z.ZodType>(item: T) {
  return z.union([paged(item), z.array(item)]).transform((v) => {
    if (!Array.isArray(v)) return v as { data: z.output<T>[]; page: PageInfo };
    const items = v as z.output<T>[];
    const page: PageInfo = { total: items.length, count: items.length, per_page: items.length, current_page: 1, total_pages: 1 };
    return { data: items, page };
  });
}

/**
 * The payload of an operation that returns nothing useful (`{}`, `null`, `[]` or nothing at all): output
 * `null`. Used where the spec says "data is an empty object (or null)".
 */
export const emptyData = z
  .union([z.null(), z.object({}), z.array(z.unknown())])
  .optional()
  .transform((): null => null);

/** The payload of an operation whose response the spec does not show: accepted as is, typed `unknown`. */
export const unknownData = z.unknown();

/** `{uuid, hostname}`: what start, stop, restart, reinstall, resize and hostname changes answer. */
export const instanceRef = z.object({
  uuid: z.string(),
  hostname: z.string().optional(),
});

/** Normalized `{uuid, hostname?}` reference to an instance. */
export type InstanceRef = z.output<typeof instanceRef>;

/** A block storage attached to a snapshot or backup: `{id, name, size}` (size in GB). */
export const attachedStorage = z.object({
  id: idString,
  name: z.string(),
  size: sizeGb,
});

/** Normalized attached block storage of a snapshot or backup. */
export type AttachedStorage = z.output<typeof attachedStorage>;
