/**
 * Generates `schema.json`, the Pulumi package schema of pulumi-vmhost, from the zod schemas the provider
 * itself validates with, so the published schema cannot drift from the code:
 * - resources: every `provider/resources/<folder>/inputs.ts` exporting `inputsSchema` and `outputsSchema`
 *   (zod objects; `.describe()` texts become descriptions) and optionally `secretOutputNames`;
 *   the resource name is the folder name in PascalCase (`firewall-rule` -> `FirewallRule`);
 * - functions: `functionSchemas` of `sdk/nodejs/functions/registry.ts` (argument and result zod schemas).
 *
 * Run: `node dist/tools/schema/generate.js [out=schema.json]` (`make docs` does it). tests/schema.test.ts
 * regenerates in memory and compares with the committed file.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";

/** The schemas of one resource, as its `inputs.ts` exports them. */
export interface ResourceSchemas {
  /** Resource (class) name, e.g. `FirewallRule`. */
  name: string;
  inputsSchema: z.ZodType;
  outputsSchema: z.ZodType;
  secretOutputNames: readonly string[];
  /** Example, adoption and extra sections of the reference page (`resourceDocs` of inputs.ts). */
  docs?: { example: string; adoption: string; sections?: string };
}

/**
 * The resource description in schema.json: the zod description, then an "Example Usage" section (as Pulumi
 * providers' schemas carry them), any extra sections, and "Import" (adoption: `pulumi import` does not work
 * for dynamic resources).
 */
export function resourceDescription(base: string, docs: ResourceSchemas["docs"]): string {
  if (!docs) return base;
  return (
    `${base}\n\n## Example Usage\n\n\`\`\`ts\n${docs.example.trim()}\n\`\`\`` +
    (docs.sections ? `\n\n${docs.sections.trim()}` : "") +
    `\n\n## Import\n\n${docs.adoption.trim()}`
  );
}

/** The schemas of one SDK function. */
export interface FunctionSchemas {
  /** Description with an example (markdown). */
  description: string;
  /** zod object of the arguments. */
  args: z.ZodType;
  /** zod object of the result. */
  result: z.ZodType;
}

/** A Pulumi schema type reference or primitive. */
export interface TypeSpec {
  type?: string;
  $ref?: string;
  items?: TypeSpec;
  additionalProperties?: TypeSpec;
  oneOf?: TypeSpec[];
  const?: unknown;
}

/** A property of a resource, object type or function. */
export interface PropertySpec extends TypeSpec {
  description?: string;
  default?: unknown;
  secret?: boolean;
}

/** An object type or an enum type of the `types` section. */
export interface ComplexTypeSpec {
  type: string;
  description?: string;
  properties?: Record<string, PropertySpec>;
  required?: string[];
  enum?: { name: string; value: string | number }[];
}

/** A resource of the `resources` section. */
export interface ResourceSpec {
  description: string;
  properties: Record<string, PropertySpec>;
  required: string[];
  inputProperties: Record<string, PropertySpec>;
  requiredInputs: string[];
}

/** A function of the `functions` section. */
export interface FunctionSpec {
  description: string;
  inputs: { properties: Record<string, PropertySpec>; required: string[] };
  outputs: { properties: Record<string, PropertySpec>; required: string[] };
}

/** The parts of a Pulumi package schema we emit. */
export interface PackageSchema {
  name: string;
  displayName: string;
  version: string;
  description: string;
  keywords: string[];
  license: string;
  repository?: string;
  meta: { moduleFormat: string };
  language: { nodejs: { packageName: string } };
  config: { variables: Record<string, PropertySpec> };
  types: Record<string, ComplexTypeSpec>;
  resources: Record<string, ResourceSpec>;
  functions: Record<string, FunctionSpec>;
}

/** Package name in the schema and the module of every token. */
export const PACKAGE = "vmhost";
const token = (name: string) => `${PACKAGE}:index:${name}`;

type JsonSchema = {
  type?: string | string[];
  /** From zod `.meta({ title })`: the name of the object or enum type in the schema's `types`. */
  title?: string;
  description?: string;
  default?: unknown;
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
};

/** `firewall-rule`, `publicIp` -> `FirewallRule`, `PublicIp`. */
export function pascalCase(text: string): string {
  return text
    .split(/[-_\s]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join("");
}

/** zod -> JSON Schema (draft 2020-12) of one side: `input` (what users write) or `output` (after parsing). */
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  return z.toJSONSchema(schema, { io, reused: "inline", unrepresentable: "any" }) as JsonSchema;
}

function stableStringify(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
}

/** Converts JSON Schema nodes into Pulumi type specs, collecting named object and enum types. */
class TypeCollector {
  readonly types: Record<string, ComplexTypeSpec> = {};

  /** Registers a complex type under `name` (or `name` + suffix if a different shape already took it). */
  private define(name: string, spec: ComplexTypeSpec): string {
    let candidate = name;
    for (let n = 2; ; n++) {
      const existing = this.types[token(candidate)];
      if (!existing) break;
      if (stableStringify(existing) === stableStringify(spec)) return token(candidate);
      candidate = `${name}${n === 2 ? "Output" : `Output${n}`}`;
    }
    this.types[token(candidate)] = spec;
    return token(candidate);
  }

