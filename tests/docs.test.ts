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
});
