/** Catalogue routes: size templates, locations, tiers, OS templates. */
import type { Handler } from "../handler";
import { ok } from "../handler";
import { isoMicros } from "../wire";

const listSizeTemplates: Handler = (ctx) =>
  ok("Success", ctx.state.sizeTemplates.map((t) => ({
    id: t.id, title: t.title, total_cpu: t.cpu, total_ram: t.ramGb, total_disk: t.diskGb,
    created_at: isoMicros(t.createdAt), updated_at: isoMicros(t.updatedAt),
  })));

const listLocations: Handler = (ctx) =>
  ok("Success", ctx.state.locations.map((l) => ({ id: l.id, name: l.name, code: l.code, country: l.country, flag: l.flag })));

const listTiers: Handler = (ctx) =>
  ok("Success", ctx.state.tiers.map((t) => ({
    id: t.id, name: t.name, description: t.description, icon: t.icon,
    is_dedicated_cpu_available: t.dedicatedCpuAvailable,
    price: {
      cpu_per_hour: t.cpuPerHour, dedicated_cpu_per_hour: t.dedicatedCpuPerHour, memory_per_gb_hour: t.memoryPerGbHour,
      storage_per_gb_hour: t.storagePerGbHour, snapshot_per_gb_hour: t.snapshotPerGbHour, backup_per_gb_hour: t.backupPerGbHour,
    },
  })));

const listSystems: Handler = (ctx) =>
  ok("Success", ctx.state.templates.map((t) => ({
    id: t.id, template_id: t.id, os_id: t.osId, name: t.name, version: t.version, image: t.image,
    min_cpu: t.minCpu, min_memory: t.minMemory, min_storage: t.minStorage,
  })));

/** Handlers of the catalogue routes, by operation id. */
export const catalogHandlers = { listSizeTemplates, listLocations, listTiers, listSystems } satisfies Record<string, Handler>;