  /** True when the node admits null (zod `.nullable()`), which Pulumi models as "not always present". */
  static nullable(node: JsonSchema): boolean {
    const variants = node.anyOf ?? node.oneOf;
    if (variants) return variants.some((v) => v.type === "null");
    return Array.isArray(node.type) && node.type.includes("null");
  }

  typeOf(node: JsonSchema, typeNameFromPath: string): TypeSpec {
    const typeName = node.title ?? typeNameFromPath;
    const variants = (node.anyOf ?? node.oneOf)?.filter((v) => v.type !== "null");
    if (variants) {
      if (variants.length === 1) {
        const only = variants[0]!;
        return this.typeOf({ ...only, title: only.title ?? node.title, description: node.description ?? only.description }, typeName);
      }
      return { oneOf: variants.map((v, i) => this.typeOf(v, `${typeName}${i + 1}`)) };
    }
    if (node.allOf && node.allOf.length === 1) return this.typeOf(node.allOf[0]!, typeName);
    if (node.enum && node.enum.length > 0) {
      const values = node.enum.filter((v): v is string | number => typeof v === "string" || typeof v === "number");
      const kind = values.every((v) => typeof v === "string") ? "string" : "number";
      return {
        $ref: `#/types/${this.define(typeName, {
          type: kind,
          ...(node.description ? { description: node.description } : {}),
          enum: values.map((value) => ({ name: pascalCase(String(value)) || String(value), value })),
        })}`,
      };
    }
    if (node.const !== undefined) return { type: typeof node.const === "number" ? "number" : typeof node.const, const: node.const };
    const types = (Array.isArray(node.type) ? node.type : node.type ? [node.type] : []).filter((t) => t !== "null");
    if (types.length > 1) return { oneOf: types.map((t) => this.typeOf({ ...node, type: t }, typeName)) };
    switch (types[0]) {
      case "string":
      case "number":
      case "integer":
      case "boolean":
        return { type: types[0] };
      case "array":
        return { type: "array", items: node.items ? this.typeOf(node.items, typeName) : { $ref: "pulumi.json#/Any" } };
      case "object": {
        if (node.properties && Object.keys(node.properties).length > 0) {
          const { properties, required } = this.properties(node, typeName);
          return {
            $ref: `#/types/${this.define(typeName, {
              type: "object",
              ...(node.description ? { description: node.description } : {}),
              properties,
              required,
            })}`,
          };
        }
        if (node.additionalProperties && typeof node.additionalProperties === "object") {
          return { type: "object", additionalProperties: this.typeOf(node.additionalProperties, `${typeName}Value`) };
        }
        return { type: "object", additionalProperties: { $ref: "pulumi.json#/Any" } };
      }
      default:
        return { $ref: "pulumi.json#/Any" };
    }
  }

  /** The properties of an object node and which of them are required (present and never null). */
  properties(node: JsonSchema, typeName: string, secrets: readonly string[] = []): { properties: Record<string, PropertySpec>; required: string[] } {
    const properties: Record<string, PropertySpec> = {};
    const required: string[] = [];
    for (const [name, child] of Object.entries(node.properties ?? {})) {
      const spec: PropertySpec = { ...this.typeOf(child, `${typeName}${pascalCase(name)}`) };
      const description = child.description ?? (child.anyOf ?? child.oneOf)?.find((v) => v.description)?.description;
      if (description) spec.description = description;
      // Pulumi schema defaults are primitives only; an object's defaults live on its own properties.
      if (["string", "number", "boolean"].includes(typeof child.default)) spec.default = child.default;
      if (secrets.includes(name)) spec.secret = true;
      properties[name] = spec;
      if ((node.required ?? []).includes(name) && !TypeCollector.nullable(child)) required.push(name);
    }
    return { properties, required };
  }
}

/** Finds every resource folder with an `inputs` module exporting `inputsSchema` and `outputsSchema`. */
export function discoverResources(resourcesDir: string = path.join(__dirname, "../../provider/resources")): ResourceSchemas[] {
  const found: ResourceSchemas[] = [];
  for (const entry of fs.readdirSync(resourcesDir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isDirectory()) continue;
    const dir = path.join(resourcesDir, entry.name);
    if (!fs.existsSync(path.join(dir, "inputs.ts")) && !fs.existsSync(path.join(dir, "inputs.js"))) continue;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(path.join(dir, "inputs")) as Partial<{
      inputsSchema: z.ZodType; outputsSchema: z.ZodType; secretOutputNames: readonly string[]; resourceDocs: ResourceSchemas["docs"];
    }>;
    if (!mod.inputsSchema || !mod.outputsSchema) continue; // still being written
    found.push({
      name: pascalCase(entry.name),
      inputsSchema: mod.inputsSchema,
      outputsSchema: mod.outputsSchema,
      secretOutputNames: mod.secretOutputNames ?? [],
      docs: mod.resourceDocs,
    });
  }
  return found;
}

