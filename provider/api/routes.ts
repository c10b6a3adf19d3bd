/**
 * The one table of every API operation: its HTTP method, path template, where we learned it, and how it
 * may be retried. Nothing else in the package spells a path: the client, the simulator and the tests all
 * read this table, so a wrong route is a one-line fix here, and users can override a route without a
 * release (`vmhost:routes` config or `createClient({ routes })`).
 *
 * Path templates use `{name}` placeholders, filled (URL-encoded) from a call's path parameters. Paths are
 * relative to the base URL, which already ends with `/v1`.
 */

/** HTTP methods the service uses. */
export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

/**
 * Where a route comes from, from most to least certain:
 * - `spec`: method and path given by api-spec.md (the interface);
 * - `docs`: seen in an official docs page of one of the hosts;
 * - `code`: seen only in third-party client code calling the live API;
 * - `assumed`: found nowhere; our guess in the API's style (override it if your host differs).
 */
export type RouteConfidence = "spec" | "docs" | "code" | "assumed";

/**
 * How the client may retry an operation after a transient failure.
 * - `read`: no side effect; retried on 429, 502/503/504 and network errors.
 * - `idempotent`: a write whose repetition leaves the same end state (set X to Y, delete Y); retried
 *   like a read. A delete answered 404/410 on a retry means it already happened.
 * - `once`: a write whose repetition would do it twice (create a VM, a snapshot, an invoice). Only a
 *   429 (refused before any work) or a connection that never opened is retried; any failure after the
 *   request may have reached the server surfaces as `AmbiguousRequestError`, for the caller to reconcile.
 */
export type RetryClass = "read" | "idempotent" | "once";

/** The API area an operation belongs to; the typed client groups its methods by area. */
export type ApiArea = "instances" | "network" | "firewall" | "storage" | "snapshots" | "backups" | "catalog" | "billing";

/** One row of the routes table. */
export interface RouteDefinition {
  readonly method: HttpMethod;
  /** Path template relative to the base URL, with `{param}` placeholders. */
  readonly path: string;
  readonly confidence: RouteConfidence;
  readonly retry: RetryClass;
  readonly area: ApiArea;
  /** True for operations api-spec.md lists (the 41); false for those only real-api-facts.md shows. */
  readonly inSpec: boolean;
}

const r = (
  method: HttpMethod,
  path: string,
  confidence: RouteConfidence,
  retry: RetryClass,
  area: ApiArea,
  inSpec = true,
): RouteDefinition => ({ method, path, confidence, retry, area, inSpec });

/**
 * Every operation, keyed by its id (design.md §3). The first 41 are api-spec.md's; the rest are the
 * routes real-api-facts.md shows beyond it.
 */
