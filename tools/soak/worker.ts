/**
 * The soak's provider process: a stand-in for `@pulumi/pulumi/cmd/dynamic-provider` (the host the Pulumi CLI
 * starts for dynamic providers), talking IPC instead of gRPC. It runs the BUILT provider (dist/provider)
 * with the host's exact property handling (node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js):
 *
 * - `check`: inputs = the provider's checked inputs (or the news), then `inputs.__provider = news.__provider`;
 * - `create`/`update`: outputs = result.outs plus `__provider` of the inputs (`resultIncludingProvider`);
 *   a thrown error with an `id` becomes an initialization failure carrying exactly `e.properties`
 *   (`grpcResponseFromError`: nothing added, in particular no `__provider`);
 * - `read`: id and props of the result plus `__provider` of the props it was given; `inputs` likewise;
 * - every call loads the provider from `props.__provider` (`getProvider`): a bag without it fails with the
 *   same error as the real host ("code must be a string, not undefined"), so a state that lost it shows.
 *
 * Being a separate process is the point: an interrupted `up` is modelled by killing it, so the abandoned
 * provider call stops like it does when the CLI is cancelled (nothing keeps polling or re-sending behind).
 *
 *   node dist/tools/soak/worker.js <time warp factor>
 */
import { installTimeWarp } from "./warp";
import { PROVIDER_MARK, type CallFailure, type FromWorker, type ProviderCall, type Props, type ToWorker } from "./protocol";

installTimeWarp(Number(process.argv[2] ?? "1"));

// Loaded after the warp so every timer the provider and undici create runs on the warped clock.
/* eslint-disable @typescript-eslint/no-require-imports */
const { forgetDeployment, providers } = require("../../provider/registry") as typeof import("../../provider/registry");
const { configure, setProgressSink } = require("../../provider/context") as typeof import("../../provider/context");
/* eslint-enable @typescript-eslint/no-require-imports */

setProgressSink(() => {});

type Provider = Required<import("@pulumi/pulumi").dynamic.ResourceProvider>;

/** `getProvider` of the real host: the provider comes from the bag's `__provider`, or the call fails. */
function providerFor(call: ProviderCall, props: Props): Provider {
  const code = props.__provider;
  if (typeof code !== "string") throw new TypeError(`code must be a string, not ${code === undefined ? "undefined" : typeof code}`);
  if (code !== PROVIDER_MARK) throw new Error(`unexpected __provider ${JSON.stringify(code).slice(0, 60)}`);
  return providers[call.resource] as Provider;
}

const withProvider = (result: Props | undefined, props: Props): Props => ({ ...(result ?? {}), __provider: props.__provider });

async function handle(call: ProviderCall): Promise<unknown> {
  switch (call.method) {
    case "check": {
      const provider = providerFor(call, call.news);
      const result = await provider.check(call.olds, call.news);
      const inputs: Props = { ...((result.inputs as Props | undefined) ?? call.news) };
      inputs.__provider = call.news.__provider;
      return { inputs, failures: result.failures ?? [] };
    }
    case "diff": {
      const provider = providerFor(call, call.news);
      const result = await provider.diff(call.id, call.olds, call.news);
      return { changes: result.changes, replaces: result.replaces ?? [], deleteBeforeReplace: result.deleteBeforeReplace ?? false };
    }
    case "create": {
      const provider = providerFor(call, call.properties);
      const result = await provider.create(call.properties);
      return { id: result.id, properties: withProvider(result.outs as Props, call.properties) };
    }
    case "read": {
      const provider = providerFor(call, call.properties);
      const result = await provider.read(call.id, call.properties);
      return {
        id: result.id ?? "",
        properties: withProvider(result.props as Props, call.properties),
        ...(result.inputs ? { inputs: withProvider(result.inputs as Props, call.properties) } : {}),
      };
    }
    case "update": {
      const provider = providerFor(call, call.news);
      const result = (await provider.update(call.id, call.olds, call.news)) ?? {};
      return { properties: withProvider(result.outs as Props, call.news) };
    }
    case "delete": {
      const provider = providerFor(call, call.properties);
      await provider.delete(call.id, call.properties);
      return {};
    }
  }
}

/** `grpcResponseFromError` of the real host: an error with a (truthy) id is an initialization failure. */
function failureOf(e: unknown): CallFailure {
  const err = (e ?? {}) as { message?: unknown; id?: unknown; properties?: unknown; reasons?: unknown };
  const message = typeof err.message === "string" ? err.message : String(e);
  if (err.id) {
    return {
      message,
      initFailure: {
        id: String(err.id),
        properties: JSON.parse(JSON.stringify(err.properties ?? {})) as Props,
        reasons: Array.isArray(err.reasons) ? err.reasons.map(String) : [],
      },
    };
  }
  return { message };
}

const send = (m: FromWorker): void => {
  process.send?.(m);
};

process.on("message", (raw: ToWorker) => {
  if (raw.kind === "newDeployment") {
    forgetDeployment();
    send({ seq: raw.seq, ok: true, value: null });
    return;
  }
  if (raw.kind === "configure") {
    const config = raw.config;
    void configure({ config: { get: (k: string) => config[k] } }).then(() => send({ seq: raw.seq, ok: true, value: null }));
    return;
  }
  handle(raw.call).then(
    (value) => send({ seq: raw.seq, ok: true, value: JSON.parse(JSON.stringify(value ?? null)) as unknown }),
    (e: unknown) => send({ seq: raw.seq, ok: false, failure: failureOf(e) }),
  );
});
process.on("disconnect", () => process.exit(0));
send({ seq: 0, kind: "ready" });
