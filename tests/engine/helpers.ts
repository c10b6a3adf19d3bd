/**
 * Test helpers: a throwaway Pulumi project built from tests/engine/fixtures (the program, and the
 * fixture-cloud dynamic provider copied into its node_modules so the closure serializer treats it as an
 * installed package), plus access to the fixture cloud's JSON file.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { EngineCommand, EngineOptions, EngineResult, runEngine } from "../../tools/local-engine";

const FIXTURES = path.join(__dirname, "fixtures");
const REPO_PULUMI = path.join(__dirname, "..", "..", "node_modules", "@pulumi");

/** The API key the fixture provider insists on (it must reach `configure`, and never the state). */
export const FIXTURE_API_KEY = "sk-FIXTURE-KEY-8f3a";

/** One resource of the fixture program (see fixtures/project/index.js). */
export interface ItemSpec {
  name: string;
  /** A ComponentResource instead of an Item (size is then ignored). */
  group?: boolean;
  size: number | string;
  zone?: string;
  /** The zone is this item's zone output (a property dependency). */
  zoneFrom?: string;
  /** The `name` input, when it differs from the resource name. */
  itemName?: string;
  /** Old resource names this one was known by (`aliases: [{ name }]`). */
  aliases?: string[];
  tags?: Record<string, string>;
  password?: boolean;
  dependsOn?: string[];
  parent?: string;
  protect?: boolean;
  ignoreChanges?: string[];
  replaceOnChanges?: string[];
  deleteBeforeReplace?: boolean;
  additionalSecretOutputs?: string[];
  deletedWith?: string;
}

/** What the fixture cloud file holds. */
export interface Cloud {
  nextId: number;
  items: Record<string, Record<string, unknown> & { id: string; name: string; status: string }>;
  log: string[];
  faults: {
    initFailCreate?: string[];
    initFailUpdate?: string[];
    /** Init errors without __provider in their properties. */
    bareInitError?: string[];
    failCreate?: string[];
    failDelete?: string[];
    slowCreate?: string[];
    /** Create waits 10 s first (a run to interrupt). */
    hangCreate?: string[];
    slowDelete?: string[];
    /** Diff answers neither true nor false on changes (DIFF_UNKNOWN). */
    unknownDiff?: string[];
    /** Diff asks for delete-before-replace. */
    providerDbr?: string[];
  };
}

/** A resource as the state file holds it (the parts tests look at). */
export interface StateResource {
  urn: string;
  name: string;
  id?: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  initErrors?: string[];
  pendingDelete?: boolean;
}

/** A fixture project in a temp folder. */
export class FixtureProject {
  readonly dir: string;
  readonly cloudFile: string;
  readonly stateFile: string;

  constructor() {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), "vmhost-engine-"));
    this.cloudFile = path.join(this.dir, "cloud.json");
    this.stateFile = path.join(this.dir, ".vmhost-state.json");
    for (const f of fs.readdirSync(path.join(FIXTURES, "project"))) {
      fs.copyFileSync(path.join(FIXTURES, "project", f), path.join(this.dir, f));
    }
    fs.mkdirSync(path.join(this.dir, "node_modules"));
    // @pulumi is linked (its realpath stays under a node_modules); the provider is copied, because a
    // symlink would resolve outside node_modules and be serialized by value.
    fs.symlinkSync(REPO_PULUMI, path.join(this.dir, "node_modules", "@pulumi"), "dir");
    fs.cpSync(path.join(FIXTURES, "fixture-cloud"), path.join(this.dir, "node_modules", "fixture-cloud"), { recursive: true });
  }

  /** Runs an engine command with the given program (resources) and the fixture's config. */
  run(
    command: EngineCommand,
    resources: ItemSpec[],
    extra: Pick<EngineOptions, "expectNoChanges" | "refresh" | "parallel" | "targets" | "targetDependents" | "replace" | "clearPendingCreates" | "signal"> & {
      config?: Record<string, string>;
    } = {},
  ): Promise<EngineResult> {
    const { config, ...rest } = extra;
    return runEngine({
      command,
      projectDir: this.dir,
      config: { "fixture:resources": JSON.stringify(resources), "fixture:cloudFile": this.cloudFile, ...config },
      secrets: { "fixture:apiKey": FIXTURE_API_KEY, "fixture:password": "hunter2-password-plain" },
      ...rest,
      onOutput: process.env.ENGINE_TEST_VERBOSE ? (l) => process.stdout.write(l + "\n") : undefined,
    });
  }

  cloud(): Cloud {
    return fs.existsSync(this.cloudFile)
      ? (JSON.parse(fs.readFileSync(this.cloudFile, "utf8")) as Cloud)
      : { nextId: 1, items: {}, log: [], faults: {} };
  }

  /** Edits the cloud out of band (drift, faults). */
  editCloud(edit: (c: Cloud) => void): void {
    const c = this.cloud();
    c.faults = c.faults ?? {};
    edit(c);
    fs.writeFileSync(this.cloudFile, JSON.stringify(c, null, 2));
  }

  /** The cloud item with the given name. */
  item(name: string): Cloud["items"][string] | undefined {
    return Object.values(this.cloud().items).find((i) => i.name === name);
  }

  /** Clears the cloud's operation log (to assert the order of the next run's operations). */
  clearLog(): void {
    this.editCloud((c) => {
      c.log = [];
    });
  }

  /** The URN of a fixture Item at the top of the stack. */
  urn(name: string): string {
    return `urn:pulumi:dev::fixture::pulumi-nodejs:dynamic/fixture:Item::${name}`;
  }

  /** The state file, parsed. */
  state(): { resources: StateResource[]; pending_operations?: Array<{ type: string; resource: { urn: string } }> } {
    return JSON.parse(this.stateText());
  }

  stateText(): string {
    return fs.readFileSync(this.stateFile, "utf8");
  }

  remove(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * The fixture project of a test file, with its jest hooks: `"each"` gives every test a fresh project (its own
 * stack and cloud), `"file"` one project for the whole file (its tests run in order on one stack); removed
 * afterwards. Call it at the top of the file or of a describe block; the returned object always stands for
 * the current project.
 */
export function useFixtureProject(scope: "each" | "file"): FixtureProject {
  let current: FixtureProject | undefined;
  (scope === "each" ? beforeEach : beforeAll)(() => {
    current = new FixtureProject();
  });
  (scope === "each" ? afterEach : afterAll)(() => current?.remove());
  return new Proxy({} as FixtureProject, {
    get(_target, key) {
      if (!current) throw new Error("the fixture project is only there while a test runs");
      const value: unknown = Reflect.get(current, key, current);
      return typeof value === "function" ? value.bind(current) : value;
    },
  });
}

/** The steps of a run that change something, as [op, name] (what most conformance tests compare). */
export function changesOf(result: { steps: Array<{ op: string; name: string }> }): string[][] {
  return result.steps.filter((s) => s.op !== "same").map((s) => [s.op, s.name]);
}

/** Command-line arguments of the local engine's CLI for `cmd` on the project with the fixture's config. */
export function cliArgs(p: FixtureProject, cmd: string, resources: ItemSpec[], password: string): string[] {
  return [
    cmd,
    "--cwd", p.dir,
    "--config", `fixture:resources=${JSON.stringify(resources)}`,
    "--config", `fixture:cloudFile=${p.cloudFile}`,
    "--secret", `fixture:apiKey=${FIXTURE_API_KEY}`,
    "--secret", `password=${password}`, // no namespace: the project's ("fixture")
  ];
}