/** The SDK functions' schemas. */
export function loadFunctions(): Record<string, FunctionSchemas> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require("../../sdk/nodejs/functions/registry") as { functionSchemas: Record<string, FunctionSchemas> }).functionSchemas;
}

/** package.json of the project (name, version, license, description). */
function packageJson(): { version: string; description: string; license: string } {
  for (const up of ["../..", "../../.."]) {
    const file = path.join(__dirname, up, "package.json");
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, "utf8")) as { name?: string; version: string; description: string; license: string };
      if (pkg.name === "pulumi-vmhost") return pkg;
    }
  }
  throw new Error("package.json of pulumi-vmhost not found above tools/schema");
}

/** Builds the package schema from resource and function schemas. */
export function buildPackageSchema(
  resources: ResourceSchemas[] = discoverResources(),
  functions: Record<string, FunctionSchemas> = loadFunctions(),
): PackageSchema {
  const pkg = packageJson();
  const collector = new TypeCollector();
  const resourceSpecs: Record<string, ResourceSpec> = {};
  for (const resource of [...resources].sort((a, b) => a.name.localeCompare(b.name))) {
    const input = jsonSchemaOf(resource.inputsSchema, "input");
    const output = jsonSchemaOf(resource.outputsSchema, "output");
    const ins = collector.properties(input, resource.name, resource.secretOutputNames);
    const outs = collector.properties(output, resource.name, resource.secretOutputNames);
    resourceSpecs[token(resource.name)] = {
      description: resourceDescription(input.description ?? output.description ?? "", resource.docs),
      properties: outs.properties,
      required: outs.required,
      inputProperties: ins.properties,
      requiredInputs: ins.required,
    };
  }
  const functionSpecs: Record<string, FunctionSpec> = {};
  for (const [name, fn] of Object.entries(functions).sort(([a], [b]) => a.localeCompare(b))) {
    const typeBase = pascalCase(name.replace(/^get/, ""));
    functionSpecs[token(name)] = {
      description: fn.description,
      inputs: collector.properties(jsonSchemaOf(fn.args, "input"), `${pascalCase(name)}Args`),
      outputs: collector.properties(jsonSchemaOf(fn.result, "output"), typeBase || pascalCase(name)),
    };
  }
  return {
    name: PACKAGE,
    displayName: "VM hosting (DewaVPS, DEPA, Frog, ION, MaxCloud)",
    version: pkg.version,
    description: pkg.description,
    keywords: ["pulumi", "vmhost", "dewavps", "depa", "frog", "category/cloud"],
    license: pkg.license,
    meta: { moduleFormat: "(.*)" },
    language: { nodejs: { packageName: "pulumi-vmhost" } },
    config: {
      variables: {
        apiKey: {
          type: "string",
          secret: true,
          description: "The API key (sent as the x-apikey header). Set it with `pulumi config set --secret vmhost:apiKey <key>`, or the VMHOST_API_KEY environment variable.",
        },
        baseUrl: {
          type: "string",
          description:
            "The API base URL ending in /v1, e.g. https://api.dewavps.com/v1 (or the VMHOST_BASE_URL environment variable). " +
            "Preview checks it: a URL the API does not answer fails with \"did you mean …/v1\".",
        },
        requestTimeout: {
          type: "string",
          description:
            'How long one request waits for an answer, a duration such as "90s" or "2m" (default 60s; or VMHOST_REQUEST_TIMEOUT). ' +
            "A host that accepts a request and never answers fails after it, naming the method and URL; reads are retried within 60 s in all.",
        },
        createTimeout: {
          type: "string",
          description: 'Default deadline of every create wait, e.g. "30m" (default 30m; or VMHOST_CREATE_TIMEOUT). A resource\'s timeouts.create wins.',
        },
        updateTimeout: {
          type: "string",
          description: 'Default deadline of every update wait, e.g. "30m" (default 30m; or VMHOST_UPDATE_TIMEOUT). A resource\'s timeouts.update wins.',
        },
        deleteTimeout: {
          type: "string",
          description: 'Default deadline of every delete wait, e.g. "20m" (default 20m; or VMHOST_DELETE_TIMEOUT). A resource\'s timeouts.delete wins.',
        },
        maxRequestsPerSecond: {
          type: "number",
          description: "A cap on the requests per second to the API from one process: the provider's requests share one cap, and functions, which run in the program's process, have their own (default: none; the provider also learns the host's limit from its 429 answers).",
        },
        routes: {
          type: "string",
          description:
            'Route overrides as JSON, for a host whose route differs, e.g. {"updateRdns": "PATCH /network/ip/{ip_uuid}/rdns"}. Validated at start.',
        },
      },
    },
    types: Object.fromEntries(Object.entries(collector.types).sort(([a], [b]) => a.localeCompare(b))),
    resources: resourceSpecs,
    functions: functionSpecs,
  };
}

/** The file text: 2-space JSON with a final newline (what `schema.json` holds). */
export function renderSchema(schema: PackageSchema): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

if (require.main === module) {
  const out = path.resolve(process.argv[2] ?? "schema.json");
  fs.writeFileSync(out, renderSchema(buildPackageSchema()));
  process.stdout.write(`wrote ${out}\n`);
}
