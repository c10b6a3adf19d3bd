// Prints the mutation score per folder from Stryker's JSON reports (reports/mutation/<folder>.json, written by
// `make mutate`), counting the mutants listed in tools/mutate/equivalent.txt as equivalent: they are left out of
// the score and printed apart, and a listed mutant that no longer survives is reported as stale.
// Plain ESM (not TypeScript) so it runs without a build step.
// Score = detected (killed + timed out) / (detected + survived + no coverage); compile errors are not mutants.
import * as fs from "node:fs";
import * as path from "node:path";

const FOLDERS = ["provider/api", "provider/wait", "provider/resources", "tools/local-engine"];
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "..");
const reportsDir = path.join(root, "reports", "mutation");

/** `path:line:col Mutator | reason` lines; `#` starts a comment. */
function readEquivalents() {
  const file = path.join(root, "tools", "mutate", "equivalent.txt");
  const list = new Map();
  for (const raw of fs.readFileSync(file, "utf8").split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const m = /^(\S+:\d+:\d+) (\w+) \| (.+)$/.exec(line);
    if (!m) throw new Error(`${file}: cannot read "${line}" (expected: path:line:col Mutator | reason)`);
    list.set(`${m[1]} ${m[2]}`, { reason: m[3], used: false });
  }
  return list;
}

const equivalents = readEquivalents();
const totals = new Map(FOLDERS.map((f) => [f, { detected: 0, survived: 0, noCoverage: 0, equivalent: 0, errors: 0 }]));
const reports = fs.existsSync(reportsDir) ? fs.readdirSync(reportsDir).filter((f) => f.endsWith(".json")) : [];
if (reports.length === 0) {
  console.error(`no reports under ${path.relative(root, reportsDir)}: run make mutate first`);
  process.exit(1);
}
for (const report of reports) {
  const { files } = JSON.parse(fs.readFileSync(path.join(reportsDir, report), "utf8"));
  for (const [file, { mutants }] of Object.entries(files)) {
    const rel = path.isAbsolute(file) ? path.relative(root, file) : file;
    const folder = FOLDERS.find((f) => rel.startsWith(f + "/"));
    if (!folder) continue;
    for (const m of mutants) {
      const key = `${rel}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName}`;
      const t = totals.get(folder);
      if (m.status === "Killed" || m.status === "Timeout") t.detected++;
      else if (m.status === "CompileError" || m.status === "RuntimeError" || m.status === "Ignored") t.errors++;
      else if (equivalents.has(key) && m.status === "Survived") {
        equivalents.get(key).used = true;
        t.equivalent++;
      } else if (m.status === "Survived") t.survived++;
      else if (m.status === "NoCoverage") t.noCoverage++;
    }
  }
}
console.log("folder               score  detected survived no-cov equivalent");
for (const [folder, t] of totals) {
  const counted = t.detected + t.survived + t.noCoverage;
  const score = counted === 0 ? "  n/a" : `${((100 * t.detected) / counted).toFixed(1)}%`;
  console.log(`${folder.padEnd(20)} ${score.padStart(6)} ${String(t.detected).padStart(9)} ${String(t.survived).padStart(8)} ${String(t.noCoverage).padStart(6)} ${String(t.equivalent).padStart(10)}`);
}
for (const [key, e] of equivalents) if (!e.used) console.log(`stale equivalent entry (not a surviving mutant in these reports): ${key}`);
