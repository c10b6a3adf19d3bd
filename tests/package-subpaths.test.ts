/**
 * The package's subpath entry points (`pulumi-vmhost/api`, `/simulator`, `/provider`), as the README shows them,
 * type-check in a project with the Pulumi TypeScript template's compiler options (`module: commonjs`,
 * `moduleResolution: node`, as examples/*'s tsconfig): that resolution ignores package.json `exports`, so without
 * `typesVersions` `import { startSimulator } from "pulumi-vmhost/simulator"` failed with TS2307 in a user's ts-jest
 * test (new-user audit). Runs against the packed tarball (`make pack`), as users install it.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import ts from "typescript";
import { installPacked, ROOT } from "./host/packed";

it("pulumi-vmhost and its subpaths type-check under the Pulumi template's moduleResolution node", () => {
  const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? os.tmpdir(), "vmhost-subpaths-"));
  try {
    installPacked(dir);
    // @types/node for the program's own types, as the README's install line adds it
    fs.symlinkSync(path.join(ROOT, "node_modules", "@types"), path.join(dir, "node_modules", "@types"), "dir");
    const file = path.join(dir, "index.ts");
    fs.writeFileSync(
      file,
      [
        'import * as vmhost from "pulumi-vmhost";',
        'import { createClient, resolveClientOptions } from "pulumi-vmhost/api";',
        'import { startSimulator, ManualClock } from "pulumi-vmhost/simulator";',
        'import * as provider from "pulumi-vmhost/provider";',
        "export async function main(): Promise<void> {",
        "  const sim = await startSimulator({ clock: new ManualClock() });",
        "  const client = createClient(resolveClientOptions({ config: { 'vmhost:apiKey': sim.apiKey, 'vmhost:baseUrl': sim.url } }));",
        '  const vm = await client.instances.find("6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab");',
        "  void vm; void vmhost.Instance; void provider;",
        "  await sim.close();",
        "}",
        "",
      ].join("\n"),
    );
    const options: ts.CompilerOptions = {
      strict: true, target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.CommonJS,
      moduleResolution: ts.ModuleResolutionKind.Node10, skipLibCheck: true, noEmit: true, types: ["node"],
    };
    const program = ts.createProgram([file], options);
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file ? path.basename(d.file.fileName) : ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    expect(problems).toEqual([]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
