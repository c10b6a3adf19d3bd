/**
 * The JSON state file: one stack's resources, in dependency order (a resource after everything it
 * depends on, as Pulumi's checkpoints are), so deleting in reverse file order is always safe.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { PropertyMap, PropertyValue, SecretsCrypter } from "./values";

/** One resource as recorded in the state. */
export interface ResourceState {
  /** Pulumi URN: `urn:pulumi:<stack>::<project>::<qualified type>::<name>`. */
  urn: string;
  type: string;
  name: string;
  /** false for components and the stack itself (no provider, no id). */
  custom: boolean;
  /** Provider id of a custom resource. */
  id?: string;
  /** URN of the parent resource ("" for the stack). */
  parent: string;
  /** Checked inputs (secrets as `{sig, value}` in memory). */
  inputs: PropertyMap;
  /** Outputs the provider returned (secrets as `{sig, value}` in memory). */
  outputs: PropertyMap;
  /** URNs this resource depends on (dependsOn and the resources its inputs came from). */
  dependencies: string[];
  /** Per input property, the URNs its value came from (Pulumi's propertyDependencies; drives the delete-before-replace cascade). */
  propertyDependencies?: Record<string, string[]>;
  /** Refuse to delete or replace this resource. */
  protect: boolean;
  /** Output names stored and returned as secrets whatever the provider says. */
  additionalSecretOutputs: string[];
  /** The program asked for delete-before-replace. */
  deleteBeforeReplace: boolean;
  /** The program's `ignoreChanges` (Pulumi keeps it in the state: refresh diffs and cascades use it). */
  ignoreChanges?: string[];
  /** The program's `replaceOnChanges` (used when a delete-before-replace cascade diffs this resource). */
  replaceOnChanges?: string[];
  /** Pulumi's `deletedWith`: URN of the resource whose deletion also removes this one (no Delete call then). */
  deletedWith?: string;
  /** Pulumi's `retainOnDelete`: deleting it (destroy, removal, the old half of a replace) sends no Delete call. */
  retainOnDelete?: boolean;
  /** Set when the provider created the resource but it failed to initialize; the next up updates it. */
  initErrors?: string[];
  /** A replaced resource whose deletion is still pending (it failed or the run stopped first). */
  pendingDelete?: boolean;
  /**
   * Deleted ahead of a delete-before-replace whose create has not succeeded yet (Pulumi's `PendingReplacement`,
   * step.go DeleteStep.Apply): the next up replaces it whatever its Diff says and does not delete it again
   * (unless that replace is create-before-delete, where the real engine does call Delete again); a refresh does
   * not read it; a destroy, or an up whose program no longer declares it, drops it without a Delete call
   * (RemovePendingReplaceStep).
   */
  pendingReplacement?: boolean;
}

/**
 * An operation that had started but not finished when the state was last written: Pulumi's
 * `pending_operations` (pkg/resource/operation.go). A run that was killed leaves them behind; the next
 * run reports them (deploy/deployment_executor.go printPendingOperationsWarning).
 */
export interface PendingOperation {
  type: "creating" | "updating" | "deleting" | "reading";
  resource: {
    urn: string;
    type: string;
    /** Known for updates and deletes; a create that was interrupted may or may not have made the resource. */
    id?: string;
    inputs: PropertyMap;
  };
}

/** The whole state file. */
export interface StateFile {
  version: 1;
  project: string;
  stack: string;
  /** Salt for the key that encrypts secrets (see {@link SecretsCrypter}). */
  secretsSalt: string;
  resources: ResourceState[];
  /** Operations under way when the state was written (see {@link PendingOperation}); absent when none. */
  pending_operations?: PendingOperation[];
}

const propertyMap = z.record(z.string(), z.unknown()).transform((m) => m as PropertyMap);

