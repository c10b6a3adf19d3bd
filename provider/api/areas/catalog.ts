/**
 * What can be ordered (`client.catalog`): size templates, locations, tiers and OS systems.
 */
import type { CallFunction } from "../operations";
import type { LocationRecord, SystemRecord, TierRecord } from "../schemas/catalog";
import type { SizeTemplate } from "../schemas/instances";
import type { RequestOptions } from "./util";

/** The catalog operations. */
export interface CatalogApi {
  /** Instance size templates (cpu count, RAM and disk in GB). */
  sizeTemplates(options?: RequestOptions): Promise<SizeTemplate[]>;
  /** Locations (client code only; fields beyond id and name are kept as sent). */
  locations(options?: RequestOptions): Promise<LocationRecord[]>;
  /** Tiers (client code only; fields beyond id and name are kept as sent). */
  tiers(options?: RequestOptions): Promise<TierRecord[]>;
  /** OS systems and templates (client code only; fields beyond id and name are kept as sent). */
  systems(options?: RequestOptions): Promise<SystemRecord[]>;
}

/** Builds the catalog operations on a generic call. */
export function createCatalogApi(call: CallFunction): CatalogApi {
  return {
    sizeTemplates: (options) => call("listSizeTemplates", { signal: options?.signal }),
    locations: (options) => call("listLocations", { signal: options?.signal }),
    tiers: (options) => call("listTiers", { signal: options?.signal }),
    systems: (options) => call("listSystems", { signal: options?.signal }),
  };
}
