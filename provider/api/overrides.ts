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
const overrideSchema = z.union([
  z.string().transform((text, ctx) => {
    const m = /^\s*([A-Za-z]+)\s+(\S+)\s*$/.exec(text);
    const method = m ? methodSchema.safeParse(m[1]!.toUpperCase()) : undefined;
    if (!m || !method?.success) {
      ctx.addIssue({ code: "custom", message: `expected "METHOD /path", e.g. "PATCH /network/ip/{ip_uuid}/rdns", got ${JSON.stringify(text)}` });
      return z.NEVER;
    }
    return { method: method.data, path: m[2]! };
  }),
  z.object({ method: z.string().transform((m) => m.toUpperCase()).pipe(methodSchema), path: z.string() }),
]);

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
    const parsed = overrideSchema.safeParse(raw);
    if (!parsed.success) {
      throw new RouteOverrideError(`route override for ${id}: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
    }
    const { method, path } = parsed.data;
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
