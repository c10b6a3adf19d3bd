import type * as pulumi from "@pulumi/pulumi";
import { UnauthorizedError } from "../../api";
import { ProviderError } from "./errors";
import { withQuietUserErrors } from "./quiet-errors";

/** A provider whose every method throws `error`. */
function throwing(error: Error): pulumi.dynamic.ResourceProvider {
  const fail = async (): Promise<never> => {
    throw error;
  };
  return { check: fail, diff: fail, create: fail, read: fail, update: fail, delete: fail };
}

const methods = (p: pulumi.dynamic.ResourceProvider) => [
  () => p.check!({}, {}), () => p.diff!("id", {}, {}), () => p.create({}), () => p.read!("id", {}), () => p.update!("id", {}, {}), () => p.delete!("id", {}),
];

describe("withQuietUserErrors", () => {
  const debug = process.env.VMHOST_LOG;
  afterEach(() => (debug === undefined ? delete process.env.VMHOST_LOG : (process.env.VMHOST_LOG = debug)));

  it.each([
    ["a refusal of ours", () => new ProviderError("the disk cannot shrink")],
    ["an API answer", () => new UnauthorizedError({ operation: "getInstance", method: "GET", path: "/instance/x/detail", status: 401 })],
  ])("%s leaves every method without a stack, its message and class unchanged", async (_what, make) => {
    delete process.env.VMHOST_LOG;
    for (const call of methods(withQuietUserErrors(throwing(make())))) {
      const error = (await call().then(() => undefined, (e: unknown) => e)) as Error;
      expect(error).toBeInstanceOf(make().constructor);
      expect(error.message).toBe(make().message);
      expect(error.stack).toBe("");
    }
  });

  it("a bug keeps its stack, and with VMHOST_LOG=debug every error does", async () => {
    delete process.env.VMHOST_LOG;
    const bug = await withQuietUserErrors(throwing(new TypeError("x is undefined"))).read!("id", {}).then(() => undefined, (e: Error) => e);
    expect(bug?.stack).toMatch(/\n\s+at /);
    process.env.VMHOST_LOG = "debug";
    const ours = await withQuietUserErrors(throwing(new ProviderError("refused"))).read!("id", {}).then(() => undefined, (e: Error) => e);
    expect(ours?.stack).toMatch(/\n\s+at /);
  });
});
