/**
 * The simulator's own route list, written as the service has it (api-spec.md §4 and real-api-facts.md).
 * It deliberately does not import the client's routes table: a test checks that every client route is
 * answered here, so a wrong route in either place is caught instead of shared.
 */
import type { Handler } from "./handler";
import { billingHandlers } from "./handlers/billing";
import { catalogHandlers } from "./handlers/catalog";
import { firewallHandlers } from "./handlers/firewall";
import { instanceHandlers } from "./handlers/instances";
import { metricsHandlers } from "./handlers/metrics";
import { networkHandlers } from "./handlers/network";
import { snapshotHandlers } from "./handlers/snapshots";
import { storageHandlers } from "./handlers/storage";

/** HTTP methods the simulated service answers. */
export type SimMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

/** One route of the simulated service. */
export interface SimRoute {
  /** Operation id (the same ids as the client's table, used in the request log and fault targeting). */
  readonly id: string;
  readonly method: SimMethod;
  /** Path template under `/v1`, with `{name}` placeholders. */
  readonly path: string;
  readonly handler: Handler;
}

const h = { ...instanceHandlers, ...networkHandlers, ...firewallHandlers, ...storageHandlers, ...snapshotHandlers, ...catalogHandlers, ...billingHandlers, ...metricsHandlers };

const route = (id: keyof typeof h, method: SimMethod, path: string): SimRoute => ({ id, method, path, handler: h[id] });

/** Every route the simulator serves. */
export const simRoutes: readonly SimRoute[] = [
  route("listInstances", "GET", "/instance"),
  route("createInstance", "POST", "/instance/create"),
  route("listSizeTemplates", "GET", "/instance/size-template"),
  route("getInstance", "GET", "/instance/{instance_uuid}/detail"),
  route("getInstanceMetrics", "GET", "/instance/{instance_uuid}/rrd"),
  route("changeTier", "PATCH", "/instance/{instance_uuid}/change-tier"),
  route("getChangeTierCost", "GET", "/instance/{instance_uuid}/change-tier/price"),
  route("setPassword", "PATCH", "/instance/{instance_uuid}/set-password"),
  route("changePublicIp", "PATCH", "/instance/{instance_uuid}/ip/change"),
  route("addPublicIp", "PATCH", "/instance/{instance_uuid}/ip/add"),
  route("cloneInstance", "POST", "/instance/{instance_uuid}/clone"),
  route("getConsole", "POST", "/instance/{instance_uuid}/console-websocket"),
  route("reinstallInstance", "PATCH", "/instance/{instance_uuid}/reinstall"),
  route("deleteInstance", "DELETE", "/instance/{instance_uuid}"),
  route("startInstance", "PATCH", "/instance/{instance_uuid}/start"),
  route("stopInstance", "PATCH", "/instance/{instance_uuid}/stop"),
  route("restartInstance", "PATCH", "/instance/{instance_uuid}/restart"),
  route("resizeInstance", "PATCH", "/instance/{instance_uuid}/resize"),
  route("updateHostname", "PATCH", "/instance/{instance_uuid}/update-hostname"),
  route("updatePrivateNetwork", "PATCH", "/instance/{instance_uuid}/vswitch/update"),
  route("listFirewallRules", "GET", "/instance/{instance_uuid}/firewall/rules"),
  route("createFirewallRule", "POST", "/instance/{instance_uuid}/firewall/create"),
  route("getFirewallDefault", "GET", "/instance/{instance_uuid}/firewall/default"),
  route("updateFirewallDefault", "PATCH", "/instance/{instance_uuid}/firewall/default/update"),
  route("updateFirewallRule", "PATCH", "/instance/{instance_uuid}/firewall/{firewall_id}/update"),
  route("deleteFirewallRule", "DELETE", "/instance/{instance_uuid}/firewall/{firewall_id}/delete"),
  route("listSnapshots", "GET", "/instance/{instance_uuid}/snapshot/snapshots"),
  route("getSnapshotPrice", "GET", "/instance/{instance_uuid}/snapshot/price"),
  route("createSnapshot", "POST", "/instance/{instance_uuid}/snapshot/create"),
  route("rollbackSnapshot", "PATCH", "/instance/{instance_uuid}/snapshot/{snapshot_uuid}/rollback"),
  route("deleteSnapshot", "DELETE", "/instance/{instance_uuid}/snapshot/{snapshot_uuid}/delete"),
  route("getBackupPrice", "GET", "/instance/{instance_uuid}/backup/price"),
  route("listBackups", "GET", "/instance/{instance_uuid}/backup/history"),
  route("deleteBackup", "DELETE", "/instance/{instance_uuid}/backup/{snapshot_uuid}/delete"),
  route("listInstancesWithoutPublicIp", "GET", "/network/options/instances"),
  route("updateRdns", "PATCH", "/network/public/{ip_uuid}/rdns"),
  route("listVswitches", "GET", "/network/vswitches"),
  route("listVswitchOptions", "GET", "/network/options/vswitches"),
  route("getVswitch", "GET", "/network/vswitch/{vswitch_uuid}/details"),
  route("getVswitchGraph", "GET", "/network/vswitch/{vswitch_id}/graph"),
  route("listBlockStorages", "GET", "/storage/blocks"),
  route("listBlockStorageOptions", "GET", "/storage/blocks/options"),
  route("attachBlockStorage", "PATCH", "/storage/blocks/{block_storage_id}/attach"),
  route("detachBlockStorage", "PATCH", "/storage/blocks/{block_storage_id}/detach"),
  route("listLocations", "GET", "/locations"),
  route("listTiers", "GET", "/tiers"),
  route("listSystems", "GET", "/systems"),
  route("listPaymentMethods", "GET", "/billing/v2/payment-methods"),
  route("createTopup", "POST", "/billing/v2/topup"),
  route("getTopupStatus", "GET", "/billing/v2/topup/{invoice_id}/status"),
  route("listCreditHistory", "GET", "/billing/credit/history"),
  route("getBillingSummary", "GET", "/billing/summary"),
  route("getBillingReport", "GET", "/billing/report/summary/{summary_date}/details"),
];

