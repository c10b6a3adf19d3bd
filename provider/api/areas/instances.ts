/**
 * Instance operations (`client.instances`): list, inspect, create, clone, resize, change tier, power,
 * reinstall, delete, rename, password, metrics, console, cost estimates.
 */
import type { CallFunction } from "../operations";
import { bodyFromInputs } from "../request";
import { collectAll, paginate } from "../paginate";
import type {
  ChangeTierCost,
  ClonedInstance,
  ConsoleConnection,
  CreatedInstance,
  InstanceDetail,
  InstanceList,
  InstanceListItem,
  InstanceMetrics,
  InstanceRef,
  VmUuidRef,
} from "../schemas/instances";
import { LIST_ALL_PAGE_SIZE, undefinedIfNotFound, type RequestOptions } from "./util";

/** Query of the instance list. */
export interface ListInstancesQuery {
  /** Items per page. */
  limit?: number;
  /** Page number (1-based). */
  page?: number;
  /** Search by hostname (used to reconcile an ambiguous create). */
  search?: string;
  /** Sort by `created_at` or `cost` (direction syntax not published). */
  sort?: string;
  /** Keep only these statuses (sent comma-separated). */
  statuses?: string | readonly string[];
}

/** Parameters of {@link InstancesApi.create}. Memory and storage are in GB. */
export interface CreateInstanceParams {
  locationId: number;
  tierId: number;
  /** OS template id (see `client.catalog.systems()` / size templates). */
  templateId: number;
  hostname: string;
  cpu: number;
  /** Memory in GB. */
  memory: number;
  /** Storage in GB. */
  storage: number;
  username: string;
  password: string;
  /** Give the instance a public address. */
  usePublicIp: boolean;
  useSharedCpu?: boolean | null;
  useDedicatedCpu?: boolean | null;
  /** UUID of a private network to join. */
  vswitch?: string | null;
  /** SSH public keys to install. */
  sshKeys?: readonly string[] | null;
  /** Enable scheduled backups. */
  includeBackup?: boolean | null;
  /** UUID of a reserved public network address to use. */
  publicNetwork?: string | null;
}

/** Parameters of {@link InstancesApi.clone}. */
export interface CloneInstanceParams {
  /** Hostname of the new instance. */
  hostname: string;
  locationId: number;
  tierId: number;
}

/** Parameters of {@link InstancesApi.reinstall}; the spec shows no body, client code sends these. */
export interface ReinstallInstanceParams {
  templateId?: number;
  username?: string;
  password?: string;
}

/** Parameters of {@link InstancesApi.resize}. Memory and storage are in GB; storage can only grow. */
export interface ResizeInstanceParams {
  cpu: number;
  memory: number;
  storage: number;
  useDedicatedCpu?: boolean | null;
}

/** Parameters of {@link InstancesApi.delete}: what to remove with the instance. Both are required on purpose. */
export interface DeleteInstanceParams {
  /** Also remove (release) the public address. */
  removeIp: boolean;
  /** Also remove attached block storage (its data is lost). */
  removeBlockStorage: boolean;
}

/** Period of {@link InstancesApi.metrics}. */
export type MetricsPeriod = "hour" | "day" | "week" | "month" | "year";

