// Runs Stryker once per piece of each folder (stryker.config.mjs FOLDERS), one piece after the other, at the
// lowest CPU priority (the machine is shared), so each finished piece's results are saved even when a later
// one is interrupted. MUTATE_FOLDERS="api wait" picks folders, MUTATE_PIECES="common instance" pieces.
// Each piece's duration and exit code is appended to reports/mutate-runs.log (read by score.mjs).
// Plain ESM (not TypeScript) so it runs without a build step.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { FOLDERS } from "../../stryker.config.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "..");
const folders = (process.env.MUTATE_FOLDERS ?? Object.keys(FOLDERS).join(" ")).split(/\s+/).filter(Boolean);
const only = process.env.MUTATE_PIECES?.split(/\s+/).filter(Boolean);
fs.mkdirSync(path.join(root, "reports"), { recursive: true });
let failed = false;
for (const folder of folders) {
  if (!FOLDERS[folder]) throw new Error(`MUTATE_FOLDERS: unknown folder ${folder} (expected ${Object.keys(FOLDERS).join(", ")})`);
  for (const { piece } of FOLDERS[folder]) {
    if (only && !only.includes(piece)) continue;
    const started = Date.now();
    const env = { ...process.env, MUTATE_FOLDER: folder, MUTATE_PIECE: piece };
    delete env.MUTATE_FILES;
    console.log(`\n=== make mutate: ${folder} / ${piece}`);
    const r = spawnSync("nice", ["-n", "19", "npx", "stryker", "run", "stryker.config.mjs"], { cwd: root, env, stdio: "inherit" });
    const seconds = Math.round((Date.now() - started) / 1000);
    fs.appendFileSync(path.join(root, "reports", "mutate-runs.log"), `${new Date().toISOString()} ${folder}-${piece} ${seconds}s exit=${r.status ?? r.signal}\n`);
    if (r.status !== 0) failed = true;
    if (r.signal) process.exit(1); // interrupted: stop here, the finished pieces are saved
  }
}
process.exit(failed ? 1 : 0);
