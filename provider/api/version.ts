/**
 * The package version, for the User-Agent header. Read from the package's own package.json at run time
 * (walking up from this file): importing the JSON would make tsc copy a package.json into dist/, which
 * would shadow the real one for every module under dist/.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

let cached: string | undefined;

/** The version of pulumi-vmhost (`"0.0.0"` if its package.json cannot be found). */
export function packageVersion(): string {
  if (cached !== undefined) return cached;
  cached = "0.0.0";
  let dir = __dirname;
  for (let depth = 0; depth < 6; depth += 1) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown; version?: unknown };
      if (pkg.name === "pulumi-vmhost" && typeof pkg.version === "string") {
        cached = pkg.version;
        break;
      }
    } catch {
      // no package.json at this level: keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return cached;
}

/** The User-Agent the client sends: `pulumi-vmhost/<version>`. */
export function userAgent(): string {
  return `pulumi-vmhost/${packageVersion()}`;
}
