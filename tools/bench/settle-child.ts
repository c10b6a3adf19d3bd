/**
 * One settle measurement in its own (fresh) process, started by `make bench` (tools/bench/index.ts):
 *
 *   node dist/tools/bench/settle-child.js --op-seconds 10 --poller ours|1|5 --kinds create,resize,... [--cache-dir DIR] [--port N]
 *
 * Runs the operations one after another on one VM against its own simulator, whose operations take exactly
 * `--op-seconds`. `ours` drives the real Instance provider (as the dynamic-provider host does); `1` and `5` are
 * the reference: a naive poller reading the detail every 1 s or 5 s. For each operation it prints one JSON line:
 * how late the end was noticed (the provider's return minus the operation's end: its request's arrival plus its
 * duration) and how many status requests (list ticks and detail reads) that took. A fixed `--port` keeps the
 * base URL, hence the host's durations file, the same from one run to the next, as a real host's is.
 */
import { createClient, type InstanceDetail, type VmHostClient } from "../../provider/api";
import { setProgressSink } from "../../provider/context";
import { providers } from "../../provider/registry";
import { startSimulator } from "../../simulator";

/** One measured operation (printed as a JSON line). */
export interface SettleSample {
  kind: string;
  poller: string;
  opSeconds: number;
  /** The end was noticed this long after it happened. */
  latencyMs: number;
  /** Status reads (list without search, instance detail) from the operation's request to the return. */
  statusRequests: number;
  /** Every request of the provider call. */
  requests: number;
}

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const OPERATION_OF: Record<string, string> = {
  create: "createInstance", resize: "resizeInstance", tier: "changeTier", stop: "stopInstance", start: "startInstance", delete: "deleteInstance",
};

async function main(): Promise<void> {
  const opSeconds = Number(flag("op-seconds") ?? 2);
  const poller = flag("poller") ?? "ours";
  const kinds = (flag("kinds") ?? "create,resize,tier,stop,start,delete").split(",");
  process.env.VMHOST_CACHE_DIR = flag("cache-dir") ?? "off";
  const sim = await startSimulator({ opSeconds, port: Number(flag("port") ?? 0) });
  process.env.VMHOST_BASE_URL = sim.url;
  process.env.VMHOST_API_KEY = sim.apiKey;
  setProgressSink(() => {});
  const isStatus = (r: { operation: string | null; query: string }) =>
    r.operation === "getInstance" || (r.operation === "listInstances" && !r.query.includes("search="));

  async function measure(kind: string, run: () => Promise<unknown>): Promise<void> {
    const before = sim.requests().length;
    await run();
    const returned = Date.now();
    const log = sim.requests().slice(before);
    const opIndex = log.findIndex((r) => r.operation === OPERATION_OF[kind]);
    if (opIndex < 0) throw new Error(`${kind}: no ${OPERATION_OF[kind]} request seen`);
    const endsAt = Date.parse(log[opIndex]!.time) + opSeconds * 1000;
    const sample: SettleSample = {
      kind, poller, opSeconds, latencyMs: returned - endsAt,
      statusRequests: log.slice(opIndex).filter(isStatus).length, requests: log.length,
    };
    process.stdout.write(`${JSON.stringify(sample)}\n`);
  }

  try {
    if (poller === "ours") await runOurs(kinds, measure);
    else await runFixed(createClient({ baseUrl: sim.url, apiKey: sim.apiKey, logger: false }), Number(poller) * 1000, kinds, measure);
  } finally {
    await sim.close();
  }
}

type Measure = (kind: string, run: () => Promise<unknown>) => Promise<void>;

/** The real provider: create, then one update per kind, then delete. */
async function runOurs(kinds: string[], measure: Measure): Promise<void> {
  const instance = providers.Instance;
  let declared: Record<string, unknown> = {
    locationId: 1, tierId: 1, templateId: 2, hostname: "settle-1", cpu: 1, memory: 1, storage: 20, username: "ops", password: "Bench-passw0rd",
  };
  const checked = await instance.check!({}, declared);
  if (checked.failures?.length) throw new Error(`bench inputs rejected: ${JSON.stringify(checked.failures)}`);
  let inputs = checked.inputs!;
  let id = "";
  let outs: Record<string, unknown> = {};
  const change: Record<string, Record<string, unknown>> = {
    resize: { cpu: 2, memory: 2 }, tier: { tierId: 2 }, stop: { powerState: "stopped" }, start: { powerState: "running" },
  };
  for (const kind of kinds) {
    if (kind === "create") {
      await measure(kind, async () => ({ id, outs } = await instance.create(inputs)));
    } else if (kind === "delete") {
      await measure(kind, () => instance.delete!(id, outs));
    } else {
      declared = { ...declared, ...change[kind] };
      const next = (await instance.check!(inputs, declared)).inputs!;
      await measure(kind, async () => (outs = (await instance.update!(id, outs, next)).outs ?? outs));
      inputs = next;
    }
  }
}

/** A naive reference poller: send, then read the detail every `intervalMs` until the operation shows done. */
async function runFixed(client: VmHostClient, intervalMs: number, kinds: string[], measure: Measure): Promise<void> {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  let id = "";
  async function until(done: (d: InstanceDetail | undefined) => boolean): Promise<void> {
    for (const deadline = Date.now() + 600_000; Date.now() < deadline; ) {
      await sleep(intervalMs);
      if (done(await client.instances.find(id))) return;
    }
    throw new Error(`fixed poller: ${id} did not settle within 10 minutes`);
  }
  const idle = (d: InstanceDetail | undefined) => d !== undefined && d.operation_flag === 0;
  for (const kind of kinds) {
    await measure(kind, async () => {
      if (kind === "create") {
        id = (await client.instances.create({
          locationId: 1, tierId: 1, templateId: 2, hostname: "settle-1", cpu: 1, memory: 1, storage: 20,
          username: "ops", password: "Bench-passw0rd", usePublicIp: false,
        })).uuid;
        await until(idle);
      } else if (kind === "resize") {
        await client.instances.resize(id, { cpu: 2, memory: 2, storage: 20 });
        await until((d) => idle(d) && d!.cpu === 2);
      } else if (kind === "tier") {
        await client.instances.changeTier(id, { tierId: 2 });
        await until((d) => idle(d) && d!.tier_id === 2);
      } else if (kind === "stop") {
        await client.instances.stop(id);
        await until((d) => idle(d) && /stopped/i.test(d!.status));
      } else if (kind === "start") {
        await client.instances.start(id);
        await until((d) => idle(d) && /running/i.test(d!.status));
      } else if (kind === "delete") {
        await client.instances.delete(id, { removeIp: true, removeBlockStorage: false });
        await until((d) => d === undefined);
      }
    });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
