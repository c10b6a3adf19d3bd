/**
 * Messages, docs and examples point users at SDK functions that exist: every `getX` / `getXOutput` named in
 * the resources' code (check and error messages), the README, the examples and docs/ is a function of the
 * package (a message once said "see getLocations" when there was none).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { functionSchemas } from "../sdk/nodejs/functions/registry";

const root = path.join(__dirname, "..");

/** Names that look like functions but are other APIs (Pulumi's, Node's, the gRPC request's). */
const NOT_OURS = new Set([
  "getClient", "getProvider", "getNumber", "getBoolean", "getSecret", "getObject", "getProject", "getStack", "getMonitor",
  "getName", "getType", "getDependenciesList", "getProtect", "getDeletedwith", "getDeletebeforereplace",
  "getAdditionalsecretoutputsList", "getXOutput", "getFunctionLocationAsync",
]);

function files(dir: string, exts: string[]): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" ? [] : files(full, exts);
    return exts.some((x) => e.name.endsWith(x)) && !e.name.endsWith(".test.ts") ? [full] : [];
  });
}

it("every getX a user is pointed at exists", () => {
  const ours = new Set(Object.keys(functionSchemas));
  const sources = [
    ...files(path.join(root, "provider/resources"), [".ts"]),
    ...files(path.join(root, "docs"), [".md"]),
    ...files(path.join(root, "examples"), [".ts", ".md"]),
    path.join(root, "README.md"),
  ];
  const missing: string[] = [];
  for (const file of sources) {
    for (const m of fs.readFileSync(file, "utf8").matchAll(/\bget[A-Z][A-Za-z]*\b/g)) {
      const name = m[0].replace(/Output$/, "");
      if (!ours.has(name) && !NOT_OURS.has(m[0])) missing.push(`${path.relative(root, file)}: ${m[0]}`);
    }
  }
  expect([...new Set(missing)]).toEqual([]);
});
