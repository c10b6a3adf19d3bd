// A fake Pulumi program run for tests/engine/unit/run-engine.test.ts: it stands where runEngine spawns the
// language runtime (`@pulumi/pulumi/cmd/run/index.js --monitor=<addr> ... <main>`) and does what a program run
// does through the engine's ResourceMonitor and Engine services, as @pulumi/pulumi's runtime does it (the stack
// registered first as pulumi:pulumi:Stack `<project>-<stack>`, each resource under it, then the stack's
// outputs), but from a script instead of a program, loading only gRPC (about 0.1 s, not the runtime's second).
//
// Plain JavaScript on purpose: runEngine runs `node <script>`, with no TypeScript loader.
//
// FAKE_PROGRAM_SCRIPT (JSON):
//   resources: [{ name, type?, object?, custom? }]  registered in order under the stack (type default
//              pulumi-nodejs:dynamic:Resource, custom default true); each answer is logged
//   outputs:   the stack's outputs
//   logs:      [{ severity: "info" | "warning" | "error", message }]  sent to the Engine service's Log
//   stdout, stderr: lines printed first
//   exitCode:  the exit code (default 0)
//   hang:      true: after registering, wait until killed (for cancellation and killChildren)
// FAKE_PROGRAM_LOG: a file that gets one JSON line per event: { event: "start", pid, argv, cwd, env } (env: the
// PULUMI_* variables and FAKE_MARKER), { event: "registered", name, urn, id, object, result }.
"use strict";
const fs = require("node:fs");
const grpc = require("@grpc/grpc-js");
const structproto = require("google-protobuf/google/protobuf/struct_pb");
const engrpc = require("@pulumi/pulumi/proto/engine_grpc_pb");
const engproto = require("@pulumi/pulumi/proto/engine_pb");
const resrpc = require("@pulumi/pulumi/proto/resource_grpc_pb");
const resproto = require("@pulumi/pulumi/proto/resource_pb");

const script = JSON.parse(process.env.FAKE_PROGRAM_SCRIPT || "{}");
const logFile = process.env.FAKE_PROGRAM_LOG;

function log(event) {
  if (logFile) fs.appendFileSync(logFile, JSON.stringify(event) + "\n");
}

const args = process.argv.slice(2);
const flag = (name) => (args.find((a) => a.startsWith(`--${name}=`)) || "").slice(name.length + 3);
const env = {};
for (const k of Object.keys(process.env).sort()) if (k.startsWith("PULUMI_") || k === "FAKE_MARKER") env[k] = process.env[k];
log({ event: "start", pid: process.pid, argv: args, cwd: process.cwd(), env });
for (const l of script.stdout || []) process.stdout.write(l + "\n");
for (const l of script.stderr || []) process.stderr.write(l + "\n");

const monitor = new resrpc.ResourceMonitorClient(flag("monitor"), grpc.credentials.createInsecure());
const engine = new engrpc.EngineClient(flag("engine"), grpc.credentials.createInsecure());
const unary = (client, method, req) => new Promise((resolve, reject) => client[method](req, (err, res) => (err ? reject(err) : resolve(res))));

async function register(type, name, parent, custom, object) {
  const req = new resproto.RegisterResourceRequest();
  req.setType(type);
  req.setName(name);
  req.setParent(parent);
  req.setCustom(custom);
  req.setObject(structproto.Struct.fromJavaScript(object));
  const res = await unary(monitor, "registerResource", req);
  return { urn: res.getUrn(), id: res.getId(), object: res.getObject() ? res.getObject().toJavaScript() : {}, result: res.getResult() };
}

async function main() {
  const stack = await register("pulumi:pulumi:Stack", `${flag("project")}-${flag("stack")}`, "", false, {});
  for (const r of script.resources || []) {
    const object = { __provider: "serialized", ...(r.object || {}) };
    const res = await register(r.type || "pulumi-nodejs:dynamic:Resource", r.name, stack.urn, r.custom !== false, object);
    log({ event: "registered", name: r.name, ...res });
  }
  for (const l of script.logs || []) {
    const req = new engproto.LogRequest();
    req.setSeverity(engproto.LogSeverity[l.severity.toUpperCase()]);
    req.setMessage(l.message);
    await unary(engine, "log", req);
  }
  const out = new resproto.RegisterResourceOutputsRequest();
  out.setUrn(stack.urn);
  out.setOutputs(structproto.Struct.fromJavaScript(script.outputs || {}));
  await unary(monitor, "registerResourceOutputs", out);
  if (script.hang) setInterval(() => undefined, 1 << 30);
  else process.exit(script.exitCode || 0);
}

main().catch((e) => {
  process.stderr.write(`fake program: ${e.message}\n`);
  process.exit(1);
});
