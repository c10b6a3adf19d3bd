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

  it("has a function for every read endpoint of the design, plus rollbackSnapshot, each with an example", () => {
    const design = [
      "getSizeTemplates", "getInstances", "getInstance", "getInstanceMetrics", "getVswitches", "getVswitchOptions", "getVswitch",
      "getVswitchGraph", "getBlockStorageOptions", "getSnapshots", "getSnapshotPrice", "getBackupPrice", "getBackups",
      "getChangeTierCost", "getPaymentMethods", "getCreditHistory", "getBillingReport", "getInstancesWithoutPublicIp",
    ];
    expect(Object.keys(committed.functions).sort()).toEqual([...design, "rollbackSnapshot"].map((n) => `vmhost:index:${n}`).sort());
    for (const [token, fn] of Object.entries(committed.functions)) {
      expect(fn.description).toContain("```ts");
      const name = token.split(":").pop() as keyof typeof functionSchemas;
      const args = z.toJSONSchema(functionSchemas[name].args, { io: "input" }) as { properties?: object; required?: string[] };
      expect(Object.keys(fn.inputs.properties).sort()).toEqual(Object.keys(args.properties ?? {}).sort());
      expect([...fn.inputs.required].sort()).toEqual([...(args.required ?? [])].sort());
    }
  });
});
