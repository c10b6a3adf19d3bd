import type * as pulumi from "@pulumi/pulumi";

/** The resource types this package implements; each is a key of `providers` in `pulumi-vmhost/provider`. */
export type ResourceName = "Instance" | "PublicIp" | "VswitchAttachment" | "BlockStorageAttachment" | "Snapshot" | "FirewallRule";

/**
 * The provider object Pulumi serializes into the state (`__provider`) for every resource of ours.
 *
 * It is deliberately thin: each method `require`s `pulumi-vmhost/provider` when it is called, inside the
 * dynamic-provider host, whose module paths start at the program's folder. So:
 * - refresh, update and destroy run the package version the user has INSTALLED, not a copy of our code
 *   frozen into old state (a bug fix reaches existing stacks with `npm update`);
 * - the stub captures nothing but the resource name: no client, no API key, no config (credentials reach
 *   the real provider through `configure`, from stack config, or from the environment);
 * - its text never changes between releases, so upgrading never makes Pulumi see a new provider.
 *
 * Keep this function free of captured values other than `name`: Pulumi's closure serializer copies
 * everything it references into the state file.
 */
export function providerStub(name: ResourceName): pulumi.dynamic.ResourceProvider {
  // One object per type for the whole program: Pulumi caches a provider's serialized text per object (a WeakMap in
  // @pulumi/pulumi dynamic/index.ts serializeProvider), and serializing runs a closure analysis (a few ms). A
  // fresh object per resource made a 50-VM program spend about 0.4 s more before its first create (measured).
  let stub = stubs.get(name);
  if (!stub) stubs.set(name, (stub = newStub(name)));
  return stub;
}

const stubs = new Map<ResourceName, pulumi.dynamic.ResourceProvider>();

function newStub(name: ResourceName): pulumi.dynamic.ResourceProvider {
  const load = (): pulumi.dynamic.ResourceProvider => require("pulumi-vmhost/provider").providers[name];
  return {
    configure: (req) => require("pulumi-vmhost/provider").configure(req),
    check: (olds, news) => load().check!(olds, news),
    diff: (id, olds, news) => load().diff!(id, olds, news),
    create: (inputs) => load().create(inputs),
    read: (id, props) => load().read!(id, props),
    update: (id, olds, news) => load().update!(id, olds, news),
    delete: (id, props) => load().delete!(id, props),
  };
}
