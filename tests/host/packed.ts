/**
 * Installs the package the way users get it (the tarball `make pack` writes) into a throwaway project, for
 * tests that run it through the real dynamic-provider host.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

/** The project root and the packed tarball. */
export const ROOT = path.join(__dirname, "..", "..");
export const TARBALL = path.join(ROOT, ".pack", "pulumi-vmhost.tgz");

/** Unpacks the packed package into `<dir>/node_modules/pulumi-vmhost` and links its dependencies (as npm would place them). */
export function installPacked(dir: string, projectName = "host-test"): void {
  if (!fs.existsSync(TARBALL)) throw new Error(`${TARBALL} is missing: run \`make pack\` first (make test does)`);
  const modules = path.join(dir, "node_modules");
  const pkgDir = path.join(modules, "pulumi-vmhost");
  fs.mkdirSync(pkgDir, { recursive: true });
  execFileSync("tar", ["-xzf", TARBALL, "-C", pkgDir, "--strip-components=1"]);
  const manifest = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  for (const dep of Object.keys(manifest.dependencies)) {
    const target = path.join(modules, dep);
    if (fs.existsSync(target)) continue;
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.symlinkSync(path.join(ROOT, "node_modules", dep), target, "dir");
  }
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: projectName, private: true }));
}
