import { routes, operationIds, pathParameterNames } from "./routes";

/** The 41 operation ids of design.md §3, with the method and path api-spec.md gives (null where §4.6 hides them). */
const specOperations: Record<string, string | null> = {
  listInstances: "GET /instance",
  createInstance: "POST /instance/create",
  getInstance: "GET /instance/{instance_uuid}/detail",
  getInstanceMetrics: "GET /instance/{instance_uuid}/rrd",
  listSizeTemplates: "GET /instance/size-template",
  changeTier: "PATCH /instance/{instance_uuid}/change-tier",
  setPassword: "PATCH /instance/{instance_uuid}/set-password",
  changePublicIp: "PATCH /instance/{instance_uuid}/ip/change",
  updateFirewallRule: "PATCH /instance/{instance_uuid}/firewall/{firewall_id}/update",
  attachBlockStorage: "PATCH /storage/blocks/{block_storage_id}/attach",
  listBlockStorageOptions: "GET /storage/blocks/options",
  listSnapshots: "GET /instance/{instance_uuid}/snapshot/snapshots",
  getSnapshotPrice: "GET /instance/{instance_uuid}/snapshot/price",
  getBackupPrice: "GET /instance/{instance_uuid}/backup/price",
  listVswitches: "GET /network/vswitches",
  listVswitchOptions: "GET /network/options/vswitches",
  getVswitch: "GET /network/vswitch/{vswitch_uuid}/details",
  getVswitchGraph: "GET /network/vswitch/{vswitch_id}/graph",
  listPaymentMethods: "GET /billing/v2/payment-methods",
  createTopup: "POST /billing/v2/topup",
  listCreditHistory: "GET /billing/credit/history",
  getBillingReport: "GET /billing/report/summary/{summary_date}/details",
  cloneInstance: null, getConsole: null, reinstallInstance: null, deleteInstance: null,
  startInstance: null, stopInstance: null, restartInstance: null, listInstancesWithoutPublicIp: null,
  updateRdns: null, updatePrivateNetwork: null, addPublicIp: null, resizeInstance: null,
  updateHostname: null, getChangeTierCost: null, createSnapshot: null, rollbackSnapshot: null,
  deleteSnapshot: null, listBackups: null, deleteBackup: null,
};

describe("routes table", () => {
  it("holds all 41 spec operations, with the spec's method and path where the spec shows them", () => {
    expect(Object.keys(specOperations)).toHaveLength(41);
    for (const [id, shown] of Object.entries(specOperations)) {
      const route = (routes as Record<string, { method: string; path: string; inSpec: boolean; confidence: string }>)[id];
      expect(route).toBeDefined();
      expect(route!.inSpec).toBe(true);
      if (shown) {
        expect(`${route!.method} ${route!.path}`).toBe(shown);
        expect(route!.confidence).toBe("spec");
      } else {
        expect(route!.confidence).not.toBe("spec");
      }
    }
  });

  it("marks exactly the spec's operations as inSpec; the rest come from real-api-facts.md", () => {
    const inSpec = operationIds.filter((id) => routes[id].inSpec);
    expect(inSpec.sort()).toEqual(Object.keys(specOperations).sort());
  });

  it("never retries the operations that create something blindly", () => {
    for (const id of ["createInstance", "cloneInstance", "createSnapshot", "createTopup"] as const) {
      expect(routes[id].retry).toBe("once");
    }
  });

  it("names path parameters so calls can be checked for missing ones", () => {
    expect(pathParameterNames(routes.deleteSnapshot.path)).toEqual(["instance_uuid", "snapshot_uuid"]);
    expect(pathParameterNames(routes.listInstances.path)).toEqual([]);
  });
});

describe("operations (pulumi-vmhost/api)", () => {
  // Imported lazily so this file's route checks do not depend on the schemas compiling.
  const { operations } = require("./operations") as typeof import("./operations");

  it("holds all 41 spec operations with the spec's method and path, each with a response envelope schema", () => {
    for (const [id, shown] of Object.entries(specOperations)) {
      const op = (operations as Record<string, { method: string; path: string; response: { shape: Record<string, unknown> } }>)[id];
      expect(op).toBeDefined();
      if (shown) expect(`${op!.method} ${op!.path}`).toBe(shown);
      // `response` is the schema of the whole envelope, not of `data` alone.
      expect(Object.keys(op!.response.shape).sort()).toEqual(["data", "message"]);
    }
  });

  it("has exactly the routes table's ids, with the same route fields", () => {
    expect(Object.keys(operations).sort()).toEqual([...operationIds].sort());
    for (const id of operationIds) {
      const { response, ...route } = operations[id];
      expect(response).toBeDefined();
      expect(route).toEqual(routes[id]);
    }
  });
});
