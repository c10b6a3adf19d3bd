/**
 * Whether the Pulumi engine that started this dynamic-provider host is still there, checked before each request.
 *
 * The Pulumi CLI starts every plugin in a process group of its own (pulumi/pulumi
 * sdk/go/common/resource/plugin/plugin.go: `Setpgid`), through a `/bin/sh` wrapper that outlives it
 * (sdk/nodejs/dist/pulumi-resource-pulumi-nodejs). So when the CLI is killed (`kill -9`, a CI runner cancelling the
 * job), this host keeps running: the creates still queued behind the host's rate limit went out afterwards, their
 * answers went nowhere, and the next `pulumi up`, started at once, listed hostnames before they landed and created
 * its own VMs: twins in no state (fleet audit: 17 of 30 VMs twice). Nothing another process did can be checked for
 * twins; what can be done is to send nothing once the engine is gone. The host is started as
 * `node .../cmd/dynamic-provider/index.js <engine address>` (cmd/dynamic-provider/index.ts `main`): a TCP connect to
 * that address is refused once the engine's process is gone.
 *
 * Checked fresh before every write (a create, an add: what must not land for nobody), and at most once a second
 * before reads (a wait polling for a dead engine only spends the account's rate limit). Once gone, every request is
 * refused. Outside the host (tests calling the provider's methods, SDK functions in a program) there is no engine
 * address and nothing is checked.
 */
import * as net from "node:net";

/** A request was not sent: the Pulumi engine that asked for it has exited. */
export class EngineGoneError extends Error {
  override readonly name = "EngineGoneError";
}

/** The engine's address when this process is Pulumi's dynamic-provider host (its first argument), else undefined. */
export function engineAddressOf(argv: readonly string[] = process.argv): string | undefined {
  if (!/[\\/]cmd[\\/]dynamic-provider([\\/]index(\.js)?)?$/.test(argv[1] ?? "")) return undefined;
  const address = argv[2];
  return address !== undefined && /^[\w.-]+:\d+$/.test(address) ? address : undefined;
}

/** What one look at the engine's address found: gone only when the connection is refused (the port is closed). */
export type Probe = (address: string) => Promise<"alive" | "gone" | "unknown">;

/** Connects to the engine's address and hangs up (1 s at most; anything but a refusal counts as not gone). */
export const tcpProbe: Probe = (address) =>
  new Promise((resolve) => {
    const colon = address.lastIndexOf(":");
    const socket = net.connect({ host: address.slice(0, colon), port: Number(address.slice(colon + 1)) });
    const done = (answer: "alive" | "gone" | "unknown") => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1_000, () => done("unknown"));
    socket.once("connect", () => done("alive"));
    socket.once("error", (e: NodeJS.ErrnoException) => done(e.code === "ECONNREFUSED" ? "gone" : "unknown"));
  });

/** How long a read may go on a look at the engine that said it is there. */
const READ_RECHECK_MS = 1_000;

/**
 * The check to run before each request (ClientOptions.beforeSend): throws EngineGoneError once the engine at
 * `address` is gone. `now` and `probe` for tests.
 */
export function engineGuard(address: string, probe: Probe = tcpProbe, now: () => number = Date.now): (request: { method: string }) => Promise<void> {
  let gone = false;
  let aliveSeenAt = -Infinity;
  return async (request) => {
    if (!gone && (request.method !== "GET" || now() - aliveSeenAt >= READ_RECHECK_MS)) {
      const seen = await probe(address);
      if (seen === "gone") gone = true;
      else if (seen === "alive") aliveSeenAt = now();
    }
    if (gone)
      throw new EngineGoneError(
        `not sent: the Pulumi engine that asked for it (${address}) has exited (was pulumi killed?). Nothing more is sent from ` +
          "this provider process, so that only the next `pulumi up` makes changes (a create sent now would land for nobody).",
      );
  };
}

/** The guard of this process: undefined outside Pulumi's dynamic-provider host. */
export function processEngineGuard(): ((request: { method: string }) => Promise<void>) | undefined {
  const address = engineAddressOf();
  return address === undefined ? undefined : (guard ??= engineGuard(address));
}
let guard: ((request: { method: string }) => Promise<void>) | undefined;
