/**
 * `make bench`: how fast the provider notices that an operation finished, and what it costs in requests.
 *
 * The simulator runs every operation for exactly `--op-seconds` (real time). For each operation kind the
 * bench drives the real Instance provider (check -> create / update / delete, as the dynamic-provider host
 * would) and reports the wall time, the detection latency (wall time minus the operation's own duration:
 * what polling adds) and the number of requests. Repeats show the effect of the learned per-kind durations.
 * Speed is measured here, never asserted in tests.
 *
 *   node dist/tools/bench/index.js [--op-seconds 3] [--rounds 3]
 */
import { startSimulator } from "../../simulator";
import { providers } from "../../provider";
import { setProgressSink } from "../../provider/context";

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

interface Row {
  operation: string;
  round: number;
  wallMs: number;
  latencyMs: number;
  requests: number;
  polls: number;
}

async function main(): Promise<void> {
  const opSeconds = flag("op-seconds", 3);
  const rounds = flag("rounds", 3);
  const sim = await startSimulator({ opSeconds });
  process.env.VMHOST_BASE_URL = sim.url;
  process.env.VMHOST_API_KEY = sim.apiKey;
  setProgressSink(() => {});
  const instance = providers.Instance!;
  const rows: Row[] = [];

  async function measure(operation: string, round: number, opMs: number, run: () => Promise<unknown>): Promise<void> {
    const before = sim.requests().length;
    const started = performance.now();
    await run();
    const wallMs = performance.now() - started;
    const requests = sim.requests().slice(before);
    rows.push({
      operation, round, wallMs, latencyMs: Math.max(0, wallMs - opMs), requests: requests.length,
      polls: requests.filter((r) => r.method === "GET").length,
    });
  }

  try {
    for (let round = 1; round <= rounds; round++) {
      const declared = {
        locationId: 1, tierId: 1, templateId: 2, hostname: `bench-${round}`, cpu: 1, memory: 1, storage: 20,
        username: "ops", password: "Bench-passw0rd",
      };
      const checked = await instance.check!({}, declared);
      if (checked.failures?.length) throw new Error(`bench inputs rejected: ${JSON.stringify(checked.failures)}`);
      const inputs = checked.inputs!;
      let id = "";
      let outs: Record<string, unknown> = {};
      await measure("create", round, opSeconds * 1000, async () => {
        const r = await instance.create(inputs);
        id = r.id;
        outs = r.outs;
      });
      const resized = (await instance.check!(inputs, { ...declared, cpu: 2, memory: 2 })).inputs!;
      await measure("resize", round, opSeconds * 1000, async () => {
        outs = (await instance.update!(id, outs, resized)).outs ?? outs;
      });
      const renamed = (await instance.check!(resized, { ...declared, cpu: 2, memory: 2, hostname: `bench-${round}b` })).inputs!;
      await measure("rename (immediate)", round, 0, () => instance.update!(id, outs, renamed));
      await measure("delete", round, opSeconds * 1000, () => instance.delete!(id, outs));
    }
  } finally {
    await sim.close();
  }

  const fmt = (ms: number) => `${(ms / 1000).toFixed(2)}s`;
  console.log(`operation duration in the simulator: ${opSeconds}s; ${rounds} rounds\n`);
  console.log("operation            round   wall    detection latency   requests (GET polls)");
  for (const r of rows) {
    console.log(
      `${r.operation.padEnd(20)} ${String(r.round).padStart(5)}   ${fmt(r.wallMs).padStart(6)}   ${fmt(r.latencyMs).padStart(17)}   ${String(r.requests).padStart(8)} (${r.polls})`,
    );
  }
  const byOp = new Map<string, Row[]>();
  for (const r of rows) byOp.set(r.operation, [...(byOp.get(r.operation) ?? []), r]);
  console.log("\nmean detection latency per operation:");
  for (const [op, rs] of byOp) console.log(`  ${op.padEnd(20)} ${fmt(rs.reduce((a, r) => a + r.latencyMs, 0) / rs.length)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
