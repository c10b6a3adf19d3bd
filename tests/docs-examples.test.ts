/**
 * Every TypeScript example of the reference docs (each resource and function page) type-checks against the
 * SDK as published: an example that does not compile would teach users a wrong call. Each code block
 * becomes one file, exactly as written (users copy it into their index.ts), compiled as a CommonJS module like a
 * Pulumi TypeScript program (the default template's and examples/*'s tsconfig), where a top-level `await` does not
 * compile; `pulumi-vmhost` resolves to sdk/nodejs. The `@example`s of the functions' doc comments (what an editor shows
 * on hover) are held to the same rule, with the import they leave out and the resources they name (`web`, `vm`) declared.
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

/** The functions' doc-comment `@example`s: each a file, after a prelude declaring what they take as given. */
function functionDocExamples(): Map<string, string> {
  const source = path.join(root, "sdk", "nodejs", "functions", "index.ts");
  const prelude =
    'import * as vmhost from "pulumi-vmhost";\nimport * as pulumi from "@pulumi/pulumi";\n' +
    "declare const web: vmhost.Instance;\ndeclare const vm: vmhost.Instance;\nvoid pulumi;\n";
  const files = new Map<string, string>();
  let n = 0;
  // A block: from `@example` to the end of its comment; a one-line doc comment holds it inline.
  for (const m of fs.readFileSync(source, "utf8").matchAll(/@example([\s\S]*?)\*\//g)) {
    const code = m[1]!.split("\n").map((l) => l.replace(/^\s*\* ?/, "")).join("\n").trim();
    files.set(path.join(root, "tests", ".docs-examples", `functions_index_ts_${n++}.ts`), `${prelude}${code}\n${/^export /m.test(code) ? "" : "export {};\n"}`);
  }
  return files;
}

it("every ts example of docs/ and of the functions' doc comments type-checks against the SDK", () => {
  const docs = exampleFiles();
  expect(docs.size).toBeGreaterThanOrEqual(35);
  const inComments = functionDocExamples();
  expect(inComments.size).toBeGreaterThanOrEqual(30);
  const files = new Map([...docs, ...inComments]);
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
