/**
 * docs/ is generated from schema.json (tools/docs). CI requires "docs regenerated with no diff": this test
 * regenerates schema and docs into a temporary folder and compares them with the committed ones.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { writeDocs } from "../tools/docs/generate";
import { buildPackageSchema } from "../tools/schema/generate";

const root = path.join(__dirname, "..");

function listFiles(dir: string, prefix = ""): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(path.join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

describe("docs/", () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "vmhost-docs-"));
    writeDocs(buildPackageSchema(), tmp);
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("holds exactly the pages `make docs` generates (no stale or missing page)", () => {
    expect(listFiles(path.join(root, "docs")).sort()).toEqual(listFiles(tmp).sort());
  });

  it("has every page identical to a fresh generation", () => {
    for (const rel of listFiles(tmp)) {
      expect({ page: rel, text: fs.readFileSync(path.join(root, "docs", rel), "utf8") }).toEqual({
        page: rel,
        text: fs.readFileSync(path.join(tmp, rel), "utf8"),
      });
    }
  });

  it("documents each resource's inputs and each function's example, and the README links the reference", () => {
    const snapshot = fs.readFileSync(path.join(tmp, "resources/snapshot.md"), "utf8");
    expect(snapshot).toContain("| `instanceId` | string | yes |");
    expect(snapshot).toContain("### SnapshotTimeouts");
    const rollback = fs.readFileSync(path.join(tmp, "functions/rollbackSnapshot.md"), "utf8");
    expect(rollback).toMatch(/STOPPED/);
    expect(rollback).toContain("```ts");
    expect(fs.readFileSync(path.join(root, "README.md"), "utf8")).toContain("docs/README.md");
  });

  it("has a usage example on every resource and function page, and an Import (adoption) section on every resource page", () => {
    const pages = listFiles(tmp).filter((rel) => rel.startsWith("resources/") || rel.startsWith("functions/"));
    expect(pages.length).toBeGreaterThanOrEqual(30);
    for (const rel of pages) {
      const text = fs.readFileSync(path.join(tmp, rel), "utf8");
      expect({ page: rel, hasExample: /```ts\n[\s\S]*?vmhost\.[\s\S]*?```/.test(text) }).toEqual({ page: rel, hasExample: true });
      if (rel.startsWith("resources/")) expect({ page: rel, hasImport: /\n## Import\n\n[\s\S]*adoptId/.test(text) }).toEqual({ page: rel, hasImport: true });
    }
  });

  it("lists every config key the provider reads, with its environment variable, and the Instance's required inputs per mode", () => {
    const index = fs.readFileSync(path.join(tmp, "README.md"), "utf8");
    for (const [key, env] of [
      ["apiKey", "VMHOST_API_KEY"], ["baseUrl", "VMHOST_BASE_URL"], ["requestTimeout", "VMHOST_REQUEST_TIMEOUT"],
      ["createTimeout", "VMHOST_CREATE_TIMEOUT"], ["updateTimeout", "VMHOST_UPDATE_TIMEOUT"], ["deleteTimeout", "VMHOST_DELETE_TIMEOUT"],
      ["maxRequestsPerSecond", "-"], ["routes", "-"],
    ])
      expect(index).toContain(`| \`vmhost:${key}\` | ${env === "-" ? "-" : `\`${env}\``} |`);
    expect(index).toContain("`VMHOST_LOG`");
    const instance = fs.readFileSync(path.join(tmp, "resources/instance.md"), "utf8");
    expect(instance).toContain("| clone | cloneFrom set");
    expect(instance).toMatch(/\| create \| .* \| `locationId`, `tierId`, `templateId`, `hostname`, `cpu`, `memory`, `storage`, `username`, `password` \|/);
  });
});