interface CompiledRoute {
  route: SimRoute;
  pattern: RegExp;
  names: string[];
  /** Literal segments: with several matches, the most specific route wins (firewall/default/update). */
  literals: number;
}

const compiled: CompiledRoute[] = simRoutes.map((route) => {
  const names: string[] = [];
  const segments = route.path.split("/").filter(Boolean);
  const source = segments
    .map((seg) => {
      const m = /^\{(\w+)\}$/.exec(seg);
      if (m) {
        names.push(m[1]!);
        return "/([^/]+)";
      }
      return `/${seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`;
    })
    .join("");
  return { route, pattern: new RegExp(`^${source}$`), names, literals: segments.filter((s) => !s.startsWith("{")).length };
});

/** Result of matching a path under `/v1`. */
export type RouteMatch =
  | { kind: "found"; route: SimRoute; params: Record<string, string> }
  | { kind: "method-not-allowed"; allowed: string[] }
  | { kind: "not-found" };

/** Finds the route for a method and a path relative to `/v1`. */
export function matchRoute(method: string, path: string): RouteMatch {
  const candidates: { c: CompiledRoute; m: RegExpExecArray }[] = [];
  for (const c of compiled) {
    const m = c.pattern.exec(path);
    if (m) candidates.push({ c, m });
  }
  if (candidates.length === 0) return { kind: "not-found" };
  const sameMethod = candidates.filter((x) => x.c.route.method === method).sort((a, b) => b.c.literals - a.c.literals);
  const best = sameMethod[0];
  if (!best) return { kind: "method-not-allowed", allowed: [...new Set(candidates.map((x) => x.c.route.method))] };
  const params: Record<string, string> = {};
  best.c.names.forEach((name, i) => {
    const raw = best.m[i + 1]!;
    // A malformed escape is kept as sent: it then fails the lookup (404) instead of crashing the request.
    try {
      params[name] = decodeURIComponent(raw);
    } catch {
      params[name] = raw;
    }
  });
  return { kind: "found", route: best.c.route, params };
}
