/**
 * The SDK's resource classes (sdk/nodejs) are written by hand; schema.json is generated from the zod schemas the
 * provider validates with. This keeps them equal, read from the TypeScript source: each class has an output field
 * for every output property and no other, and its Args interface the input properties, optional exactly where the
 * schema does not require them (audit: the PublicIp class lacked the `detached` output, and no test failed).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";

const root = path.join(__dirname, "..");
const schema = JSON.parse(fs.readFileSync(path.join(root, "schema.json"), "utf8")) as {
  resources: Record<string, { properties: Record<string, unknown>; inputProperties: Record<string, unknown>; requiredInputs?: string[] }>;
};

/** The file of a resource class: PublicIp -> public-ip.ts. */
const fileOf = (name: string): string => path.join(root, "sdk/nodejs", `${name.replace(/([a-z])([A-Z])/g, "$1-$2").toLowerCase()}.ts`);

function declarations(name: string): { outputs: string[]; inputs: Array<{ name: string; optional: boolean }> } {
  const source = ts.createSourceFile(fileOf(name), fs.readFileSync(fileOf(name), "utf8"), ts.ScriptTarget.Latest, true);
  const outputs: string[] = [];
  const inputs: Array<{ name: string; optional: boolean }> = [];
  source.forEachChild((node) => {
    if (ts.isClassDeclaration(node) && node.name?.text === name) {
      for (const m of node.members) {
        const readonly = ts.canHaveModifiers(m) && ts.getModifiers(m)?.some((x) => x.kind === ts.SyntaxKind.ReadonlyKeyword);
        if (ts.isPropertyDeclaration(m) && readonly && ts.isIdentifier(m.name)) outputs.push(m.name.text);
      }
    }
    if (ts.isInterfaceDeclaration(node) && node.name.text === `${name}Args`) {
      for (const m of node.members) {
        if (ts.isPropertySignature(m) && ts.isIdentifier(m.name)) inputs.push({ name: m.name.text, optional: m.questionToken !== undefined });
      }
    }
  });
  return { outputs, inputs };
}

describe.each(Object.entries(schema.resources).map(([token, r]) => [token.split(":").pop()!, r] as const))("SDK class %s", (name, resource) => {
  const { outputs, inputs } = declarations(name);

  it("has an output field for every output property of schema.json, and no other", () => {
    expect([...outputs].sort()).toEqual(Object.keys(resource.properties).sort());
  });

  it("its Args take the input properties, optional exactly where schema.json does not require them", () => {
    const required = new Set(resource.requiredInputs ?? []);
    expect(inputs.map((i) => i.name).sort()).toEqual(Object.keys(resource.inputProperties).sort());
    expect(inputs.filter((i) => i.optional === required.has(i.name)).map((i) => i.name)).toEqual([]);
  });
});
