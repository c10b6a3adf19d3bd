import type * as pulumi from "@pulumi/pulumi";
import type { ResourceName } from "../sdk/nodejs/stub";
import { instanceProvider } from "./resources/instance/provider";
import { snapshotProvider } from "./resources/snapshot/provider";
import { firewallRuleProvider } from "./resources/firewall-rule/provider";
import { publicIpProvider } from "./resources/public-ip/provider";
import { vswitchAttachmentProvider } from "./resources/vswitch-attachment/provider";
import { blockStorageAttachmentProvider } from "./resources/block-storage-attachment/provider";
import { withRecordableFailures } from "./resources/common/recordable";

/**
 * Resource name -> the dynamic provider that implements it. The SDK's serialized stub looks providers up here
 * by name at call time (`require("pulumi-vmhost/provider").providers[name]`).
 * Each resource adds its line below; the type makes a missing one a compile error. Every provider is wrapped
 * by `withRecordableFailures`, so a resource recorded after a failed create/update can later be refreshed
 * and deleted under the real engine.
 */
export const providers: Record<ResourceName, pulumi.dynamic.ResourceProvider> = {
  Instance: withRecordableFailures(instanceProvider as pulumi.dynamic.ResourceProvider),
  PublicIp: withRecordableFailures(publicIpProvider as pulumi.dynamic.ResourceProvider),
  VswitchAttachment: withRecordableFailures(vswitchAttachmentProvider as pulumi.dynamic.ResourceProvider),
  BlockStorageAttachment: withRecordableFailures(blockStorageAttachmentProvider as pulumi.dynamic.ResourceProvider),
  Snapshot: withRecordableFailures(snapshotProvider as pulumi.dynamic.ResourceProvider),
  FirewallRule: withRecordableFailures(firewallRuleProvider as pulumi.dynamic.ResourceProvider),
};

/** The Pulumi type token of a resource of ours: dynamic module `vmhost`, type = class name. */
export function typeToken(name: ResourceName): string {
  return `pulumi-nodejs:dynamic/vmhost:${name}`;
}
