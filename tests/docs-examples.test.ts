/**
 * Every TypeScript example of the reference docs (each resource and function page) type-checks against the
 * SDK as published: an example that does not compile would teach users a wrong call. Each code block
 * becomes one file, exactly as written (users copy it into their index.ts), compiled as a CommonJS module like a
 * Pulumi TypeScript program (the default template's and examples/*'s tsconfig), where a top-level `await` does not
 * compile; `pulumi-vmhost` resolves to sdk/nodejs.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";

const root = path.join(__dirname, "..");
const docsDir = path.join(root, "docs");

function pages(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? pages(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** One virtual file per ```ts block of the docs, as written (a block without an export is made a module). */
function exampleFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const page of pages(docsDir)) {
    const text = fs.readFileSync(page, "utf8");
    let n = 0;
    for (const m of text.matchAll(/```ts\n([\s\S]*?)```/g)) {
      const code = m[1]!;
      const name = path.join(root, "tests", ".docs-examples", `${path.relative(docsDir, page).replace(/[/.]/g, "_")}_${n++}.ts`);
      files.set(name, /^export /m.test(code) ? code : `${code}export {};\n`);
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
