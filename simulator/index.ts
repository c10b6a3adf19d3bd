/**
 * `pulumi-vmhost/simulator`: a local implementation of the VM-hosting API for offline tests and CI
 * (like LocalStack for AWS). Start it in-process with {@link startSimulator}, or run the `vmhost-sim`
 * command. See simulator/README.md for the seeded catalogue, the admin API under `/__sim`, and faults.
 */
import type { AddressInfo } from "node:net";
import * as http from "node:http";
import type { Clock } from "./clock";
import type { FaultsInput } from "./faults";
import { Simulator, type RequestLogEntry, type SimulatorOptions } from "./server";

export { ManualClock, systemClock, type Clock } from "./clock";
export type { FaultsInput } from "./faults";
export type { RequestLogEntry, SimulatorOptions } from "./server";
export { DEFAULT_SEED } from "./seed";
export { BUSY_MESSAGE } from "./errors";

/** A running simulator. */
export interface RunningSimulator {
  /** Base URL of the API, ending in `/v1` (e.g. `http://127.0.0.1:41234/v1`). */
  readonly url: string;
  /** The key to send in `x-apikey`. */
  readonly apiKey: string;
  /** Base URL of the admin API (`.../__sim`). */
  readonly adminUrl: string;
  /** The TCP port it listens on. */
  readonly port: number;
  /** The clock it runs on (the injected one, or the system clock). */
  readonly clock: Clock;
  /** Back to the seeded state (same as `POST /__sim/reset`). */
  reset(): void;
  /** Sets faults (same as `POST /__sim/faults`; throws on invalid input). */
  setFaults(faults: FaultsInput): void;
  /** The request log so far (same as `GET /__sim/requests`). */
  requests(): RequestLogEntry[];
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/**
 * Starts a simulator on `127.0.0.1` (port 0 = any free port by default) and resolves once it listens.
 *
 * ```ts
 * const sim = await startSimulator({ opSeconds: 0.05 });
 * // ... createClient({ baseUrl: sim.url, apiKey: sim.apiKey }) ...
 * await sim.close();
 * ```
 */
export async function startSimulator(opts: SimulatorOptions = {}): Promise<RunningSimulator> {
  const sim = new Simulator(opts);
  const server = http.createServer(sim.listener);
  server.keepAliveTimeout = 5000;
  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  let closed: Promise<void> | undefined;
  return {
    url: `${origin}/v1`,
    apiKey: sim.apiKey,
    adminUrl: `${origin}/__sim`,
    port,
    clock: sim.clock,
    reset: () => sim.reset(),
    setFaults: (faults) => sim.faults.apply(faults),
    requests: () => [...sim.log],
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