export const routes = {
  // --- api-spec.md §4.1–4.5: method and path given by the spec ---
  listInstances: r("GET", "/instance", "spec", "read", "instances"),
  createInstance: r("POST", "/instance/create", "spec", "once", "instances"),
  getInstance: r("GET", "/instance/{instance_uuid}/detail", "spec", "read", "instances"),
  getInstanceMetrics: r("GET", "/instance/{instance_uuid}/rrd", "spec", "read", "instances"),
  listSizeTemplates: r("GET", "/instance/size-template", "spec", "read", "catalog"),
  // A repeated tier change or resize starts a second operation on the VM (a reboot; maybe a charge): the
  // update looks whether it happened instead (instance/provider.ts runSteps).
  changeTier: r("PATCH", "/instance/{instance_uuid}/change-tier", "spec", "once", "instances"),
  setPassword: r("PATCH", "/instance/{instance_uuid}/set-password", "spec", "idempotent", "instances"),
  changePublicIp: r("PATCH", "/instance/{instance_uuid}/ip/change", "spec", "idempotent", "network"),
  updateFirewallRule: r("PATCH", "/instance/{instance_uuid}/firewall/{firewall_id}/update", "spec", "idempotent", "firewall"),
  attachBlockStorage: r("PATCH", "/storage/blocks/{block_storage_id}/attach", "spec", "idempotent", "storage"),
  listBlockStorageOptions: r("GET", "/storage/blocks/options", "spec", "read", "storage"),
  listSnapshots: r("GET", "/instance/{instance_uuid}/snapshot/snapshots", "spec", "read", "snapshots"),
  getSnapshotPrice: r("GET", "/instance/{instance_uuid}/snapshot/price", "spec", "read", "snapshots"),
  getBackupPrice: r("GET", "/instance/{instance_uuid}/backup/price", "spec", "read", "backups"),
  listVswitches: r("GET", "/network/vswitches", "spec", "read", "network"),
  listVswitchOptions: r("GET", "/network/options/vswitches", "spec", "read", "network"),
  getVswitch: r("GET", "/network/vswitch/{vswitch_uuid}/details", "spec", "read", "network"),
  // The spec types this path parameter as an integer while every other vswitch route takes the uuid.
  // No integer id appears in any vswitch record except `tag`; the simulator accepts either.
  getVswitchGraph: r("GET", "/network/vswitch/{vswitch_id}/graph", "spec", "read", "network"),
  listPaymentMethods: r("GET", "/billing/v2/payment-methods", "spec", "read", "billing"),
  createTopup: r("POST", "/billing/v2/topup", "spec", "once", "billing"),
  listCreditHistory: r("GET", "/billing/credit/history", "spec", "read", "billing"),
  getBillingReport: r("GET", "/billing/report/summary/{summary_date}/details", "spec", "read", "billing"),

  // --- api-spec.md §4.6: operations whose method and path the spec does not show (real-api-facts.md) ---
  cloneInstance: r("POST", "/instance/{instance_uuid}/clone", "code", "once", "instances"),
  // POST, but it only mints a console token: repeating it is harmless.
  getConsole: r("POST", "/instance/{instance_uuid}/console-websocket", "code", "read", "instances"),
  // Reinstalling twice wipes the disk twice: never repeated blindly.
  reinstallInstance: r("PATCH", "/instance/{instance_uuid}/reinstall", "code", "once", "instances"),
  // Laravel method spoofing: the form also carries `_method=DELETE`. 404/410 mean already gone.
  deleteInstance: r("DELETE", "/instance/{instance_uuid}", "code", "idempotent", "instances"),
  startInstance: r("PATCH", "/instance/{instance_uuid}/start", "code", "idempotent", "instances"),
  stopInstance: r("PATCH", "/instance/{instance_uuid}/stop", "code", "idempotent", "instances"),
  // A repeated restart reboots the guest twice.
  restartInstance: r("PATCH", "/instance/{instance_uuid}/restart", "code", "once", "instances"),
  listInstancesWithoutPublicIp: r("GET", "/network/options/instances", "assumed", "read", "network"),
  updateRdns: r("PATCH", "/network/public/{ip_uuid}/rdns", "assumed", "idempotent", "network"),
  updatePrivateNetwork: r("PATCH", "/instance/{instance_uuid}/vswitch/update", "assumed", "idempotent", "network"),
  // Each call may add another address.
  addPublicIp: r("PATCH", "/instance/{instance_uuid}/ip/add", "assumed", "once", "network"),
  resizeInstance: r("PATCH", "/instance/{instance_uuid}/resize", "code", "once", "instances"),
  updateHostname: r("PATCH", "/instance/{instance_uuid}/update-hostname", "code", "idempotent", "instances"),
  getChangeTierCost: r("GET", "/instance/{instance_uuid}/change-tier/price", "docs", "read", "instances"),
  createSnapshot: r("POST", "/instance/{instance_uuid}/snapshot/create", "code", "once", "snapshots"),
  // A repeated rollback runs again (the instance stopped and rewritten a second time): rollbackSnapshot checks.
  rollbackSnapshot: r("PATCH", "/instance/{instance_uuid}/snapshot/{snapshot_uuid}/rollback", "docs", "once", "snapshots"),
  deleteSnapshot: r("DELETE", "/instance/{instance_uuid}/snapshot/{snapshot_uuid}/delete", "code", "idempotent", "snapshots"),
  listBackups: r("GET", "/instance/{instance_uuid}/backup/history", "docs", "read", "backups"),
  deleteBackup: r("DELETE", "/instance/{instance_uuid}/backup/{snapshot_uuid}/delete", "code", "idempotent", "backups"),

  // --- beyond api-spec.md: routes real-api-facts.md shows, used where they make a resource complete ---
  listFirewallRules: r("GET", "/instance/{instance_uuid}/firewall/rules", "code", "read", "firewall", false),
  createFirewallRule: r("POST", "/instance/{instance_uuid}/firewall/create", "code", "once", "firewall", false),
  deleteFirewallRule: r("DELETE", "/instance/{instance_uuid}/firewall/{firewall_id}/delete", "code", "idempotent", "firewall", false),
  getFirewallDefault: r("GET", "/instance/{instance_uuid}/firewall/default", "code", "read", "firewall", false),
  updateFirewallDefault: r("PATCH", "/instance/{instance_uuid}/firewall/default/update", "code", "idempotent", "firewall", false),
  listBlockStorages: r("GET", "/storage/blocks", "code", "read", "storage", false),
  detachBlockStorage: r("PATCH", "/storage/blocks/{block_storage_id}/detach", "code", "idempotent", "storage", false),
  listLocations: r("GET", "/locations", "code", "read", "catalog", false),
  listTiers: r("GET", "/tiers", "code", "read", "catalog", false),
  listSystems: r("GET", "/systems", "code", "read", "catalog", false),
  getBillingSummary: r("GET", "/billing/summary", "docs", "read", "billing", false),
  getTopupStatus: r("GET", "/billing/v2/topup/{invoice_id}/status", "code", "read", "billing", false),
} as const satisfies Record<string, RouteDefinition>;

/** The id of an operation: a key of {@link routes}. */
export type OperationId = keyof typeof routes;

/** All operation ids, in table order. */
export const operationIds = Object.keys(routes) as OperationId[];

/** Names of the `{param}` placeholders in a path template, in order. */
export function pathParameterNames(pathTemplate: string): string[] {
  return [...pathTemplate.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]!);
}
