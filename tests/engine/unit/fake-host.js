// A fake dynamic-provider host for tests/engine/unit/provider-host.test.ts: it speaks the ResourceProvider gRPC
// protocol the way @pulumi/pulumi's cmd/dynamic-provider does (the engine address as its argument, its port as
// the first stdout line, errors as gRPC UNKNOWN with an ErrorResourceInitFailed detail in
// `grpc-status-details-bin` when the error carries an id: grpcResponseFromError in
// @pulumi/pulumi/cmd/dynamic-provider/index.js), but answers from a script the test gives instead of running a
// serialized provider. It loads only @grpc/grpc-js and the generated protocol code (about 0.1 s), not the
// language runtime (about a second), so each test can start its own host.
//
// Plain JavaScript on purpose: ProviderHost runs `node <script>`, with no TypeScript loader.
//
// FAKE_HOST_SCRIPT (JSON):
//   beforePort: { stdout?: string[], stderr?: string[], exitCode?: number }  lines printed before the port; with
//               exitCode, the host exits with it and never prints a port
//   portLine:   the port line's text, "{port}" replaced by the port (default "{port}")
//   afterPort:  { stdout?: string[], stderr?: string[] }  lines printed right after the port
//   answers:    { <method>: Answer[], "<method> <resource name>": Answer[] }  each call takes the next answer of
//               its resource's list, else of its method's; none left: the fake echoes
//               as a plain provider would (check: the news as inputs, diff: no decision, create: id "<name>-id"
//               and the inputs as outputs, read: the id and state as they are, update: the news as outputs)
// Answer: { response?: object, error?: { message, initFailed?: { id, properties?, reasons? }, otherDetail?: true },
//           stdout?: string[], stderr?: string[], exitCode?: number }  (lines printed before answering;
//           exitCode: exit instead of answering)
// FAKE_HOST_LOG: a file that gets one JSON line per event: { event: "start", pid, argv, cwd, marker, env } (marker:
// the FAKE_HOST_MARKER environment variable, env: the PULUMI_* ones), { event: "call", method, request }, { event: "signal", signal }.
"use strict";
const fs = require("node:fs");
const grpc = require("@grpc/grpc-js");
const anyproto = require("google-protobuf/google/protobuf/any_pb");
const emptyproto = require("google-protobuf/google/protobuf/empty_pb");
const structproto = require("google-protobuf/google/protobuf/struct_pb");
const provrpc = require("@pulumi/pulumi/proto/provider_grpc_pb");
const provproto = require("@pulumi/pulumi/proto/provider_pb");
const statusproto = require("@pulumi/pulumi/proto/status_pb");

const script = JSON.parse(process.env.FAKE_HOST_SCRIPT || "{}");
const logFile = process.env.FAKE_HOST_LOG;

function log(event) {
  if (logFile) fs.appendFileSync(logFile, JSON.stringify(event) + "\n");
}

function print(lines) {
  for (const l of (lines && lines.stdout) || []) process.stdout.write(l + "\n");
  for (const l of (lines && lines.stderr) || []) process.stderr.write(l + "\n");
}

const js = (s) => (s ? s.toJavaScript() : undefined);
const struct = (o) => structproto.Struct.fromJavaScript(o);

/** What each request held, as plain values, for the test to compare with what it asked for. */
const requestOf = {
  configure: (r) => ({
    args: js(r.getArgs()),
    variables: Object.fromEntries(r.getVariablesMap().toArray()),
    acceptSecrets: r.getAcceptsecrets(),
    acceptResources: r.getAcceptresources(),
  }),
  check: (r) => ({ urn: r.getUrn(), olds: js(r.getOlds()), news: js(r.getNews()) }),
  diff: (r) => ({ urn: r.getUrn(), id: r.getId(), olds: js(r.getOlds()), news: js(r.getNews()), oldInputs: js(r.getOldInputs()) }),
  create: (r) => ({ urn: r.getUrn(), properties: js(r.getProperties()) }),
  read: (r) => ({ urn: r.getUrn(), id: r.getId(), properties: js(r.getProperties()), inputs: js(r.getInputs()) }),
  update: (r) => ({ urn: r.getUrn(), id: r.getId(), olds: js(r.getOlds()), news: js(r.getNews()), oldInputs: js(r.getOldInputs()) }),
  delete: (r) => ({ urn: r.getUrn(), id: r.getId(), properties: js(r.getProperties()), oldInputs: js(r.getOldInputs()) }),
};

