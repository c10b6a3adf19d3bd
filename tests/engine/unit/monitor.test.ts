/**
 * The ResourceMonitor and Engine gRPC services (tools/local-engine/monitor.ts), in process: a gRPC client in
 * this test process plays the program (as @pulumi/pulumi's runtime does), a fake handler plays the deployment.
 * No program or provider-host process is started.
 */
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct, Value } from "google-protobuf/google/protobuf/struct_pb";
import * as aliasproto from "@pulumi/pulumi/proto/alias_pb";
import * as callbackproto from "@pulumi/pulumi/proto/callback_pb";
import * as engrpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import * as engproto from "@pulumi/pulumi/proto/engine_pb";
import * as resrpc from "@pulumi/pulumi/proto/resource_grpc_pb";
import * as resproto from "@pulumi/pulumi/proto/resource_pb";
import { MonitorHandler, MonitorServer, RegistrationRequest, RegistrationResult, Severity, startMonitor } from "../../../tools/local-engine/monitor";
import { PropertyMap } from "../../../tools/local-engine/values";

class FakeHandler implements MonitorHandler {
  readonly registered: RegistrationRequest[] = [];
  readonly outputs: Array<[string, PropertyMap]> = [];
  readonly logs: Array<[Severity, string, string]> = [];
  answer: RegistrationResult = { urn: "urn:x", id: "id-1", object: { a: 1 }, failed: false };
  fail?: Error;

  async register(req: RegistrationRequest): Promise<RegistrationResult> {
    this.registered.push(req);
    if (this.fail) throw this.fail;
    return this.answer;
  }
  async registerOutputs(urn: string, outputs: PropertyMap): Promise<void> {
    this.outputs.push([urn, outputs]);
  }
  log(severity: Severity, message: string, urn: string): void {
    this.logs.push([severity, message, urn]);
  }
}

let handler: FakeHandler;
let server: MonitorServer;
let monitor: resrpc.ResourceMonitorClient;
let engine: engrpc.EngineClient;

beforeEach(async () => {
  handler = new FakeHandler();
  server = await startMonitor(handler, { project: "proj", stack: "dev", dryRun: true });
  monitor = new resrpc.ResourceMonitorClient(server.address, grpc.credentials.createInsecure());
  engine = new engrpc.EngineClient(server.address, grpc.credentials.createInsecure());
});
afterEach(async () => {
  monitor.close();
  engine.close();
  await server.close();
});

/** One unary call as a promise; a gRPC error rejects with its code and details. */
function call<Req, Res>(fn: (req: Req, cb: (err: grpc.ServiceError | null, res: Res) => void) => unknown, req: Req): Promise<Res> {
  return new Promise<Res>((resolve, reject) => fn(req, (err, res) => (err ? reject(err) : resolve(res))));
}

test("listens on a local port", () => {
  expect(server.address).toMatch(/^127\.0\.0\.1:\d+$/);
});

test("features: secrets and deletedWith only, so the SDK uses the simple encodings", async () => {
  const has = async (id: string): Promise<boolean> =>
    (await call<resproto.SupportsFeatureRequest, resproto.SupportsFeatureResponse>(monitor.supportsFeature.bind(monitor), new resproto.SupportsFeatureRequest().setId(id))).getHassupport();
  expect(await has("secrets")).toBe(true);
  expect(await has("deletedWith")).toBe(true);
  expect(await has("resourceReferences")).toBe(false);
  expect(await has("aliasSpecs")).toBe(false);
});

test("deployment info: project, stack and whether it is a preview", async () => {
  const info = await call<Empty, resproto.DeploymentInfo>(monitor.getDeploymentInfo.bind(monitor), new Empty());
  expect([info.getProject(), info.getStack(), info.getDryrun()]).toEqual(["proj", "dev", true]);
});

