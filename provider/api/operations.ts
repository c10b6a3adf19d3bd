/**
 * `operations`: every operation of the routes table with the zod schema of its whole response envelope
 * `{message, data}`. The client parses every answer with it; the simulator validates its own answers
 * against it (`schema.parse(body)` on the wire shape), so both sides agree on one definition.
 */
import { z } from "zod";
import { routes, type OperationId, type RouteDefinition } from "./routes";
import type { CallOptions } from "./request";
import { emptyData, envelope, instanceRef } from "./schemas/common";
import {
  changeTierCost,
  clonedInstance,
  consoleConnection,
  createdInstance,
  deletedInstances,
  instanceDetail,
  instanceList,
  instanceMetrics,
  instanceOption,
  sizeTemplate,
  vmUuidRef,
} from "./schemas/instances";
import { addedPublicIp, changedPublicIp, storedRdns, vswitch, vswitchDetail, vswitchGraph } from "./schemas/network";
import {
  createdFirewallRule,
  firewallDefaultPolicy,
  firewallRuleList,
  firewallRuleRef,
  firewallWriteResult,
} from "./schemas/firewall";
import { attachedBlockStorage, blockStorageList, blockStorageOption, detachedBlockStorage } from "./schemas/storage";
import { createdSnapshot, deletedSnapshot, rolledBackSnapshot, snapshot, snapshotPrice } from "./schemas/snapshots";
import { backupList, backupPrice, deletedBackup } from "./schemas/backups";
import { listOrWrapped, locationRecord, systemRecord, tierRecord } from "./schemas/catalog";
import { billingReport, billingSummary, creditHistory, paymentMethods, topupInvoice, topupStatus } from "./schemas/billing";

export type { OperationId } from "./routes";

/**
 * The answer of an idempotent write whose content nothing needs (the effect is read back from the instance): the
 * schema's value when the answer matches it, else null. A host that answers such a write `200 {data: null}` (or `[]`,
 * or another shape) did it: read strictly, the attach, the network join, the hostname, the power and address changes
 * failed as "unexpected response format" after they took effect, at every up (real-api-facts audit).
 */
function acknowledgement<T extends z.ZodType>(schema: T) {
  return z.unknown().transform((v): z.output<T> | null => {
    const parsed = schema.safeParse(v);
    return parsed.success ? parsed.data : null;
  });
}

/** The response envelope schema of every operation, keyed by operation id. */
export const responseSchemas = {
  listInstances: envelope(instanceList),
  createInstance: envelope(createdInstance),
  getInstance: envelope(instanceDetail),
  getInstanceMetrics: envelope(instanceMetrics),
  listSizeTemplates: envelope(z.array(sizeTemplate)),
  changeTier: envelope(vmUuidRef),
  setPassword: envelope(emptyData),
  changePublicIp: envelope(acknowledgement(changedPublicIp)),
  updateFirewallRule: envelope(acknowledgement(firewallRuleRef)),
  attachBlockStorage: envelope(acknowledgement(attachedBlockStorage)),
  listBlockStorageOptions: envelope(z.array(blockStorageOption)),
  listSnapshots: envelope(z.array(snapshot)),
  getSnapshotPrice: envelope(snapshotPrice),
  getBackupPrice: envelope(backupPrice),
  listVswitches: envelope(z.array(vswitch)),
  listVswitchOptions: envelope(z.array(vswitch)),
  getVswitch: envelope(vswitchDetail),
  getVswitchGraph: envelope(vswitchGraph),
  listPaymentMethods: envelope(paymentMethods),
  createTopup: envelope(topupInvoice),
  listCreditHistory: envelope(creditHistory),
  getBillingReport: envelope(billingReport),
  cloneInstance: envelope(clonedInstance),
  getConsole: envelope(consoleConnection),
  reinstallInstance: envelope(instanceRef),
  deleteInstance: envelope(deletedInstances),
  startInstance: envelope(acknowledgement(instanceRef)),
  stopInstance: envelope(acknowledgement(instanceRef)),
  restartInstance: envelope(instanceRef),
  listInstancesWithoutPublicIp: envelope(z.array(instanceOption)),
  updateRdns: envelope(storedRdns),
  updatePrivateNetwork: envelope(acknowledgement(vmUuidRef)),
  addPublicIp: envelope(addedPublicIp),
  resizeInstance: envelope(instanceRef),
  updateHostname: envelope(acknowledgement(instanceRef)),
  getChangeTierCost: envelope(changeTierCost),
  createSnapshot: envelope(createdSnapshot),
  rollbackSnapshot: envelope(rolledBackSnapshot),
  deleteSnapshot: envelope(deletedSnapshot),
  listBackups: envelope(backupList),
  deleteBackup: envelope(deletedBackup),
  listFirewallRules: envelope(firewallRuleList),
  createFirewallRule: envelope(createdFirewallRule),
  deleteFirewallRule: envelope(firewallWriteResult),
  getFirewallDefault: envelope(firewallDefaultPolicy),
  updateFirewallDefault: envelope(firewallWriteResult),
  listBlockStorages: envelope(blockStorageList),
  detachBlockStorage: envelope(detachedBlockStorage),
  listLocations: envelope(listOrWrapped(locationRecord)),
  listTiers: envelope(listOrWrapped(tierRecord)),
  listSystems: envelope(listOrWrapped(systemRecord)),
  getBillingSummary: envelope(billingSummary),
  getTopupStatus: envelope(topupStatus),
} as const satisfies Record<OperationId, z.ZodType>;

/** The envelope schema type of one operation. */
export type ResponseSchema<K extends OperationId> = (typeof responseSchemas)[K];

/** The wire (unparsed) envelope of one operation: what the service sends. */
export type WireResponse<K extends OperationId> = z.input<ResponseSchema<K>>;

/** The normalized `data` of one operation: what `client.call(id)` resolves to. */
export type OperationData<K extends OperationId> = z.output<ResponseSchema<K>>["data"];

/** One operation: its route (method, path template, confidence, retry class, area, inSpec) and response schema. */
export type Operation<K extends OperationId> = (typeof routes)[K] & RouteDefinition & { readonly response: ResponseSchema<K> };

function buildOperations(): { readonly [K in OperationId]: Operation<K> } {
  const result: Record<string, unknown> = {};
  for (const id of Object.keys(routes) as OperationId[]) {
    result[id] = Object.freeze({ ...routes[id], response: responseSchemas[id] });
  }
  return Object.freeze(result) as { readonly [K in OperationId]: Operation<K> };
}

/**
 * Every operation keyed by id: `{ method, path, confidence, retry, area, inSpec, response }`, where
 * `response` is the zod schema of the whole envelope `{message, data}` (design.md §2). `method` and `path`
 * are the defaults; a client created with route overrides uses its own effective table (`client.routes`).
 */
export const operations = buildOperations();

/** The generic call: runs operation `id` and resolves to its normalized `data`. */
export type CallFunction = <K extends OperationId>(id: K, options?: CallOptions) => Promise<OperationData<K>>;