/** The protocol response for a scripted answer's `response`. */
const responseOf = {
  configure: () => new provproto.ConfigureResponse(),
  check: (a) => {
    const res = new provproto.CheckResponse();
    if (a.inputs) res.setInputs(struct(a.inputs));
    res.setFailuresList(
      (a.failures || []).map((f) => {
        const failure = new provproto.CheckFailure();
        failure.setProperty(f.property);
        failure.setReason(f.reason);
        return failure;
      }),
    );
    return res;
  },
  diff: (a) => {
    const res = new provproto.DiffResponse();
    res.setChanges(provproto.DiffResponse.DiffChanges[a.changes || "DIFF_UNKNOWN"]);
    res.setReplacesList(a.replaces || []);
    res.setDeletebeforereplace(Boolean(a.deleteBeforeReplace));
    return res;
  },
  create: (a) => {
    const res = new provproto.CreateResponse();
    res.setId(a.id || "");
    if (a.properties) res.setProperties(struct(a.properties));
    return res;
  },
  read: (a) => {
    const res = new provproto.ReadResponse();
    res.setId(a.id || "");
    if (a.properties) res.setProperties(struct(a.properties));
    if (a.inputs) res.setInputs(struct(a.inputs));
    return res;
  },
  update: (a) => {
    const res = new provproto.UpdateResponse();
    if (a.properties) res.setProperties(struct(a.properties));
    return res;
  },
  delete: () => new emptyproto.Empty(),
};

/** The answer of a plain provider that accepts everything, for calls the script does not answer. */
const echo = {
  configure: () => ({}),
  check: (r) => ({ inputs: js(r.getNews()) }),
  diff: () => ({ changes: "DIFF_UNKNOWN" }),
  create: (r) => ({ id: `${r.getUrn().split("::").pop()}-id`, properties: js(r.getProperties()) }),
  read: (r) => ({ id: r.getId(), properties: js(r.getProperties()), inputs: js(r.getInputs()) }),
  update: (r) => ({ properties: js(r.getNews()) }),
  delete: () => ({}),
};

/** A failed call as the real host sends it (grpcResponseFromError), optionally with an unrelated detail first. */
function errorOf(e) {
  const metadata = new grpc.Metadata();
  if (e.initFailed || e.otherDetail) {
    const status = new statusproto.Status();
    status.setCode(grpc.status.UNKNOWN);
    status.setMessage(e.message);
    if (e.otherDetail) {
      const other = new anyproto.Any();
      other.pack(new provproto.CheckFailure().serializeBinary(), "pulumirpc.CheckFailure");
      status.addDetails(other);
    }
    if (e.initFailed) {
      const detail = new provproto.ErrorResourceInitFailed();
      detail.setId(e.initFailed.id);
      detail.setProperties(struct(e.initFailed.properties || {}));
      detail.setReasonsList(e.initFailed.reasons || []);
      const packed = new anyproto.Any();
      packed.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
      status.addDetails(packed);
    }
    metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  }
  return { code: grpc.status.UNKNOWN, message: e.message, metadata };
}

const taken = {};
const service = {};
for (const method of Object.keys(requestOf)) {
  service[method] = (call, callback) => {
    log({ event: "call", method, request: requestOf[method](call.request) });
    // "<method> <resource name>" answers that resource's calls (resources are called in parallel, in no set
    // order); "<method>" answers the others.
    const urn = call.request.getUrn ? call.request.getUrn() : "";
    const named = `${method} ${urn.split("::").pop()}`;
    const key = script.answers && script.answers[named] ? named : method;
    const answers = (script.answers && script.answers[key]) || [];
    const answer = answers[taken[key] || 0] || { response: echo[method](call.request) };
    taken[key] = (taken[key] || 0) + 1;
    print(answer);
    if (answer.exitCode !== undefined) process.exit(answer.exitCode);
    if (answer.error) callback(errorOf(answer.error));
    else callback(null, responseOf[method](answer.response || {}));
  };
}

for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    log({ event: "signal", signal });
    process.exit(0);
  });
}

const env = {};
for (const k of Object.keys(process.env).sort()) if (k.startsWith("PULUMI_")) env[k] = process.env[k];
log({ event: "start", pid: process.pid, argv: process.argv.slice(2), cwd: process.cwd(), marker: process.env.FAKE_HOST_MARKER, env });
print(script.beforePort);
if (script.beforePort && script.beforePort.exitCode !== undefined) {
  process.exit(script.beforePort.exitCode);
} else {
  const server = new grpc.Server();
  server.addService(provrpc.ResourceProviderService, service);
  server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) throw err;
    process.stdout.write((script.portLine || "{port}").replace("{port}", String(port)) + "\n");
    print(script.afterPort);
  });
}
