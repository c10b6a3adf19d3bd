// Prints the mutation score per folder from Stryker's JSON reports (reports/mutation/<folder>-<piece>.json and
// narrowed runs' reports, written by `make mutate`), counting the mutants listed in tools/mutate/equivalent.txt as
// equivalent: they are left out of the score and printed apart, and a listed mutant that no longer survives is
// reported as stale. A file found in several reports counts once, from the newest report (a narrowed run after
// new tests is newer than the piece's run). A folder is "complete" when every one of its pieces has a report;
// its time is the sum of the last run time of each piece (reports/mutate-runs.log, written by run.mjs).
// Plain ESM (not TypeScript) so it runs without a build step.
// Score = detected (killed + timed out) / (detected + survived + no coverage); compile errors and ignored
// (static) mutants are not counted.
import * as fs from "node:fs";
import * as path from "node:path";
import { FOLDERS as PIECES } from "../../stryker.config.mjs";

const FOLDERS = { api: "provider/api", wait: "provider/wait", resources: "provider/resources", "local-engine": "tools/local-engine" };
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

/** Last run time (seconds) of each piece, from run.mjs's log. */
function runTimes() {
  const file = path.join(root, "reports", "mutate-runs.log");
  const times = new Map();
  if (!fs.existsSync(file)) return times;
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    const m = /^(\S+) (\S+) (\d+)s exit=0$/.exec(line.trim());
    if (m) times.set(m[2], { seconds: Number(m[3]), at: m[1] });
  }
  return times;
}

const equivalents = readEquivalents();
const reports = fs.existsSync(reportsDir) ? fs.readdirSync(reportsDir).filter((f) => f.endsWith(".json")) : [];
if (reports.length === 0) {
  console.error(`no reports under ${path.relative(root, reportsDir)}: run make mutate first`);
  process.exit(1);
}
// Newest report first: the first report naming a file is the one counted for it.
const byAge = reports
  .map((f) => ({ f, mtime: fs.statSync(path.join(reportsDir, f)).mtimeMs }))
  .sort((a, b) => b.mtime - a.mtime);
const counted = new Map(); // file -> mutants
for (const { f } of byAge) {
  const { files } = JSON.parse(fs.readFileSync(path.join(reportsDir, f), "utf8"));
  for (const [file, { mutants }] of Object.entries(files)) {
    const rel = path.isAbsolute(file) ? path.relative(root, file) : file;
    if (!counted.has(rel)) counted.set(rel, mutants);
  }
}
const totals = new Map(Object.keys(FOLDERS).map((f) => [f, { killed: 0, timeout: 0, survived: 0, noCoverage: 0, equivalent: 0, errors: 0 }]));
for (const [rel, mutants] of counted) {
  const folder = Object.keys(FOLDERS).find((f) => rel.startsWith(FOLDERS[f] + "/"));
  if (!folder) continue;
  const t = totals.get(folder);
  for (const m of mutants) {
    const key = `${rel}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName}`;
    if (m.status === "Killed") t.killed++;
    else if (m.status === "Timeout") t.timeout++;
    else if (m.status === "CompileError" || m.status === "RuntimeError" || m.status === "Ignored") t.errors++;
    // A listed mutant that survived, or that no test reaches because no input can (a branch the types require
    // but the wire format never takes), is left out of the score.
    else if (equivalents.has(key) && (m.status === "Survived" || m.status === "NoCoverage")) {
      equivalents.get(key).used = true;
      t.equivalent++;
    } else if (m.status === "Survived") t.survived++;
    else if (m.status === "NoCoverage") t.noCoverage++;
  }
}
const times = runTimes();
console.log("folder               score  mutants killed timeout survived no-cov equivalent  run time  complete");
for (const [folder, t] of totals) {
  const detected = t.killed + t.timeout;
  const all = detected + t.survived + t.noCoverage;
  const score = all === 0 ? "  n/a" : `${((100 * detected) / all).toFixed(1)}%`;
  const pieces = PIECES[folder].map((p) => `${folder}-${p.piece}`);
  const done = pieces.filter((id) => fs.existsSync(path.join(reportsDir, `${id}.json`)));
  const seconds = pieces.reduce((sum, id) => sum + (times.get(id)?.seconds ?? 0), 0);
  const time = seconds ? `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s` : "-";
  const complete = done.length === pieces.length ? "yes" : `no (${done.length}/${pieces.length} pieces)`;
  console.log(
    `${FOLDERS[folder].padEnd(20)} ${score.padStart(6)} ${String(all + t.equivalent).padStart(8)} ${String(t.killed).padStart(6)} ${String(t.timeout).padStart(7)} ` +
      `${String(t.survived).padStart(8)} ${String(t.noCoverage).padStart(6)} ${String(t.equivalent).padStart(10)} ${time.padStart(9)}  ${complete}`,
  );
}
for (const [key, e] of equivalents) if (!e.used) console.log(`stale equivalent entry (not a surviving mutant in these reports): ${key}`);
