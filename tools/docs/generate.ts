/**
 * Generates the reference docs (`docs/`) from `schema.json`: one page per resource and per function, and an
 * index, so the docs say exactly what the schema (and therefore the zod schemas) say.
 *
 * Run: `node dist/tools/docs/generate.js [schema=schema.json] [out=docs]` (`make docs` does it, after
 * regenerating schema.json). tests/docs.test.ts regenerates into memory and compares with `docs/`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { ComplexTypeSpec, PackageSchema, PropertySpec, TypeSpec } from "../schema/generate";

/** `vmhost:index:FirewallRule` -> `FirewallRule`. */
const shortName = (token: string) => token.split(":").pop()!;

/** `FirewallRule` -> `firewall-rule` (file names). */
export function kebabCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();
}

/** Table cells cannot hold newlines or bare pipes. */
function cell(text: string | undefined): string {
  return (text ?? "").replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}

/** Renders a type for a table cell, collecting the named types it references. */
function typeText(spec: TypeSpec, schema: PackageSchema, refs: Set<string>): string {
  if (spec.$ref) {
    if (spec.$ref === "pulumi.json#/Any") return "any";
    const token = spec.$ref.replace(/^#\/types\//, "");
    const type = schema.types[token];
    if (type?.enum) return type.enum.map((e) => JSON.stringify(e.value)).join(" \\| ");
    refs.add(token);
    const name = shortName(token);
    return `[${name}](#${name.toLowerCase()})`;
  }
  if (spec.oneOf) return spec.oneOf.map((s) => typeText(s, schema, refs)).join(" \\| ");
  if (spec.const !== undefined) return `\`${JSON.stringify(spec.const)}\``;
  if (spec.type === "array") return `${typeText(spec.items ?? { $ref: "pulumi.json#/Any" }, schema, refs)}[]`;
  if (spec.type === "object") return `map<string, ${typeText(spec.additionalProperties ?? { $ref: "pulumi.json#/Any" }, schema, refs)}>`;
  return spec.type ?? "any";
}

function propertyTable(
  properties: Record<string, PropertySpec>,
  required: string[],
  schema: PackageSchema,
  refs: Set<string>,
  requiredLabel = "Required",
): string {
  const names = Object.keys(properties);
  if (names.length === 0) return "_None._\n";
  const rows = names.map((name) => {
    const p = properties[name]!;
    const notes: string[] = [];
    if (p.default !== undefined) notes.push(`Default: \`${JSON.stringify(p.default)}\`.`);
    if (p.secret) notes.push("Secret.");
    const description = [p.description, ...notes].filter(Boolean).join(" ");
    return `| \`${name}\` | ${typeText(p, schema, refs)} | ${required.includes(name) ? "yes" : "no"} | ${cell(description)} |`;
  });
  return [`| Name | Type | ${requiredLabel} | Description |`, "|---|---|---|---|", ...rows].join("\n") + "\n";
}

/** Sections for every named object type referenced (transitively) from a page. */
function typeSections(refs: Set<string>, schema: PackageSchema): string {
  const done = new Set<string>();
  const out: string[] = [];
  const queue = [...refs].sort();
  while (queue.length > 0) {
    const token = queue.shift()!;
    if (done.has(token)) continue;
    done.add(token);
    const type: ComplexTypeSpec | undefined = schema.types[token];
    if (!type || !type.properties) continue;
    const nested = new Set<string>();
    out.push(
      `### ${shortName(token)}\n\n${type.description ? `${type.description}\n\n` : ""}` +
        propertyTable(type.properties, type.required ?? [], schema, nested, "Always set"),
    );
    for (const t of [...nested].sort()) if (!done.has(t)) queue.push(t);
  }
  return out.length ? `## Types\n\n${out.join("\n")}` : "";
}

const GENERATED = "<!-- Generated from schema.json by `make docs` (tools/docs). Do not edit by hand. -->\n\n";

function resourcePage(token: string, schema: PackageSchema): string {
  const r = schema.resources[token]!;
  const name = shortName(token);
  const refs = new Set<string>();
  const inputs = propertyTable(r.inputProperties, r.requiredInputs, schema, refs);
  const computedNames = Object.keys(r.properties).filter((k) => !(k in r.inputProperties));
  const computed = Object.fromEntries(computedNames.map((k) => [k, r.properties[k]!]));
  const outputs = propertyTable(computed, r.required, schema, refs, "Always set");
  // "Import" goes last, as on a first-party provider's page; the rest of the description leads
  const [description, importSection] = r.description.split(/\n\n## Import\n\n/);
  return (
    GENERATED +
    `# ${name}\n\n${description}\n\n` +
    `Class \`vmhost.${name}\` of the \`pulumi-vmhost\` package; Pulumi type \`pulumi-nodejs:dynamic/vmhost:${name}\` ` +
    `(schema token \`${token}\`).\n\n` +
    `## Inputs\n\n${inputs}\n` +
    `## Outputs\n\nEvery input is also an output (as read back from the API). In addition:\n\n${outputs}\n` +
    typeSections(refs, schema) +
    (importSection ? `\n\n## Import\n\n${importSection}\n` : "")
  ).trimEnd() + "\n";
}

/** Variables read from the environment only (no stack config key). */
const ENV_ONLY: [string, string][] = [
  ["VMHOST_LOG", "`debug` logs every API request to stderr, which Pulumi shows as the resource's diagnostics (the key never appears)."],
  ["VMHOST_CACHE_DIR", "Where the provider keeps, per host, what it learned about operation durations and notes of address adds an interrupted `up` may not have recorded (`off`: in memory only)."],
];

/** The configuration table: every stack config key with its environment variable, then the environment-only ones. */
function configSection(schema: PackageSchema): string {
  const rows = Object.entries(schema.config.variables).map(([key, v]) => {
    const env = /\bVMHOST_[A-Z_]+\b/.exec(v.description ?? "")?.[0];
    return `| \`vmhost:${key}\` | ${env ? `\`${env}\`` : "-"} | ${typeText(v, schema, new Set())}${v.secret ? " (secret)" : ""} | ${cell(v.description)} |`;
  });
  const envRows = ENV_ONLY.map(([env, what]) => `| - | \`${env}\` | string | ${cell(what)} |`);
  return (
    "Stack config wins over the environment. Set a key with `pulumi config set vmhost:<key> <value>` " +
    "(`--secret` for the API key).\n\n" +
    "| Stack config | Environment variable | Type | Description |\n|---|---|---|---|\n" +
    [...rows, ...envRows].join("\n") + "\n"
  );
}

function functionPage(token: string, schema: PackageSchema): string {
  const f = schema.functions[token]!;
  const name = shortName(token);
  const refs = new Set<string>();
  const args = propertyTable(f.inputs.properties, f.inputs.required, schema, refs);
  const result = propertyTable(f.outputs.properties, f.outputs.required, schema, refs, "Always set");
  return (
    GENERATED +
    `# ${name}\n\n${f.description}\n\n` +
    "Examples use `await`, as in a program whose entry is `export = async () => { ... }`. " +
    `\`vmhost.${name}(args, options?)\` returns a Promise. Options \`{ apiKey, baseUrl }\` override the stack config ` +
    `(\`vmhost:apiKey\`, \`vmhost:baseUrl\`) and the environment (\`VMHOST_API_KEY\`, \`VMHOST_BASE_URL\`).` +
    (name.startsWith("get") && Object.keys(f.inputs.properties).length > 0
      ? ` \`vmhost.${name}Output(args, options?)\` takes Pulumi inputs (e.g. \`instance.id\`) and returns an Output.`
      : "") +
    "\n\n" +
    `## Arguments\n\n${args}\n## Result\n\n${result}\n` +
    typeSections(refs, schema)
  ).trimEnd() + "\n";
}

function indexPage(schema: PackageSchema): string {
  const resources = Object.keys(schema.resources).map((t) => {
    const name = shortName(t);
    const first = schema.resources[t]!.description.split(/(?<=\.)\s/)[0];
    return `| [${name}](resources/${kebabCase(name)}.md) | ${cell(first)} |`;
  });
  const functions = Object.keys(schema.functions).map((t) => {
    const name = shortName(t);
    const first = schema.functions[t]!.description.split(/\n/)[0]!.split(/(?<=\.)\s/)[0];
    return `| [${name}](functions/${name}.md) | ${cell(first)} |`;
  });
  return (
    GENERATED +
    `# ${schema.displayName}: reference\n\n${schema.description}\n\n` +
    `## Configuration\n\n${configSection(schema)}\n` +
    `## Resources\n\n| Resource | Summary |\n|---|---|\n${resources.join("\n")}\n\n` +
    `## Functions\n\n| Function | Summary |\n|---|---|\n${functions.join("\n")}\n`
  );
}

/** Renders every docs page: relative path -> content. */
export function renderDocs(schema: PackageSchema): Map<string, string> {
  const pages = new Map<string, string>();
  pages.set("README.md", indexPage(schema));
  for (const token of Object.keys(schema.resources)) pages.set(`resources/${kebabCase(shortName(token))}.md`, resourcePage(token, schema));
  for (const token of Object.keys(schema.functions)) pages.set(`functions/${shortName(token)}.md`, functionPage(token, schema));
  return pages;
}

/** Replaces `outDir` with the rendered pages (stale pages of removed resources disappear). */
export function writeDocs(schema: PackageSchema, outDir: string): string[] {
  fs.rmSync(outDir, { recursive: true, force: true });
  const written: string[] = [];
  for (const [rel, content] of renderDocs(schema)) {
    const file = path.join(outDir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    written.push(rel);
  }
  return written;
}

if (require.main === module) {
  const schemaFile = path.resolve(process.argv[2] ?? "schema.json");
  const outDir = path.resolve(process.argv[3] ?? "docs");
  const schema = JSON.parse(fs.readFileSync(schemaFile, "utf8")) as PackageSchema;
  const written = writeDocs(schema, outDir);
  process.stdout.write(`wrote ${written.length} pages to ${outDir}\n`);
}
