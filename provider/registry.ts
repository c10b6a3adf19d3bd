import type * as pulumi from "@pulumi/pulumi";
import type { ResourceName } from "../sdk/nodejs/stub";
import { instanceProvider } from "./resources/instance/provider";
import { snapshotProvider } from "./resources/snapshot/provider";
import { firewallRuleProvider } from "./resources/firewall-rule/provider";
import { publicIpProvider } from "./resources/public-ip/provider";
import { vswitchAttachmentProvider } from "./resources/vswitch-attachment/provider";
import { blockStorageAttachmentProvider } from "./resources/block-storage-attachment/provider";

/**
 * Resource name -> the dynamic provider that implements it. The SDK's serialized stub looks providers up here
 * by name at call time (`require("pulumi-vmhost/provider").providers[name]`).
 * Each resource adds its line below.
 */
export const providers: Partial<Record<ResourceName, pulumi.dynamic.ResourceProvider>> = {
  Instance: instanceProvider,
  PublicIp: publicIpProvider,
  VswitchAttachment: vswitchAttachmentProvider,
  BlockStorageAttachment: blockStorageAttachmentProvider,
  Snapshot: snapshotProvider,
  FirewallRule: firewallRuleProvider,
};

/** The Pulumi type token of a resource of ours: dynamic module `vmhost`, type = class name. */
export function typeToken(name: ResourceName): string {
  return `pulumi-nodejs:dynamic/vmhost:${name}`;
}