test("a registration reaches the handler with every option; its answer goes back", async () => {
  const req = new resproto.RegisterResourceRequest()
    .setType("pulumi-nodejs:dynamic:Resource")
    .setName("web")
    .setParent("urn:parent")
    .setCustom(true)
    .setObject(Struct.fromJavaScript({ size: 2, tags: { a: "b" } }))
    .setProtect(true)
    .setDependenciesList(["urn:d1"])
    .setDeletebeforereplace(false)
    .setDeletebeforereplacedefined(true)
    .setAliasurnsList(["urn:old1"])
    .setDeletedwith("urn:vm")
    .setIgnorechangesList(["tags"])
    .setReplaceonchangesList(["size"])
    .setAdditionalsecretoutputsList(["token"])
    .setProvider("urn:prov::id")
    .setImportid("i-1")
    .setRetainondelete(true)
    .setReplacementTrigger(Value.fromJavaScript("v1"));
  req.addAliases(new aliasproto.Alias().setUrn("urn:old2"));
  req.getPropertydependenciesMap().set("size", new resproto.RegisterResourceRequest.PropertyDependencies().setUrnsList(["urn:d1", "urn:d2"]));
  const res = await call<resproto.RegisterResourceRequest, resproto.RegisterResourceResponse>(monitor.registerResource.bind(monitor), req);
  expect(handler.registered).toEqual([
    {
      type: "pulumi-nodejs:dynamic:Resource",
      name: "web",
      parent: "urn:parent",
      custom: true,
      object: { size: 2, tags: { a: "b" } },
      protect: true,
      dependencies: ["urn:d1"],
      deleteBeforeReplace: false,
      propertyDependencies: { size: ["urn:d1", "urn:d2"] },
      aliases: ["urn:old1", "urn:old2"],
      deletedWith: "urn:vm",
      ignoreChanges: ["tags"],
      replaceOnChanges: ["size"],
      additionalSecretOutputs: ["token"],
      provider: "urn:prov::id",
      importId: "i-1",
      retainOnDelete: true,
      replacementTrigger: true,
    },
  ]);
  expect([res.getUrn(), res.getId(), res.getObject()?.toJavaScript(), res.getResult()]).toEqual(["urn:x", "id-1", { a: 1 }, resproto.Result.SUCCESS]);
});

test("defaults: deleteBeforeReplace not set is undefined, empty object, a failed result is FAIL", async () => {
  handler.answer = { urn: "urn:y", id: "", object: {}, failed: true };
  const res = await call<resproto.RegisterResourceRequest, resproto.RegisterResourceResponse>(monitor.registerResource.bind(monitor), new resproto.RegisterResourceRequest().setType("t").setName("n").setDeletebeforereplace(true));
  expect(handler.registered[0]).toMatchObject({ deleteBeforeReplace: undefined, object: {}, protect: false, retainOnDelete: false, replacementTrigger: false, propertyDependencies: {}, aliases: [] });
  expect(res.getResult()).toBe(resproto.Result.FAIL);
});

test("a structured alias spec is refused, as is a handler's error, with the message as the status detail", async () => {
  const req = new resproto.RegisterResourceRequest().setType("t").setName("web");
  req.addAliases(new aliasproto.Alias().setSpec(new aliasproto.Alias.Spec().setName("old")));
  await expect(call(monitor.registerResource.bind(monitor), req)).rejects.toMatchObject({
    code: grpc.status.UNKNOWN,
    details: "web: alias specs are not supported by the local engine; use alias URNs",
  });
  expect(handler.registered).toEqual([]);
  handler.fail = new Error("boom");
  await expect(call(monitor.registerResource.bind(monitor), new resproto.RegisterResourceRequest())).rejects.toMatchObject({ details: "boom" });
});

test("stack outputs reach the handler", async () => {
  await call(
    monitor.registerResourceOutputs.bind(monitor),
    new resproto.RegisterResourceOutputsRequest().setUrn("urn:stack").setOutputs(Struct.fromJavaScript({ url: "x" })),
  );
  await call(monitor.registerResourceOutputs.bind(monitor), new resproto.RegisterResourceOutputsRequest().setUrn("urn:other"));
  expect(handler.outputs).toEqual([
    ["urn:stack", { url: "x" }],
    ["urn:other", {}],
  ]);
});

