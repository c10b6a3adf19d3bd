/**
 * schema.json is generated from the zod schemas the provider validates with (tools/schema). These tests
 * keep the committed file equal to a fresh generation, so the published schema (and the docs made from it)
 * cannot drift from the code, and check it is a well-formed Pulumi package schema.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { buildPackageSchema, discoverResources, pascalCase, renderSchema, type PackageSchema, type TypeSpec } from "../tools/schema/generate";
import { functionSchemas } from "../sdk/nodejs/functions/registry";
import { CONFIG_KEYS } from "../provider/api/config-keys";

const root = path.join(__dirname, "..");
const committedText = fs.readFileSync(path.join(root, "schema.json"), "utf8");
const committed = JSON.parse(committedText) as PackageSchema;
const resources = discoverResources();

/** Keys of a zod object schema (through the wrappers zod puts around objects: pipes, effects). */
function shapeOf(schema: z.ZodType): Record<string, z.ZodType> {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as { properties?: Record<string, unknown> };
  const def = (schema as unknown as { shape?: Record<string, z.ZodType> }).shape;
  if (def) return def;
  return Object.fromEntries(Object.keys(json.properties ?? {}).map((k) => [k, z.unknown()]));
}

describe("schema.json", () => {
  it("documents exactly the vmhost: config keys the provider reads (CONFIG_KEYS: others draw a did-you-mean warning)", () => {
    expect(Object.keys((committed as unknown as { config: { variables: object } }).config.variables).sort()).toEqual([...CONFIG_KEYS].sort());
  });

  it("is exactly what the generator makes from the current zod schemas (run `make docs` after changing them)", () => {
    expect(committedText).toBe(renderSchema(buildPackageSchema()));
  });

  it("has every resource folder that exports inputsSchema/outputsSchema, and the six resources of the design", () => {
    const folders = fs
      .readdirSync(path.join(root, "provider/resources"), { withFileTypes: true })
      .filter((d) => d.isDirectory() && fs.existsSync(path.join(root, "provider/resources", d.name, "inputs.ts")))
      .map((d) => `vmhost:index:${pascalCase(d.name)}`);
    expect(Object.keys(committed.resources).sort()).toEqual(folders.sort());
    for (const name of ["Snapshot", "FirewallRule"]) expect(committed.resources[`vmhost:index:${name}`]).toBeDefined();
  });

  it("is a Pulumi package named vmhost with a secret apiKey and a baseUrl in config", () => {
    expect(committed.name).toBe("vmhost");
    expect(committed.config.variables.apiKey).toEqual(expect.objectContaining({ type: "string", secret: true }));
    expect(committed.config.variables.baseUrl).toEqual(expect.objectContaining({ type: "string" }));
    expect(committed.language.nodejs.packageName).toBe("pulumi-vmhost");
  });

  it("follows the Pulumi package metaschema's rules (pkg/codegen/schema/pulumi.json)", () => {
    const problems: string[] = [];
    const TOKEN = /^[a-zA-Z][-a-zA-Z0-9_]*:([^0-9][a-zA-Z0-9._/-]*)?:[^0-9][a-zA-Z0-9._/-]*$/;
    const PRIMITIVES = ["boolean", "integer", "number", "string"];
    const allowedTop = ["name", "displayName", "version", "description", "keywords", "homepage", "license", "attribution", "repository",
      "logoUrl", "pluginDownloadURL", "publisher", "namespace", "meta", "config", "types", "dependencies", "provider", "resources",
      "functions", "language", "parameterization", "allowedPackageNames"];
    for (const key of Object.keys(committed)) if (!allowedTop.includes(key)) problems.push(`unknown top-level key ${key}`);
    if (!/^[a-zA-Z][-a-zA-Z0-9_]*$/.test(committed.name)) problems.push("name");
    if (!/^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.test(committed.version)) problems.push("version is not semver");
    // one kind of type reference per spec: primitive, array, map, named ($ref) or union (oneOf >= 2)
    const checkType = (t: TypeSpec & Record<string, unknown>, at: string) => {
      const kinds = [
        t.$ref !== undefined,
        t.oneOf !== undefined,
        t.type === "array",
        t.type === "object",
        t.$ref === undefined && t.oneOf === undefined && PRIMITIVES.includes(String(t.type)),
      ].filter(Boolean).length;
      if (kinds !== 1) problems.push(`${at}: not exactly one kind of type`);
      if (t.type === "array") t.items ? checkType(t.items as TypeSpec & Record<string, unknown>, `${at}.items`) : problems.push(`${at}: array without items`);
      if (t.type === "object" && t.additionalProperties) checkType(t.additionalProperties as TypeSpec & Record<string, unknown>, `${at}.additionalProperties`);
      if (t.oneOf) {
        if (t.oneOf.length < 2) problems.push(`${at}: oneOf with fewer than 2 types`);
        t.oneOf.forEach((o, i) => checkType(o as TypeSpec & Record<string, unknown>, `${at}.oneOf[${i}]`));
      }
      for (const k of ["default", "const"]) {
        if (k in t && !["boolean", "number", "string"].includes(typeof t[k])) problems.push(`${at}: ${k} must be a boolean, number or string`);
      }
    };
    const checkProps = (props: Record<string, TypeSpec>, at: string) => {
      for (const [name, spec] of Object.entries(props)) checkType(spec as TypeSpec & Record<string, unknown>, `${at}.${name}`);
    };
    checkProps(committed.config.variables, "config");
    for (const [token, type] of Object.entries(committed.types)) {
      if (!TOKEN.test(token)) problems.push(`type token ${token}`);
      if (type.enum) {
        if (!PRIMITIVES.includes(type.type)) problems.push(`${token}: enum of ${type.type}`);
        if (type.enum.some((e) => e.value === undefined)) problems.push(`${token}: enum value missing`);
      } else {
        if (type.type !== "object") problems.push(`${token}: object type must say type "object"`);
        checkProps(type.properties ?? {}, token);
      }
    }
    for (const [token, r] of Object.entries(committed.resources)) {
      if (!TOKEN.test(token)) problems.push(`resource token ${token}`);
      checkProps(r.properties, `${token}.properties`);
      checkProps(r.inputProperties, `${token}.inputProperties`);
      for (const name of r.required) if (!(name in r.properties)) problems.push(`${token}: required ${name} is not a property`);
      for (const name of r.requiredInputs) if (!(name in r.inputProperties)) problems.push(`${token}: required input ${name} is not an input`);
    }
    for (const [token, f] of Object.entries(committed.functions)) {
      if (!TOKEN.test(token)) problems.push(`function token ${token}`);
      checkProps(f.inputs.properties, `${token}.inputs`);
      checkProps(f.outputs.properties, `${token}.outputs`);
    }
    expect(problems).toEqual([]);
  });

  it("names every type it references (every $ref resolves)", () => {
    const refs: string[] = [];
    const walk = (v: unknown) => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === "object") {
        for (const [k, child] of Object.entries(v)) {
          if (k === "$ref" && typeof child === "string") refs.push(child);
          else walk(child);
        }
      }
    };
    walk(committed);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      if (ref === "pulumi.json#/Any") continue;
      expect(ref).toMatch(/^#\/types\/vmhost:index:[A-Z]\w*$/);
      expect(committed.types[ref.slice("#/types/".length)]).toBeDefined();
    }
  });

  describe.each(resources.map((r) => [r.name, r] as const))("resource %s", (name, resource) => {
    const spec = () => committed.resources[`vmhost:index:${name}`]!;

    it("has the zod inputs' names and required set", () => {
      const shape = shapeOf(resource.inputsSchema);
      expect(Object.keys(spec().inputProperties).sort()).toEqual(Object.keys(shape).sort());
      // required = the property may not be left out (zod refuses undefined for it)
      const required = Object.entries(shape)
        .filter(([, s]) => !(s as z.ZodType).safeParse(undefined).success)
        .map(([k]) => k);
      expect([...spec().requiredInputs].sort()).toEqual(required.sort());
    });

    it("has the zod outputs' names, with every input also an output", () => {
      const shape = shapeOf(resource.outputsSchema);
      expect(Object.keys(spec().properties).sort()).toEqual(Object.keys(shape).sort());
      for (const input of Object.keys(spec().inputProperties)) expect(Object.keys(spec().properties)).toContain(input);
      // "always set" outputs: zod never lets them end up undefined or null (a default fills them)
      const mayBeAbsent = (s: z.ZodType) =>
        [undefined, null].some((v) => {
          const r = s.safeParse(v);
          return r.success && (r.data === undefined || r.data === null);
        });
      const required = Object.entries(shape)
        .filter(([, s]) => !mayBeAbsent(s as z.ZodType))
        .map(([k]) => k);
      expect([...spec().required].sort()).toEqual(required.sort());
    });

    it("marks the secret outputs secret", () => {
      for (const secret of resource.secretOutputNames) expect(spec().properties[secret]?.secret).toBe(true);
    });

    it("describes the resource and every property (descriptions come from zod .describe())", () => {
      expect(spec().description.length).toBeGreaterThan(20);
      const missing = [
        ...Object.entries(spec().inputProperties).filter(([, p]) => !p.description).map(([k]) => `input ${k}`),
        ...Object.entries(spec().properties).filter(([, p]) => !p.description).map(([k]) => `output ${k}`),
      ];
      expect(missing).toEqual([]);
    });
  });

  it("types FirewallRule's properties as the provider accepts them", () => {
    const fw = committed.resources["vmhost:index:FirewallRule"]!;
    expect(committed.types[fw.inputProperties.protocol!.$ref!.slice(8)]!.enum!.map((e) => e.value)).toEqual(["tcp", "udp"]);
    expect(committed.types[fw.inputProperties.action!.$ref!.slice(8)]!.enum!.map((e) => e.value)).toEqual(["accept", "drop"]);
    expect(fw.inputProperties.port!.oneOf!.map((t: TypeSpec) => t.type).sort()).toEqual(["number", "string"]);
    expect(fw.properties.port!.type).toBe("string"); // normalized on output
    expect(fw.requiredInputs.sort()).toEqual(["action", "instanceId", "port", "protocol"]);
    const snap = committed.resources["vmhost:index:Snapshot"]!;
    expect(snap.requiredInputs.sort()).toEqual(["instanceId", "name"]);
    expect(snap.inputProperties.description!.default).toBe("Created by Pulumi");
    expect(snap.properties.attachedStorage).toEqual(expect.objectContaining({ type: "array" }));
  });

  it("has a function for every read endpoint of the design, the catalogue lookups, plus rollbackSnapshot, each with an example", () => {
    const design = [
      "getSizeTemplates", "getInstances", "getInstance", "getInstanceMetrics", "getVswitches", "getVswitchOptions", "getVswitch",
      "getVswitchGraph", "getBlockStorageOptions", "getSnapshots", "getSnapshotPrice", "getBackupPrice", "getBackups",
      "getChangeTierCost", "getPaymentMethods", "getCreditHistory", "getBillingReport", "getInstancesWithoutPublicIp",
    ];
    // what the Instance's and attachments' ids refer to, listed and looked up by name (issue 12)
    const lookups = ["getLocations", "getLocation", "getTiers", "getTier", "getOsTemplates", "getOsTemplate", "getBlockStorages", "getBlockStorage", "getFirewallRules"];
    expect(Object.keys(committed.functions).sort()).toEqual([...design, ...lookups, "rollbackSnapshot"].map((n) => `vmhost:index:${n}`).sort());
    for (const [token, fn] of Object.entries(committed.functions)) {
      expect(fn.description).toContain("```ts");
      const name = token.split(":").pop() as keyof typeof functionSchemas;
      const args = z.toJSONSchema(functionSchemas[name].args, { io: "input" }) as { properties?: object; required?: string[] };
      expect(Object.keys(fn.inputs.properties).sort()).toEqual(Object.keys(args.properties ?? {}).sort());
      expect([...fn.inputs.required].sort()).toEqual([...(args.required ?? [])].sort());
    }
  });

  it("describes every property: of each resource, function and nested type", () => {
    const undocumented: string[] = [];
    const visit = (where: string, properties: Record<string, { description?: string }> | undefined) => {
      for (const [name, p] of Object.entries(properties ?? {})) if (!p.description) undocumented.push(`${where}.${name}`);
    };
    for (const [token, t] of Object.entries(committed.types)) visit(token, (t as { properties?: Record<string, { description?: string }> }).properties);
    for (const [token, r] of Object.entries(committed.resources)) {
      visit(`${token} input`, r.inputProperties);
      visit(`${token} output`, r.properties);
    }
    for (const [token, f] of Object.entries(committed.functions)) {
      visit(`${token} args`, f.inputs.properties);
      visit(`${token} result`, f.outputs.properties);
    }
    expect(undocumented).toEqual([]);
  });
});

