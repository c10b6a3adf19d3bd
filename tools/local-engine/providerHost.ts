/**
 * The real dynamic-provider host of `@pulumi/pulumi` (`cmd/dynamic-provider`), spawned from the PROJECT's
 * node_modules (so the serialized `__provider` requires the user's installed packages), and a typed client
 * for the ResourceProvider calls the engine makes.
 */
import { ChildProcess, spawn } from "node:child_process";
import * as readline from "node:readline";
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as statusproto from "@pulumi/pulumi/proto/status_pb";
import { CheckFailure, DiffResult, InitFailedError } from "./providerTypes";
import { PropertyMap } from "./values";

/** Where the host's own output goes (its console.log / console.error lines). */
export type HostOutput = (stream: "stdout" | "stderr", line: string) => void;

function toStruct(m: PropertyMap): Struct {
  return Struct.fromJavaScript(m as Record<string, never>);
}

function fromStruct(s: Struct | undefined): PropertyMap {
  return (s?.toJavaScript() ?? {}) as PropertyMap;
}

/** A gRPC error's own message, without grpc-js's "2 UNKNOWN: " prefix. */
function errorMessage(err: grpc.ServiceError): string {
  return err.details || err.message;
}

/** Finds an ErrorResourceInitFailed detail in a failed call's trailers, as the host sends it. */
function initFailure(err: grpc.ServiceError): InitFailedError | undefined {
  const raw = err.metadata?.get("grpc-status-details-bin") ?? [];
  for (const value of raw) {
    const status = statusproto.Status.deserializeBinary(typeof value === "string" ? Buffer.from(value, "base64") : value);
    for (const detail of status.getDetailsList()) {
      if (detail.getTypeName() !== "pulumirpc.ErrorResourceInitFailed") continue;
      const failed = provproto.ErrorResourceInitFailed.deserializeBinary(detail.getValue_asU8());
      return new InitFailedError(errorMessage(err), failed.getId(), fromStruct(failed.getProperties()), failed.getReasonsList());
    }
  }
  return undefined;
}

/** How long a dynamic-provider host may take to print its port (it loads @pulumi/pulumi: seconds on a loaded machine). */
export const HOST_START_TIMEOUT_MS = 60_000;

/** A running dynamic-provider host and a client to it. */
export class ProviderHost {
  private constructor(
    private readonly child: ChildProcess,
    private readonly client: provrpc.ResourceProviderClient,
  ) {}

