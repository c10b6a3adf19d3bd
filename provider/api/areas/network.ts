/**
 * Public addresses and private networks (`client.network`).
 */
import type { CallFunction } from "../operations";
import { bodyFromInputs } from "../request";
import type { InstanceOption, VmUuidRef } from "../schemas/instances";
import type { AddedPublicIp, ChangedPublicIp, Vswitch, VswitchDetail, VswitchGraph } from "../schemas/network";
import { undefinedIfNotFound, type RequestOptions } from "./util";

/** The networking operations. */
export interface NetworkApi {
  /**
   * Assigns the reserved public address `publicNetwork` (uuid) to the instance, or removes the instance's
   * public address when `publicNetwork` is null, undefined or blank (the API removes on a blank value, so
   * a blank field is sent explicitly).
   */
  changePublicIp(instanceUuid: string, params: { publicNetwork?: string | null }, options?: RequestOptions): Promise<ChangedPublicIp | null>;
  /** Adds a new public address to the instance (never re-sent automatically: a repeat may add another). */
  addPublicIp(instanceUuid: string, options?: RequestOptions): Promise<AddedPublicIp>;
  /** Sets the reverse DNS of a public address (by the address's uuid); answers the stored name. */
  updateRdns(ipUuid: string, params: { rdns: string }, options?: RequestOptions): Promise<string>;
  /**
   * Attaches the instance to private network `vswitch` (uuid), or detaches it when `vswitch` is null,
   * undefined or blank (sent as a blank field).
   */
  updatePrivateNetwork(instanceUuid: string, params: { vswitch?: string | null }, options?: RequestOptions): Promise<VmUuidRef | null>;
  /** Every private network of the account. */
  listVswitches(options?: RequestOptions): Promise<Vswitch[]>;
  /** The private networks available in a location. */
  listVswitchOptions(params: { locationId: number }, options?: RequestOptions): Promise<Vswitch[]>;
  /** A private network's detail; throws `NotFoundError` if it does not exist. */
  getVswitch(vswitchUuid: string, options?: RequestOptions): Promise<VswitchDetail>;
  /** A private network's detail, or undefined on 404/410. */
  findVswitch(vswitchUuid: string, options?: RequestOptions): Promise<VswitchDetail | undefined>;
  /**
   * A private network's topology graph. The spec types the parameter as an integer id (api-spec.md §4.4) while the
   * other vswitch routes take the uuid: the integer a network shows is its `tag`; a string (a uuid, for a host that
   * takes it) is sent as given.
   */
  getVswitchGraph(vswitchId: string | number, options?: RequestOptions): Promise<VswitchGraph>;
  /** Instances of a location that have no public address (`{id, hostname}`). */
  listInstancesWithoutPublicIp(params: { locationId: number }, options?: RequestOptions): Promise<InstanceOption[]>;
}

/** Builds the networking operations on a generic call. */
export function createNetworkApi(call: CallFunction): NetworkApi {
  const api: NetworkApi = {
    changePublicIp: (instanceUuid, p, options) =>
      call("changePublicIp", {
        path: { instance_uuid: instanceUuid },
        ...bodyFromInputs({ public_network: ["publicNetworkId", p.publicNetwork ?? ""] }),
        signal: options?.signal,
      }),
    addPublicIp: (instanceUuid, options) =>
      call("addPublicIp", { path: { instance_uuid: instanceUuid }, body: {}, signal: options?.signal }),
    updateRdns: (ipUuid, p, options) =>
      call("updateRdns", { path: { ip_uuid: ipUuid }, ...bodyFromInputs({ rdns: ["rdns", p.rdns] }), signal: options?.signal }),
    updatePrivateNetwork: (instanceUuid, p, options) =>
      call("updatePrivateNetwork", {
        path: { instance_uuid: instanceUuid },
        ...bodyFromInputs({ vswitch: ["vswitchId", p.vswitch ?? ""] }),
        signal: options?.signal,
      }),
    listVswitches: (options) => call("listVswitches", { signal: options?.signal }),
    listVswitchOptions: (p, options) =>
      call("listVswitchOptions", { query: { location_id: p.locationId }, signal: options?.signal }),
    getVswitch: (vswitchUuid, options) =>
      call("getVswitch", { path: { vswitch_uuid: vswitchUuid }, signal: options?.signal }),
    findVswitch: (vswitchUuid, options) => undefinedIfNotFound(api.getVswitch(vswitchUuid, options)),
    getVswitchGraph: (vswitchId, options) =>
      call("getVswitchGraph", { path: { vswitch_id: vswitchId }, signal: options?.signal }),
    listInstancesWithoutPublicIp: (p, options) =>
      call("listInstancesWithoutPublicIp", { query: { location_id: p.locationId }, signal: options?.signal }),
  };
  return api;
}
