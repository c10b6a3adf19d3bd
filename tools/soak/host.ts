/**
 * The engine side of the soak's provider process (worker.ts): spawns it, sends provider calls, and kills it
 * to model an interrupted run. A killed process rejects every call in flight with {@link Interrupted}.
 */
import { fork, type ChildProcess } from "node:child_process";
import * as path from "node:path";
import type { CallFailure, FromWorker, ProviderCall, ToWorker } from "./protocol";

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A provider call failed: the host's error, with the initialization failure when there was one. */
export class ProviderCallError extends Error {
  constructor(readonly failure: CallFailure) {
    super(failure.message);
    this.name = "ProviderCallError";
  }
}

/** The provider process was killed while the call was in flight (the CLI was interrupted). */
export class Interrupted extends Error {
  constructor() {
    super("interrupted: the provider process was killed");
    this.name = "Interrupted";
  }
}

/** One provider process (one dynamic-provider host). */
export class ProviderHost {
  private child: ChildProcess | undefined;
  private ready: Promise<void> | undefined;
  private seq = 0;
  private readonly waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  /** The last stack config: a restarted host is configured again, as the engine configures every new host. */
  private config: Record<string, string> | undefined;

  /**
   * `cacheDir`: the provider's directory (VMHOST_CACHE_DIR) of every process of this host, so that a process started
   * after a kill finds what the killed one wrote there (learned durations, notes of address adds: a user's next run
   * does); "off" when not given.
   */
  constructor(
    private readonly timeWarp: number,
    private readonly options: { workerPath?: string; cacheDir?: string } = {},
  ) {}

  /** Starts the process if none runs (the next `up` after an interruption starts a fresh host). */
  private start(): Promise<void> {
    if (this.ready) return this.ready;
    this.ready = this.spawn().then(async () => {
      if (this.config) await this.rawSend({ kind: "configure", config: this.config });
    });
    return this.ready;
  }

  private spawn(): Promise<void> {
    // Never the user's cache: what is learned on a warped clock from a throwaway simulator must not land there.
    const child = fork(this.options.workerPath ?? path.join(__dirname, "worker.js"), [String(this.timeWarp)], {
      stdio: ["ignore", "ignore", "inherit", "ipc"], serialization: "json", env: { ...process.env, VMHOST_CACHE_DIR: this.options.cacheDir ?? "off" },
    });
    this.child = child;
    return new Promise<void>((resolve, reject) => {
      child.once("error", reject);
      child.on("message", (m: FromWorker) => {
        if ("kind" in m) return resolve();
        const w = this.waiting.get(m.seq);
        if (!w) return;
        this.waiting.delete(m.seq);
        if (m.ok) w.resolve(m.value);
        else w.reject(new ProviderCallError(m.failure));
      });
      child.once("exit", () => {
        if (this.child === child) {
          this.child = undefined;
          this.ready = undefined;
        }
        for (const w of this.waiting.values()) w.reject(new Interrupted());
        this.waiting.clear();
        reject(new Error("the provider process exited before it was ready"));
      });
    });
  }

  private async send(message: DistributiveOmit<ToWorker, "seq">): Promise<unknown> {
    await this.start();
    return this.rawSend(message);
  }

  private rawSend(message: DistributiveOmit<ToWorker, "seq">): Promise<unknown> {
    const child = this.child;
    if (!child) return Promise.reject(new Interrupted());
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      child.send({ ...message, seq } as ToWorker);
    });
  }

  /** Hands the host the stack config (the engine's Configure call). */
  async configure(config: Record<string, string>): Promise<void> {
    this.config = config;
    await this.send({ kind: "configure", config });
  }

  /**
   * A new run starts: the provider forgets what it noted for the previous deployment (provider/registry.ts
   * forgetDeployment), as a fresh process would, without the cost of one per run.
   */
  async newDeployment(): Promise<void> {
    await this.send({ kind: "newDeployment" });
  }

  /** One provider call; rejects with ProviderCallError or Interrupted. */
  call<T>(call: ProviderCall): Promise<T> {
    return this.send({ kind: "call", call }) as Promise<T>;
  }

  /** Kills the process now (SIGKILL: nothing it was doing continues) and waits until it is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGKILL");
    await exited;
  }

  /** Ends the process (at the end of the soak). */
  async close(): Promise<void> {
    await this.kill();
  }
}
