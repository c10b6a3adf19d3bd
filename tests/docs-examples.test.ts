/**
 * Every TypeScript example of the reference docs (each resource and function page) type-checks against the
 * SDK as published: an example that does not compile would teach users a wrong call. Each code block
 * becomes one file: its imports and `declare`s stay at the top, the rest runs in an async function (function examples use
 * `await`), and `pulumi-vmhost` resolves to sdk/nodejs.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";

const root = path.join(__dirname, "..");
const docsDir = path.join(root, "docs");

function pages(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? pages(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** One virtual file per ```ts block of the docs: imports kept on top, the body wrapped so `await` works. */
function exampleFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const page of pages(docsDir)) {
    const text = fs.readFileSync(page, "utf8");
    let n = 0;
    for (const m of text.matchAll(/```ts\n([\s\S]*?)```/g)) {
      const lines = m[1]!.split("\n");
      // imports and `declare const x: T;` (what an example assumes exists) stay at the top level
      const top = (l: string) => /^(import |declare )/.test(l);
      const imports = lines.filter(top);
      const body = lines.filter((l) => !top(l)).map((l) => l.replace(/^export const /, "const "));
      const name = path.join(root, "tests", ".docs-examples", `${path.relative(docsDir, page).replace(/[/.]/g, "_")}_${n++}.ts`);
      files.set(name, `${imports.join("\n")}\nexport {};\nasync function example(): Promise<void> {\n${body.join("\n")}\n}\nvoid example;\n`);
    }
  }
  return files;
}

it("every ts example of docs/ type-checks against the SDK", () => {
  const files = exampleFiles();
  expect(files.size).toBeGreaterThanOrEqual(35);
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10,
    strict: true, noEmit: true, skipLibCheck: true, esModuleInterop: true, types: ["node"],
    // unused locals are fine in an example (it shows a value the reader goes on to use)
    noUnusedLocals: false, baseUrl: root, paths: { "pulumi-vmhost": ["sdk/nodejs/index.ts"] },
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  const exists = host.fileExists.bind(host);
  host.readFile = (f) => files.get(path.resolve(f)) ?? read(f);
  host.fileExists = (f) => files.has(path.resolve(f)) || exists(f);
  const program = ts.createProgram([...files.keys()], options, host);
  const problems = ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && files.has(path.resolve(d.file.fileName)))
    .map((d) => {
      const file = d.file!;
      const { line } = file.getLineAndCharacterOfPosition(d.start ?? 0);
      return `${path.basename(file.fileName)}:${line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}\n  ${file.text.split("\n")[line]}`;
    });
  expect(problems).toEqual([]);
});