test("invokes and the unsupported services say what is not supported", async () => {
  await expect(call(monitor.invoke.bind(monitor), new resproto.ResourceInvokeRequest().setTok("vmhost:index:getX"))).rejects.toMatchObject({
    code: grpc.status.UNKNOWN,
    details: "invoke of vmhost:index:getX is not supported by the local engine",
  });
  await expect(call(monitor.readResource.bind(monitor), new resproto.ReadResourceRequest())).rejects.toMatchObject({
    code: grpc.status.UNIMPLEMENTED,
    details: "Reading an existing resource (Resource.get / the `id` option) is not supported by the local engine",
  });
  await expect(call(monitor.call.bind(monitor), new resproto.ResourceCallRequest())).rejects.toMatchObject({
    code: grpc.status.UNIMPLEMENTED,
    details: "Call (methods of component resources) is not supported by the local engine",
  });
  const unsupported: Array<[Promise<unknown>, string]> = [
    [call(monitor.registerStackTransform.bind(monitor), new callbackproto.Callback()), "Stack transforms"],
    [call(monitor.registerStackInvokeTransform.bind(monitor), new callbackproto.Callback()), "Invoke transforms"],
    [call(monitor.registerResourceHook.bind(monitor), new resproto.RegisterResourceHookRequest()), "Resource hooks"],
    [call(monitor.registerErrorHook.bind(monitor), new resproto.RegisterErrorHookRequest()), "Error hooks"],
    [call(monitor.registerPackage.bind(monitor), new resproto.RegisterPackageRequest()), "Parameterized packages"],
  ];
  for (const [answer, what] of unsupported) {
    await expect(answer).rejects.toMatchObject({ code: grpc.status.UNIMPLEMENTED, details: `${what} is not supported by the local engine` });
  }
  await call(monitor.signalAndWaitForShutdown.bind(monitor), new Empty());
});

test("a registration larger than gRPC's 4 MB default (a big user-data script, many resources' inputs) is taken", async () => {
  const big = "x".repeat(6 * 1024 * 1024);
  const req = new resproto.RegisterResourceRequest().setType("vmhost:index:Instance").setName("big").setCustom(true);
  req.setObject(Struct.fromJavaScript({ userData: big }));
  await call(monitor.registerResource.bind(monitor), req);
  expect((handler.registered[0].object as { userData: string }).userData).toHaveLength(big.length);
});

test("engine log: severities mapped, the URN passed on; root resource remembered", async () => {
  const log = (s: number, m: string, urn = ""): Promise<Empty> =>
    call(engine.log.bind(engine), new engproto.LogRequest().setSeverity(s).setMessage(m).setUrn(urn));
  await log(engproto.LogSeverity.DEBUG, "d");
  await log(engproto.LogSeverity.INFO, "i", "urn:a");
  await log(engproto.LogSeverity.WARNING, "w");
  await log(engproto.LogSeverity.ERROR, "e");
  await log(99, "odd");
  expect(handler.logs).toEqual([
    ["debug", "d", ""],
    ["info", "i", "urn:a"],
    ["warning", "w", ""],
    ["error", "e", ""],
    ["info", "odd", ""],
  ]);
  expect((await call<engproto.GetRootResourceRequest, engproto.GetRootResourceResponse>(engine.getRootResource.bind(engine), new engproto.GetRootResourceRequest())).getUrn()).toBe("");
  await call(engine.setRootResource.bind(engine), new engproto.SetRootResourceRequest().setUrn("urn:stack"));
  expect((await call<engproto.GetRootResourceRequest, engproto.GetRootResourceResponse>(engine.getRootResource.bind(engine), new engproto.GetRootResourceRequest())).getUrn()).toBe("urn:stack");
  await call(engine.requirePulumiVersion.bind(engine), new engproto.RequirePulumiVersionRequest());
});
