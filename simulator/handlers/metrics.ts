/**
 * Monitoring (RRD) series. Values are deterministic functions of the seed, the instance and the bucket
 * time, zero before the instance existed, and the last bucket is the one in progress (all zero), as on
 * the real service.
 */
import type { Handler } from "../handler";
import { ok, queryInput } from "../handler";
import { findInstance } from "../model";
import { stableFraction } from "../ids";
import { Validator } from "../validation";
import { humanBytes, humanGb, round2, ymdHm } from "../wire";

/** Points and bucket width (seconds) per `periode`. */
export const RRD_PERIODS = {
  hour: { points: 60, step: 60 },
  day: { points: 72, step: 1200 },
  week: { points: 84, step: 7200 },
  month: { points: 60, step: 43200 },
  year: { points: 52, step: 604800 },
} as const;

type Periode = keyof typeof RRD_PERIODS;

const getInstanceMetrics: Handler = (ctx, req) => {
  const inst = findInstance(ctx.state, req.params["instance_uuid"]!);
  const v = new Validator(queryInput(req.query));
  const periode = v.oneOf("periode", Object.keys(RRD_PERIODS) as Periode[], { required: true });
  v.check();
  const { points, step } = RRD_PERIODS[periode!];
  const stepMs = step * 1000;
  const last = Math.floor(ctx.now / stepMs) * stepMs;
  const cpu: unknown[] = [];
  const memory: unknown[] = [];
  const network: unknown[] = [];
  const disk: unknown[] = [];
  for (let i = points - 1; i >= 0; i--) {
    const t = last - i * stepMs;
    const time = ymdHm(t, ctx.wire?.textTimeZone);
    const live = i > 0 && t + stepMs > inst.createdAt;
    const f = (what: string): number => (live ? stableFraction(ctx.state.seed, `${inst.uuid}/${periode}/${t}/${what}`) : 0);
    const usedGb = live ? round2(inst.memoryGb * (0.25 + 0.5 * f("mem"))) : 0;
    const netin = Math.round(f("in") * 5_000_000);
    const netout = Math.round(f("out") * 2_000_000);
    const diskwrite = Math.round(f("write") * 8_000_000);
    const diskread = Math.round(f("read") * 4_000_000);
    cpu.push({ time, cpu: live ? round2(2 + 60 * f("cpu")) : 0 });
    memory.push({
      time, raw_max_memory: live ? inst.memoryGb : 0, max_memory: humanGb(live ? inst.memoryGb : 0),
      raw_usage_memory: usedGb, usage_memory: humanGb(usedGb),
    });
    network.push({ time, raw_netin: netin, netin: humanBytes(netin), raw_netout: netout, netout: humanBytes(netout) });
    disk.push({ time, raw_diskwrite: diskwrite, diskwrite: humanBytes(diskwrite), raw_diskread: diskread, diskread: humanBytes(diskread) });
  }
  return ok("Success", { cpu, memory, network, disk });
};

/** Handlers of the monitoring route, by operation id. */
export const metricsHandlers = { getInstanceMetrics } satisfies Record<string, Handler>;