/** The instance operations. */
export interface InstancesApi {
  /** One page of the instance list (`GET /instance`), with `active_operation`. */
  list(query?: ListInstancesQuery, options?: RequestOptions): Promise<InstanceList>;
  /** Iterates every instance across pages. */
  iterate(query?: Omit<ListInstancesQuery, "page">, options?: RequestOptions): AsyncGenerator<InstanceListItem, void, undefined>;
  /** Every instance across pages. */
  listAll(query?: Omit<ListInstancesQuery, "page">, options?: RequestOptions): Promise<InstanceListItem[]>;
  /**
   * True once a list row of this host showed a public address (`ip_address`). The hosts' docs sample writes
   * `ip_address: null` on every row, so a row's null means "no address" only on a host seen filling the field.
   */
  rowsShowAddresses(): boolean;
  /** The instance detail; throws `NotFoundError` if it does not exist. */
  get(instanceUuid: string, options?: RequestOptions): Promise<InstanceDetail>;
  /** The instance detail, or undefined on 404/410 (absence is normal for refresh and delete). */
  find(instanceUuid: string, options?: RequestOptions): Promise<InstanceDetail | undefined>;
  /**
   * Creates an instance (never re-sent automatically: an ambiguous failure throws
   * `AmbiguousRequestError`; look for it with `list({ search: hostname })` before retrying).
   */
  create(params: CreateInstanceParams, options?: RequestOptions): Promise<CreatedInstance>;
  /** Clones an instance into a new one (never re-sent automatically). Answers the new uuid. */
  clone(instanceUuid: string, params: CloneInstanceParams, options?: RequestOptions): Promise<ClonedInstance>;
  /** Reinstalls the OS (wipes the disk; never re-sent automatically). */
  reinstall(instanceUuid: string, params?: ReinstallInstanceParams, options?: RequestOptions): Promise<InstanceRef>;
  /**
   * Deletes an instance (`DELETE` with Laravel's `_method=DELETE` in the form). Resolves to undefined if
   * it was already gone (404/410), which a retried delete can meet.
   */
  delete(instanceUuid: string, params: DeleteInstanceParams, options?: RequestOptions): Promise<InstanceRef[] | undefined>;
  /** Starts the instance (the answer comes before it is running: poll `get`). */
  start(instanceUuid: string, options?: RequestOptions): Promise<InstanceRef | null>;
  /** Stops the instance (answers before it is stopped). */
  stop(instanceUuid: string, options?: RequestOptions): Promise<InstanceRef | null>;
  /** Restarts the instance (never re-sent automatically: a repeat reboots twice). */
  restart(instanceUuid: string, options?: RequestOptions): Promise<InstanceRef>;
  /** Resizes cpu, memory (GB) and storage (GB). */
  resize(instanceUuid: string, params: ResizeInstanceParams, options?: RequestOptions): Promise<InstanceRef>;
  /** Moves the instance to another tier. */
  changeTier(instanceUuid: string, params: { tierId: number }, options?: RequestOptions): Promise<VmUuidRef>;
  /** Renames the instance. */
  updateHostname(instanceUuid: string, params: { hostname: string }, options?: RequestOptions): Promise<InstanceRef | null>;
  /** Sets the admin password (`passwordConfirmation` defaults to `password`). */
  setPassword(instanceUuid: string, params: { password: string; passwordConfirmation?: string }, options?: RequestOptions): Promise<null>;
  /** CPU, memory, network and disk series; the last point is an in-progress bucket. */
  metrics(instanceUuid: string, params: { period: MetricsPeriod }, options?: RequestOptions): Promise<InstanceMetrics>;
  /** Opens a virtual console: a websocket URL carrying a token, and the console password. */
  console(instanceUuid: string, options?: RequestOptions): Promise<ConsoleConnection>;
  /** Estimates the monthly cost before and after a tier change. */
  changeTierCost(instanceUuid: string, params: { tierId: number }, options?: RequestOptions): Promise<ChangeTierCost>;
}

function listQuery(query: ListInstancesQuery | undefined) {
  if (!query) return undefined;
  const statuses = query.statuses === undefined ? undefined : typeof query.statuses === "string" ? query.statuses : query.statuses.join(",");
  return { limit: query.limit, page: query.page, search: query.search, sort: query.sort, statuses };
}

