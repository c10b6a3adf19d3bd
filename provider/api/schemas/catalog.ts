/**
 * Wire schemas of the catalog: size templates (api-spec.md §2.5) and the locations, tiers and OS systems
 * lists that only client code shows (real-api-facts.md). The latter have no sample: they require an `id`
 * and keep every other field as sent (loose objects) so callers can read what their host provides.
 */
import { z } from "zod";
import { integer, idString } from "./common";

export { sizeTemplate } from "./instances";
export type { SizeTemplate } from "./instances";

/** A location (`GET /locations`): integer id and name; other fields kept. */
export const locationRecord = z.looseObject({ id: integer, name: z.string().nullish() });

/** A tier (`GET /tiers`): integer id and name; other fields kept. */
export const tierRecord = z.looseObject({ id: integer, name: z.string().nullish() });

/**
 * An OS system/template (`GET /systems`): id (integer on known hosts, kept as given otherwise) and name;
 * other fields (versions, templates) kept.
 */
export const systemRecord = z.looseObject({ id: z.union([integer, idString]), name: z.string().nullish() });

/** A list that some hosts may wrap as `{data: [...]}`: both forms output the array. */
export function listOrWrapped<T extends z.ZodType>(item: T) {
  return z.union([z.array(item), z.object({ data: z.array(item) })]).transform((v) => (Array.isArray(v) ? v : v.data) as z.output<T>[]);
}

/** Normalized location record. */
export type LocationRecord = z.output<typeof locationRecord>;
/** Normalized tier record. */
export type TierRecord = z.output<typeof tierRecord>;
/** Normalized OS system record. */
export type SystemRecord = z.output<typeof systemRecord>;
