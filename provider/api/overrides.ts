/**
 * Route overrides: a user whose host serves an operation elsewhere fixes it by configuration, without a
 * release (`vmhost:routes` = `{"updateRdns": "PATCH /network/ip/{ip_uuid}/rdns"}` or
 * `createClient({ routes })`). Overrides are validated so a typo fails at configuration time, not on the
 * first call of that operation.
 */
import { z } from "zod";
import { pathParameterNames, routes, type HttpMethod, type OperationId, type RouteDefinition } from "./routes";

/** An override: `"METHOD /path/{param}"` or `{ method, path }`. */
export type RouteOverride = string | { method: HttpMethod; path: string };

/** Overrides keyed by operation id. */
export type RouteOverrides = Partial<Record<OperationId, RouteOverride>>;

/** The routes table a client actually uses. */
export type EffectiveRoutes = { readonly [K in OperationId]: RouteDefinition };

const methodSchema = z.enum(["GET", "POST", "PATCH", "PUT", "DELETE"]);
const objectOverrideSchema = z.object({
  method: z.string().transform((m) => m.toUpperCase()).pipe(methodSchema),
  path: z.string(),
});

/** Parses one override; returns an error text instead of throwing so the caller can name the operation. */
function parseOverride(raw: unknown): { method: HttpMethod; path: string } | string {
  if (typeof raw === "string") {
    const m = /^\s*([A-Za-z]+)\s+(\S+)\s*$/.exec(raw);
    const method = m ? methodSchema.safeParse(m[1]!.toUpperCase()) : undefined;
    if (!m || !method?.success) {
      return `expected "METHOD /path", e.g. "PATCH /network/ip/{ip_uuid}/rdns", got ${JSON.stringify(raw)}`;
    }
    return { method: method.data, path: m[2]! };
  }
  const parsed = objectOverrideSchema.safeParse(raw);
  if (!parsed.success) return `expected "METHOD /path" or {method, path}, got ${JSON.stringify(raw)}`;
  return parsed.data;
}

/** An invalid route override (unknown operation, bad method, or path parameters that differ). */
export class RouteOverrideError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RouteOverrideError";
  }
}

/**
 * Validates overrides and returns the effective table. An override replaces only method and path; the
 * retry class, area and confidence of the operation are kept. The path must start with `/` and use exactly
 * the placeholders of the default route, because callers fill those.
 */
export function applyRouteOverrides(overrides: Readonly<Record<string, unknown>> | undefined): EffectiveRoutes {
  const table: Record<string, RouteDefinition> = { ...routes };
  if (!overrides) return table as EffectiveRoutes;
  for (const [id, raw] of Object.entries(overrides)) {
    if (!(id in routes)) {
      throw new RouteOverrideError(`route override for unknown operation "${id}"; known operations: ${Object.keys(routes).join(", ")}`);
    }
    const parsed = parseOverride(raw);
    if (typeof parsed === "string") throw new RouteOverrideError(`route override for ${id}: ${parsed}`);
    const { method, path } = parsed;
    if (!path.startsWith("/")) throw new RouteOverrideError(`route override for ${id}: path must start with "/" (relative to the base URL), got ${JSON.stringify(path)}`);
    const base = routes[id as OperationId];
    const expected = [...pathParameterNames(base.path)].sort().join(",");
    const actual = [...pathParameterNames(path)].sort().join(",");
    if (expected !== actual) {
      throw new RouteOverrideError(
        `route override for ${id}: path parameters must be {${pathParameterNames(base.path).join("}, {")}} like ${base.path}, got ${JSON.stringify(path)}`,
      );
    }
    table[id] = { ...base, method, path };
  }
  return table as EffectiveRoutes;
}