/** Builds the instance operations on a generic call. */
export function createInstancesApi(call: CallFunction): InstancesApi {
  const ref = (instanceUuid: string) => ({ instance_uuid: instanceUuid });
  let rowsShowAddresses = false;
  const api: InstancesApi = {
    list: async (query, options) => {
      const page = await call("listInstances", { query: listQuery(query), signal: options?.signal, onSend: options?.onSend });
      rowsShowAddresses ||= page.data.some((row) => row.ip_address !== null);
      return page;
    },
    rowsShowAddresses: () => rowsShowAddresses,
    iterate: (query, options) =>
      paginate((page) => api.list({ limit: LIST_ALL_PAGE_SIZE, ...query, page }, options)),
    listAll: (query, options) => collectAll((page) => api.list({ limit: LIST_ALL_PAGE_SIZE, ...query, page }, options)),
    get: (instanceUuid, options) => call("getInstance", { path: ref(instanceUuid), signal: options?.signal }),
    find: (instanceUuid, options) => undefinedIfNotFound(api.get(instanceUuid, options)),
    create: (p, options) =>
      call("createInstance", {
        ...bodyFromInputs({
          location_id: ["locationId", p.locationId],
          tier_id: ["tierId", p.tierId],
          template_id: ["templateId", p.templateId],
          hostname: ["hostname", p.hostname],
          cpu: ["cpu", p.cpu],
          memory: ["memory", p.memory],
          storage: ["storage", p.storage],
          username: ["username", p.username],
          password: ["password", p.password],
          use_public_ip: ["publicIp", p.usePublicIp],
          use_shared_cpu: ["dedicatedCpu", p.useSharedCpu],
          use_dedicated_cpu: ["dedicatedCpu", p.useDedicatedCpu],
          vswitch: ["vswitchId", p.vswitch],
          ssh_keys: ["sshKeys", p.sshKeys],
          include_backup: ["backups", p.includeBackup],
          public_network: ["publicNetworkId", p.publicNetwork],
        }),
        signal: options?.signal,
      }),
    clone: (instanceUuid, p, options) =>
      call("cloneInstance", {
        path: ref(instanceUuid),
        ...bodyFromInputs({ hostname: ["hostname", p.hostname], location_id: ["locationId", p.locationId], tier_id: ["tierId", p.tierId] }),
        signal: options?.signal,
      }),
    reinstall: (instanceUuid, p, options) =>
      call("reinstallInstance", {
        path: ref(instanceUuid),
        ...bodyFromInputs({ template_id: ["templateId", p?.templateId], username: ["username", p?.username], password: ["password", p?.password] }),
        signal: options?.signal,
      }),
    delete: (instanceUuid, p, options) =>
      undefinedIfNotFound(
        call("deleteInstance", {
          path: ref(instanceUuid),
          // Laravel method spoofing: some hosts only route the delete when the form names the method.
          ...bodyFromInputs({
            remove_ip: ["deleteOptions.removePublicIp", p.removeIp],
            remove_block_storage: ["deleteOptions.removeBlockStorage", p.removeBlockStorage],
            _method: ["_method", "DELETE"],
          }),
          signal: options?.signal,
        }),
      ),
    start: (instanceUuid, options) => call("startInstance", { path: ref(instanceUuid), body: {}, signal: options?.signal }),
    stop: (instanceUuid, options) => call("stopInstance", { path: ref(instanceUuid), body: {}, signal: options?.signal }),
    restart: (instanceUuid, options) => call("restartInstance", { path: ref(instanceUuid), body: {}, signal: options?.signal }),
    resize: (instanceUuid, p, options) =>
      call("resizeInstance", {
        path: ref(instanceUuid),
        ...bodyFromInputs({ cpu: ["cpu", p.cpu], memory: ["memory", p.memory], storage: ["storage", p.storage], use_dedicated_cpu: ["dedicatedCpu", p.useDedicatedCpu] }),
        signal: options?.signal,
      }),
    changeTier: (instanceUuid, p, options) =>
      call("changeTier", { path: ref(instanceUuid), ...bodyFromInputs({ tier_id: ["tierId", p.tierId] }), signal: options?.signal }),
    updateHostname: (instanceUuid, p, options) =>
      call("updateHostname", { path: ref(instanceUuid), ...bodyFromInputs({ hostname: ["hostname", p.hostname] }), signal: options?.signal }),
    setPassword: (instanceUuid, p, options) =>
      call("setPassword", {
        path: ref(instanceUuid),
        ...bodyFromInputs({ password: ["password", p.password], password_confirmation: ["password", p.passwordConfirmation ?? p.password] }),
        signal: options?.signal,
      }),
    metrics: (instanceUuid, p, options) =>
      call("getInstanceMetrics", { path: ref(instanceUuid), query: { periode: p.period }, signal: options?.signal }),
    console: (instanceUuid, options) => call("getConsole", { path: ref(instanceUuid), body: {}, signal: options?.signal }),
    changeTierCost: (instanceUuid, p, options) =>
      call("getChangeTierCost", { path: ref(instanceUuid), query: { tier_id: p.tierId }, signal: options?.signal }),
  };
  return api;
}
