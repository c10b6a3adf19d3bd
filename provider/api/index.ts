/**
 * `pulumi-vmhost/api`: the HTTP client for the whole VM-hosting API.
 *
 * - `createClient(options)` / `resolveClientOptions({ config, env })`: the typed client and its options;
 * - `operations`: every operation's route and zod response schema (`operations[id].response`);
 * - error classes (`ApiError` and subclasses), normalizers, wire schemas and their normalized types.
 */
export * from "./routes";
export * from "./operations";
export * from "./errors";
export * from "./normalize";
export * from "./request";
export * from "./overrides";
export * from "./retry";
export * from "./pacer";
export * from "./limiter";
export * from "./deadline";
export * from "./log";
export * from "./config";
export * from "./client";
export * from "./paginate";
export { poolFor, closeAllPools, defaultTimeouts, type TransportTimeouts } from "./transport";
export { packageVersion, userAgent } from "./version";
export { undefinedIfNotFound, LIST_ALL_PAGE_SIZE, type RequestOptions } from "./areas/util";
export * from "./areas/instances";
export * from "./areas/network";
export * from "./areas/firewall";
export * from "./areas/storage";
export * from "./areas/snapshots";
export * from "./areas/backups";
export * from "./areas/catalog";
export * from "./areas/billing";
/** The wire schemas by area (zod): `z.input` is the wire shape, `z.output` the normalized one. */
export * as schemas from "./schemas";
export type * from "./schemas/common";
export type * from "./schemas/instances";
export type * from "./schemas/network";
export type * from "./schemas/firewall";
export type * from "./schemas/storage";
export type * from "./schemas/snapshots";
export type * from "./schemas/backups";
export type * from "./schemas/catalog";
export type * from "./schemas/billing";
