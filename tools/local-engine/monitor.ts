/**
 * The gRPC services a Pulumi program talks to: ResourceMonitor (register resources, outputs, invokes)
 * and Engine (logging, root resource). The program reaches them through `--monitor` / `--engine`.
 * This file only translates protobuf to plain values; what a registration does is decided by a
 * {@link MonitorHandler} (the deployment).
 */
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import * as engrpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import * as engproto from "@pulumi/pulumi/proto/engine_pb";
import * as resrpc from "@pulumi/pulumi/proto/resource_grpc_pb";
import * as resproto from "@pulumi/pulumi/proto/resource_pb";
import { PropertyMap } from "./values";
import { errorText } from "./errors";

/** A RegisterResource call, reduced to what this engine honours. */
export interface RegistrationRequest {
  type: string;
  name: string;
  /** Parent URN ("" for the stack itself). */
  parent: string;
  custom: boolean;
  /** Inputs in wire form (secrets wrapped, unknowns as the sentinel during preview). */
  object: PropertyMap;
  protect: boolean;
  /** dependsOn plus the resources the inputs came from. */
  dependencies: string[];
  /**
   * The program's `deleteBeforeReplace`, or undefined when it did not set it (then the provider's diff
   * decides; an explicit false overrides the provider, as in Pulumi's step generator).
   */
  deleteBeforeReplace: boolean | undefined;
  /** Per input property, the URNs of the resources its value came from (for the delete-before-replace cascade). */
  propertyDependencies: Record<string, string[]>;
  /** Alias URNs: old URNs this resource may have been recorded under (rename, reparent). */
  aliases: string[];
  /** URN of the resource this one is deleted with ("" for none): its own delete is skipped when that one goes too. */
  deletedWith: string;
  ignoreChanges: string[];
  replaceOnChanges: string[];
  additionalSecretOutputs: string[];
  /** Explicit provider reference; unsupported (only the default dynamic provider is). */
  provider: string;
  importId: string;
  retainOnDelete: boolean;
  /** The `replacementTrigger` option is set (a change of its value forces a replace); unsupported. */
  replacementTrigger: boolean;
}

/** What RegisterResource answers. `failed` makes the program see unknown outputs instead of crashing. */
export interface RegistrationResult {
  urn: string;
  id: string;
  object: PropertyMap;
  failed: boolean;
}

/** Log severities of the Engine service. */
export type Severity = "debug" | "info" | "warning" | "error";

/** The engine side the services call into. */
export interface MonitorHandler {
  register(req: RegistrationRequest): Promise<RegistrationResult>;
  registerOutputs(urn: string, outputs: PropertyMap): Promise<void>;
  log(severity: Severity, message: string, urn: string): void;
}

/** Static facts the program may ask for. */
export interface MonitorInfo {
  project: string;
  stack: string;
  dryRun: boolean;
}

/** A running pair of services on one port. */
export interface MonitorServer {
  /** `127.0.0.1:<port>`: pass as both `--monitor` and `--engine`. */
  address: string;
  close(): Promise<void>;
}

/**
 * Features this engine implements. `secrets` is the one that matters (secret inputs and outputs keep their
 * wrappers). Everything else is answered false so the SDK falls back to the simplest encodings: no resource
 * references (resources travel as their id/URN), no output values, no alias specs, no transforms or hooks.
 */
const SUPPORTED_FEATURES = new Set(["secrets", "deletedWith"]);

const SEVERITIES: Record<number, Severity> = {
  [engproto.LogSeverity.DEBUG]: "debug",
  [engproto.LogSeverity.INFO]: "info",
  [engproto.LogSeverity.WARNING]: "warning",
  [engproto.LogSeverity.ERROR]: "error",
};

type Handler<Req, Res> = (call: grpc.ServerUnaryCall<Req, Res>, cb: grpc.sendUnaryData<Res>) => void;

/** Adapts an async function to a grpc-js unary handler; a thrown error becomes an UNKNOWN status. */
function unary<Req, Res>(fn: (req: Req) => Promise<Res> | Res): Handler<Req, Res> {
  return (call, cb) => {
    Promise.resolve()
      .then(() => fn(call.request))
      .then(
        (res) => cb(null, res),
        (err: unknown) => cb({ code: grpc.status.UNKNOWN, details: errorText(err) }),
      );
  };
}

function unimplemented<Req, Res>(what: string): Handler<Req, Res> {
  return (_call, cb) => cb({ code: grpc.status.UNIMPLEMENTED, details: `${what} is not supported by the local engine` });
}

function propertyDependencies(req: resproto.RegisterResourceRequest): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  req.getPropertydependenciesMap().forEach((deps, key) => {
    out[key] = deps.getUrnsList();
  });
  return out;
}

