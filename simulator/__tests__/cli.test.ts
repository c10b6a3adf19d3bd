/**
 * The `vmhost-sim` command: its first stdout line is `listening on <base url>`, it serves with the
 * flags it was given, and it stops cleanly on SIGTERM. The spawned-bin test runs the built package
 * (`make build`, which `make test` does first).
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as readline from "node:readline";
import { main } from "../cli";
import type { Json } from "./harness";

describe("cli main (in process)", () => {
  it("prints `listening on <url>` first and applies --api-key and --op-seconds", async () => {
    const lines: string[] = [];
    const sim = await main(["--port", "0", "--api-key", "cli-key", "--op-seconds", "0"], (l) => lines.push(l));
    try {
      expect(lines[0]).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\/v1$/);
      expect(lines[0]).toBe(`listening on ${sim.url}`);
      expect(sim.apiKey).toBe("cli-key");
      const res = await fetch(`${sim.url}/instance/create`, {
        method: "POST",
        headers: { "x-apikey": "cli-key", "content-type": "application/x-www-form-urlencoded" },
        body: "location_id=1&tier_id=1&template_id=2&hostname=a&cpu=1&memory=1&storage=10&username=u&password=p4ssword&use_public_ip=0",
      });
      const uuid = ((await res.json()) as Json).data.uuid;
      // --op-seconds 0: the operation has ended by the next request.
      const detail: Json = await (await fetch(`${sim.url}/instance/${uuid}/detail`, { headers: { "x-apikey": "cli-key" } })).json();
      expect(detail.data.status).toBe("Running");
    } finally {
      await sim.close();
    }
  });

  it("applies fault flags (--rate-limit) and refuses malformed numbers", async () => {
    const sim = await main(["--rate-limit", "1", "--error-rate", "0"], () => undefined);
    try {
      const faults = await (await fetch(`${sim.adminUrl}/faults`)).json();
      expect(faults).toMatchObject({ rateLimitPerSecond: 1, errorRate: 0 });
    } finally {
      await sim.close();
    }
    await expect(main(["--port", "abc"], () => undefined)).rejects.toThrow(/--port/);
  });
});

describe("bin/vmhost-sim.js (built)", () => {
  const root = path.resolve(__dirname, "../..");

  it("prints `listening on <url>` first, serves, and exits 0 on SIGTERM", async () => {
    if (!fs.existsSync(path.join(root, "dist/simulator/cli.js"))) throw new Error("dist/ is missing: run `make build` first");
    const child = spawn(process.execPath, [path.join(root, "bin/vmhost-sim.js"), "--port", "0", "--seed", "cli"], { stdio: ["ignore", "pipe", "inherit"] });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      const lines = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
      const first = (await lines.next()).value as string;
      expect(first).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const key = ((await lines.next()).value as string).replace(/^api key: /, "");
      const url = first.replace(/^listening on /, "");
      const res = await fetch(`${url}/locations`, { headers: { "x-apikey": key } });
      expect(res.status).toBe(200);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });
});
