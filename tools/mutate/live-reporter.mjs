// A Stryker reporter that appends each mutant's result as soon as it is tested, to reports/live/<run id>.log
// (one line: status path:line:col Mutator -> replacement). Stryker's own reports are written only when a run
// ends, and a piece can take an hour on this shared machine: with this log, tests for the survivors can be
// written while the piece still runs, and an interrupted run still shows what it found.
// Plain ESM (not TypeScript) so Stryker loads it without a build step (stryker.config.mjs appendPlugins).
import * as fs from "node:fs";
import * as path from "node:path";
import { PluginKind, declareClassPlugin } from "@stryker-mutator/api/plugin";

class LiveReporter {
  static inject = ["options"];
  constructor(options) {
    const id = path.basename(options.jsonReporter.fileName, ".json");
    this.file = path.resolve("reports", "live", `${id}.log`);
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    fs.writeFileSync(this.file, `# started ${new Date().toISOString()}\n`);
  }
  onMutantTested(result) {
    const { line, column } = result.location.start;
    // 1-based, as in the JSON report and tools/mutate/equivalent.txt.
    const where = `${path.relative(process.cwd(), result.fileName)}:${line}:${column}`;
    fs.appendFileSync(this.file, `${result.status} ${where} ${result.mutatorName} -> ${JSON.stringify(result.replacement ?? "")}\n`);
  }
  onMutationTestReportReady() {
    fs.appendFileSync(this.file, `# finished ${new Date().toISOString()}\n`);
  }
}

export const strykerPlugins = [declareClassPlugin(PluginKind.Reporter, "live", LiveReporter)];