const resourceSchema = z.object({
  urn: z.string(),
  type: z.string(),
  name: z.string(),
  custom: z.boolean(),
  id: z.string().optional(),
  parent: z.string(),
  inputs: propertyMap,
  outputs: propertyMap,
  dependencies: z.array(z.string()),
  propertyDependencies: z.record(z.string(), z.array(z.string())).optional(),
  protect: z.boolean(),
  additionalSecretOutputs: z.array(z.string()),
  deleteBeforeReplace: z.boolean(),
  deletedWith: z.string().optional(),
  retainOnDelete: z.boolean().optional(),
  ignoreChanges: z.array(z.string()).optional(),
  replaceOnChanges: z.array(z.string()).optional(),
  initErrors: z.array(z.string()).optional(),
  pendingDelete: z.boolean().optional(),
  pendingReplacement: z.boolean().optional(),
});

const stateSchema = z.object({
  version: z.literal(1),
  project: z.string(),
  stack: z.string(),
  secretsSalt: z.string(),
  resources: z.array(resourceSchema),
  pending_operations: z
    .array(
      z.object({
        type: z.enum(["creating", "updating", "deleting", "reading"]),
        resource: z.object({ urn: z.string(), type: z.string(), id: z.string().optional(), inputs: propertyMap }),
      }),
    )
    .optional(),
});

/** The passphrase that keys secret encryption in the state (Pulumi's own variable). */
export function statePassphrase(env: NodeJS.ProcessEnv): string {
  return env.PULUMI_CONFIG_PASSPHRASE ?? "";
}

/**
 * Reads the state file, decrypting secrets. A missing file is an empty stack. The file belongs to one
 * project and stack: using it for another is refused, because its resources would be deleted.
 */
export function loadState(file: string, project: string, stack: string, passphrase: string): StateFile {
  if (!fs.existsSync(file)) {
    return { version: 1, project, stack, secretsSalt: SecretsCrypter.newSalt(), resources: [] };
  }
  const parsed = stateSchema.safeParse(JSON.parse(fs.readFileSync(file, "utf8")));
  if (!parsed.success) {
    throw new Error(`state file ${file} is not a local-engine state file: ${parsed.error.message}`);
  }
  const state = parsed.data;
  if (state.project !== project || state.stack !== stack) {
    throw new Error(
      `state file ${file} belongs to project "${state.project}" stack "${state.stack}", not "${project}" stack "${stack}"`,
    );
  }
  const crypter = new SecretsCrypter(passphrase, state.secretsSalt);
  return {
    ...state,
    resources: state.resources.map((r) => ({
      ...r,
      inputs: crypter.decryptDeep(r.inputs) as PropertyMap,
      outputs: crypter.decryptDeep(r.outputs) as PropertyMap,
    })),
    ...(state.pending_operations
      ? {
          pending_operations: state.pending_operations.map((op) => ({
            ...op,
            resource: { ...op.resource, inputs: crypter.decryptDeep(op.resource.inputs) as PropertyMap },
          })),
        }
      : {}),
  };
}

/** Writes the state file atomically (temp file + rename), secrets encrypted. */
export function saveState(file: string, state: StateFile, passphrase: string): void {
  const crypter = new SecretsCrypter(passphrase, state.secretsSalt);
  const onDisk: StateFile = {
    ...state,
    resources: state.resources.map((r) => ({
      ...r,
      inputs: crypter.encryptDeep(r.inputs as PropertyValue) as PropertyMap,
      outputs: crypter.encryptDeep(r.outputs as PropertyValue) as PropertyMap,
    })),
    ...(state.pending_operations?.length
      ? {
          pending_operations: state.pending_operations.map((op) => ({
            ...op,
            resource: { ...op.resource, inputs: crypter.encryptDeep(op.resource.inputs as PropertyValue) as PropertyMap },
          })),
        }
      : { pending_operations: undefined }),
  };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(onDisk, null, 2) + "\n");
  fs.renameSync(tmp, file);
}

/**
 * Takes the state file's lock (`<file>.lock`, holding the owner's pid) so two runs never write one state
 * at once; a lock whose process is gone is taken over. Returns the release function.
 */
export function lockState(file: string): () => void {
  const lock = `${file}.lock`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: "wx" });
      return () => fs.rmSync(lock, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const owner = Number(fs.readFileSync(lock, "utf8").trim());
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
        throw new Error(`state file ${file} is in use by another engine run (pid ${owner}); if it is not, remove ${lock}`);
      }
      fs.rmSync(lock, { force: true }); // stale: its owner exited without releasing it
    }
  }
  throw new Error(`cannot lock state file ${file}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
