/**
 * Wire schemas of block storage (api-spec.md §2.14, §4.2; the full list and detach come from client code,
 * real-api-facts.md).
 */
import { z } from "zod";
import { idString, location, pagedOrArray, sizeGb, unknownData } from "./common";

/** An available (not attached) block storage of a location (§2.14); `size` text ("50GB") -> GB. */
export const blockStorageOption = z.object({
  id: idString,
  name: z.string(),
  size: sizeGb,
});

/** Attach answers `{storage_id}`. */
export const attachedBlockStorage = z.object({ storage_id: idString });

/**
 * A block storage of the account (`GET /storage/blocks`). No sample exists (client code only): this schema
 * accepts the attached instance as an object (`instance: {uuid|id, hostname}`) or a plain id field
 * (`instance_uuid`, `instance_id`, `vm_uuid`), and outputs `attached_instance_uuid` (null when detached).
 * `location` may be a name or `{id, name}`.
 */
export const blockStorage = z
  .object({
    id: idString,
    name: z.string(),
    size: sizeGb,
    status: z.string().nullish(),
    location: location.nullish(),
    instance: z
      .object({ uuid: z.string().nullish(), id: idString.nullish(), hostname: z.string().nullish() })
      .nullish(),
    instance_uuid: z.string().nullish(),
    instance_id: idString.nullish(),
    vm_uuid: z.string().nullish(),
  })
  .transform((b) => {
    const attached =
      b.instance?.uuid ?? b.instance?.id ?? b.instance_uuid ?? b.instance_id ?? b.vm_uuid ?? null;
    return {
      id: b.id,
      name: b.name,
      size: b.size,
      status: b.status ?? null,
      location: b.location ?? null,
      attached_instance_uuid: attached === "" || attached === "-" ? null : attached,
      attached_instance_hostname: b.instance?.hostname ?? null,
    };
  });

/** The account's block storages: a bare array or a paged object. */
export const blockStorageList = pagedOrArray(blockStorage);

/** Detach answers are not shown. */
export const detachedBlockStorage = unknownData;

/** Normalized available block storage. */
export type BlockStorageOption = z.output<typeof blockStorageOption>;
/** Normalized block storage of the account. */
export type BlockStorage = z.output<typeof blockStorage>;
/** Normalized block storage page. */
export type BlockStorageList = z.output<typeof blockStorageList>;
/** Attach answer. */
export type AttachedBlockStorage = z.output<typeof attachedBlockStorage>;