  /**
   * Spawns `node <dynamicProviderScript> <engineAddress>` in `cwd` and connects once it prints its port.
   * The host needs the engine address argument, and reads the project name from PULUMI_NODEJS_PROJECT
   * (for `config.get("key")` without a namespace).
   */
  static async start(opts: {
    script: string;
    engineAddress: string;
    cwd: string;
    env: NodeJS.ProcessEnv;
    onOutput: HostOutput;
    /** How long the host may take to print its port (default {@link HOST_START_TIMEOUT_MS}). */
    startTimeoutMs?: number;
  }): Promise<ProviderHost> {
    const child = spawn(process.execPath, [opts.script, opts.engineAddress], {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    readline.createInterface({ input: child.stderr! }).on("line", (l) => opts.onOutput("stderr", l));
    const port = await new Promise<number>((resolve, reject) => {
      let seenPort = false;
      // A host that neither prints a port nor exits (stuck loading a program's dependencies) must not hold the run
      // forever: it is killed and the run fails naming the wait.
      const timeoutMs = opts.startTimeoutMs ?? HOST_START_TIMEOUT_MS;
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`dynamic-provider host printed no port within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      readline.createInterface({ input: child.stdout! }).on("line", (line) => {
        // The first stdout line is the port; everything after it is the provider's own console output.
        if (!seenPort && /^\d+$/.test(line.trim())) {
          seenPort = true;
          clearTimeout(timer);
          resolve(Number(line.trim()));
        } else {
          opts.onOutput("stdout", line);
        }
      });
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        if (!seenPort) reject(new Error(`dynamic-provider host exited with code ${code} before printing its port`));
      });
    });
    const client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    return new ProviderHost(child, client);
  }

  /** Runs one unary call; a failure becomes an Error with the provider's message (or an InitFailedError). */
  private call<Res>(start: (cb: (err: grpc.ServiceError | null, res: Res) => void) => unknown): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      start((err, res) => {
        if (err) reject(initFailure(err) ?? new Error(errorMessage(err)));
        else resolve(res);
      });
    });
  }

  /**
   * Hands the stack config to the host; its provider's `configure` sees it on first use. Keys are full
   * config keys (`vmhost:apiKey`), values plain strings (secrets decrypted: the provider needs them).
   */
  async configure(config: Record<string, string>): Promise<void> {
    const req = new provproto.ConfigureRequest();
    req.setArgs(Struct.fromJavaScript(config));
    const vars = req.getVariablesMap();
    for (const [k, v] of Object.entries(config)) vars.set(k, v);
    req.setAcceptsecrets(false);
    req.setAcceptresources(false);
    await this.call<provproto.ConfigureResponse>((cb) => this.client.configure(req, cb));
  }

  /** Check: validated inputs, or failures naming properties. */
  async check(urn: string, olds: PropertyMap, news: PropertyMap): Promise<{ inputs: PropertyMap; failures: CheckFailure[] }> {
    const req = new provproto.CheckRequest();
    req.setUrn(urn);
    req.setOlds(toStruct(olds));
    req.setNews(toStruct(news));
    const res = await this.call<provproto.CheckResponse>((cb) => this.client.check(req, cb));
    return {
      inputs: fromStruct(res.getInputs()),
      failures: res.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  /** Diff of the old outputs against the new checked inputs. */
  async diff(urn: string, id: string, olds: PropertyMap, news: PropertyMap, oldInputs: PropertyMap): Promise<DiffResult> {
    const req = new provproto.DiffRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setOlds(toStruct(olds));
    req.setNews(toStruct(news));
    req.setOldInputs(toStruct(oldInputs));
    const res = await this.call<provproto.DiffResponse>((cb) => this.client.diff(req, cb));
    const changes = res.getChanges();
    const DiffChanges = provproto.DiffResponse.DiffChanges;
    return {
      changes: changes === DiffChanges.DIFF_SOME ? true : changes === DiffChanges.DIFF_NONE ? false : undefined,
      replaces: res.getReplacesList(),
      deleteBeforeReplace: res.getDeletebeforereplace(),
    };
  }

  /** Create; throws {@link InitFailedError} when the resource was created but failed to initialize. */
  async create(urn: string, properties: PropertyMap): Promise<{ id: string; outputs: PropertyMap }> {
    const req = new provproto.CreateRequest();
    req.setUrn(urn);
    req.setProperties(toStruct(properties));
    const res = await this.call<provproto.CreateResponse>((cb) => this.client.create(req, cb));
    return { id: res.getId(), outputs: fromStruct(res.getProperties()) };
  }

  /** Read the live resource: an empty id means it is gone. */
  async read(urn: string, id: string, properties: PropertyMap, inputs: PropertyMap): Promise<{ id: string; outputs: PropertyMap; inputs?: PropertyMap }> {
    const req = new provproto.ReadRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setProperties(toStruct(properties));
    req.setInputs(toStruct(inputs));
    const res = await this.call<provproto.ReadResponse>((cb) => this.client.read(req, cb));
    return { id: res.getId(), outputs: fromStruct(res.getProperties()), inputs: res.hasInputs() ? fromStruct(res.getInputs()) : undefined };
  }

  /** Update; throws {@link InitFailedError} when the update failed half-way with known outputs. */
  async update(urn: string, id: string, olds: PropertyMap, news: PropertyMap, oldInputs: PropertyMap): Promise<PropertyMap> {
    const req = new provproto.UpdateRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setOlds(toStruct(olds));
    req.setNews(toStruct(news));
    req.setOldInputs(toStruct(oldInputs));
    const res = await this.call<provproto.UpdateResponse>((cb) => this.client.update(req, cb));
    return fromStruct(res.getProperties());
  }

  /** Delete (the provider treats "already gone" as success). */
  async delete(urn: string, id: string, properties: PropertyMap, oldInputs: PropertyMap): Promise<void> {
    const req = new provproto.DeleteRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setProperties(toStruct(properties));
    req.setOldInputs(toStruct(oldInputs));
    await this.call<Empty>((cb) => this.client.delete(req, cb));
  }

  /** Kills the host process at once (the engine is exiting immediately). */
  kill(): void {
    this.client.close();
    this.child.kill("SIGKILL");
  }

  /** Closes the client and stops the host process (it has no shutdown RPC; it exits on SIGTERM). */
  async stop(): Promise<void> {
    this.client.close();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
      this.child.kill("SIGTERM");
      await exited;
    }
  }
}