/**
 * The alias URNs of a registration. This monitor does not announce `aliasSpecs`, so the SDK collapses
 * aliases to URNs itself (`aliasUrns`); a structured alias spec is refused rather than silently ignored,
 * because ignoring an alias deletes and recreates the resource.
 */
function aliasUrns(req: resproto.RegisterResourceRequest): string[] {
  const urns = [...req.getAliasurnsList()];
  for (const a of req.getAliasesList()) {
    if (a.hasSpec()) throw new Error(`${req.getName()}: alias specs are not supported by the local engine; use alias URNs`);
    urns.push(a.getUrn());
  }
  return urns;
}

/** Starts the ResourceMonitor and Engine services on a free local port. */
export async function startMonitor(handler: MonitorHandler, info: MonitorInfo): Promise<MonitorServer> {
  const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
  let rootUrn = "";

  const monitor: resrpc.IResourceMonitorServer = {
    supportsFeature: unary((req: resproto.SupportsFeatureRequest) =>
      new resproto.SupportsFeatureResponse().setHassupport(SUPPORTED_FEATURES.has(req.getId())),
    ),
    getDeploymentInfo: unary(() =>
      new resproto.DeploymentInfo().setProject(info.project).setStack(info.stack).setDryrun(info.dryRun),
    ),
    registerResource: unary(async (req: resproto.RegisterResourceRequest) => {
      const result = await handler.register({
        type: req.getType(),
        name: req.getName(),
        parent: req.getParent(),
        custom: req.getCustom(),
        object: (req.getObject()?.toJavaScript() ?? {}) as PropertyMap,
        protect: req.getProtect() ?? false,
        dependencies: req.getDependenciesList(),
        deleteBeforeReplace: req.getDeletebeforereplacedefined() ? req.getDeletebeforereplace() : undefined,
        propertyDependencies: propertyDependencies(req),
        aliases: aliasUrns(req),
        deletedWith: req.getDeletedwith(),
        ignoreChanges: req.getIgnorechangesList(),
        replaceOnChanges: req.getReplaceonchangesList(),
        additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
        provider: req.getProvider(),
        importId: req.getImportid(),
        retainOnDelete: req.getRetainondelete() ?? false,
        // @pulumi/pulumi sends it without asking whether the engine supports it (runtime/resource.js)
        replacementTrigger: req.hasReplacementTrigger(),
      });
      const res = new resproto.RegisterResourceResponse();
      res.setUrn(result.urn);
      res.setId(result.id);
      res.setObject(Struct.fromJavaScript(result.object as Record<string, never>));
      res.setResult(result.failed ? resproto.Result.FAIL : resproto.Result.SUCCESS);
      return res;
    }),
    registerResourceOutputs: unary(async (req: resproto.RegisterResourceOutputsRequest) => {
      await handler.registerOutputs(req.getUrn(), (req.getOutputs()?.toJavaScript() ?? {}) as PropertyMap);
      return new Empty();
    }),
    invoke: unary((req: resproto.ResourceInvokeRequest): never => {
      // Dynamic providers have no functions; the sdk's read functions call the API from the program itself.
      throw new Error(`invoke of ${req.getTok()} is not supported by the local engine`);
    }),
    call: unimplemented("Call (methods of component resources)"),
    readResource: unimplemented("Reading an existing resource (Resource.get / the `id` option)"),
    registerStackTransform: unimplemented("Stack transforms"),
    registerStackInvokeTransform: unimplemented("Invoke transforms"),
    registerResourceHook: unimplemented("Resource hooks"),
    registerErrorHook: unimplemented("Error hooks"),
    registerPackage: unimplemented("Parameterized packages"),
    // The program calls this when it has nothing left to do; there are no hooks to wait for.
    signalAndWaitForShutdown: unary(() => new Empty()),
  };

  const engine: engrpc.IEngineServer = {
    log: unary((req: engproto.LogRequest) => {
      handler.log(SEVERITIES[req.getSeverity()] ?? "info", req.getMessage(), req.getUrn());
      return new Empty();
    }),
    getRootResource: unary(() => new engproto.GetRootResourceResponse().setUrn(rootUrn)),
    setRootResource: unary((req: engproto.SetRootResourceRequest) => {
      rootUrn = req.getUrn();
      return new engproto.SetRootResourceResponse();
    }),
    startDebugging: unimplemented("Debugging"),
    requirePulumiVersion: unary(() => new engproto.RequirePulumiVersionResponse()),
  };

  server.addService(resrpc.ResourceMonitorService, monitor as unknown as grpc.UntypedServiceImplementation);
  server.addService(engrpc.EngineService, engine as unknown as grpc.UntypedServiceImplementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    address: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
      }),
  };
}
