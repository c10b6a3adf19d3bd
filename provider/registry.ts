import type * as pulumi from "@pulumi/pulumi";
import type { ResourceName } from "../sdk/nodejs/stub";
import { instanceProvider, instanceReplacementIdentity } from "./resources/instance/provider";
import { snapshotAdoptionRefusal, snapshotProvider, snapshotReplacementIdentity } from "./resources/snapshot/provider";
import { firewallRuleAdoptionRefusal, firewallRuleProvider, firewallRuleReplacementIdentity, forgetRulesOfThisStack } from "./resources/firewall-rule/provider";
import { forgetDetachedForReplacement, publicIpAdoptionRefusal, publicIpProvider, publicIpReplacementIdentity } from "./resources/public-ip/provider";
import type { SnapshotInputs } from "./resources/snapshot/inputs";
import type { FirewallRuleInputs } from "./resources/firewall-rule/inputs";
import type { PublicIpInputs } from "./resources/public-ip/inputs";
import { vswitchAttachmentProvider } from "./resources/vswitch-attachment/provider";
import { blockStorageAttachmentProvider } from "./resources/block-storage-attachment/provider";
import { withRecordableFailures } from "./resources/common/recordable";
import { forgetPreviewNotes, withPreviewChecks, type AdoptionCheck } from "./resources/common/preflight";
import { withReplaceOnChanges } from "./resources/common/replace-on-changes";
import { forgetAdoptions, withAdoptionsKept } from "./resources/common/adoptions";
import { forgetFixedIds, withFixedIdsKept } from "./resources/common/fixed-ids";
import { claimedByStack, detachedStackAddressOfVm, instancesMadeHere, leavingIdentity, objectsOfThisStack, replacedByThisDeployment, replacedUnderOldIdentity, replacementsInProgress, standingBesideCreate } from "./resources/common/replacements";
import { forgetUnconfirmedReplacements } from "./resources/common/unconfirmed";
import { withIgnoreChanges } from "./resources/common/ignore-changes";
import { forgetAddressOwners, withAddressOwnerRespected, withInstanceAddressNoted } from "./resources/common/address-owners";
import {
  blockStorageAttachmentKey, forgetAttachmentOwners, vswitchAttachmentKey, withInstanceNetworksNoted, withOneOwner,
} from "./resources/common/attachment-owners";
import { deploymentActivity } from "./resources/common/activity";
import { forgetKeptWithVm } from "./resources/common/kept-with-vm";
import { forgetRefreshReads } from "./resources/common/refresh-diffs";
import { forgetAskedDiffs, withDependentsQuestionsTold } from "./resources/common/asked-diffs";
import { withQuietUserErrors } from "./resources/common/quiet-errors";
import { withRequestDeadlines } from "./wait/scope";

/** Every resource's provider with the behaviour all of them share (each wrapper's comment says why). */
function shared(
  name: ResourceName, provider: pulumi.dynamic.ResourceProvider, replacementIdentity?: (news: Record<string, unknown>) => string | undefined,
  adoption?: AdoptionCheck,
): pulumi.dynamic.ResourceProvider {
  return withRequestDeadlines(
    withRecordableFailures(withAdoptionsKept(name, withIgnoreChanges(withReplaceOnChanges(name, withPreviewChecks(name, provider, adoption), replacementIdentity)))),
  );
}

/**
 * Resource name -> the dynamic provider that implements it. The SDK's serialized stub looks providers up here
 * by name at call time (`require("pulumi-vmhost/provider").providers[name]`).
 * Each resource adds its line below; the type makes a missing one a compile error. Every provider is wrapped
 * by `withRecordableFailures`, so a resource recorded after a failed create/update can later be refreshed
 * and deleted under the real engine. `withRequestDeadlines`, outermost, gives each
 * create/update/delete one deadline for all its waits and a 429's (wait/scope.ts). `withPreviewChecks` adds the read-only checks against the account and
 * catalogue to `check` (common/preflight.ts), so mistakes show at preview, with each resource's own check of the object a
 * new resource adopts (`adoptId`: what its create would refuse). `withReplaceOnChanges` makes the
 * `replaceOnChanges` resource option work, which the engine cannot apply to dynamic providers; `withIgnoreChanges` makes
 * `ignoreChanges` survive a refresh (common/ignore-changes.ts). `withAdoptionsKept`
 * keeps a deployment from deleting what it adopted (the replacements the engine makes without asking Diff);
 * `withFixedIdsKept` does the same for the attachments, whose ids are fixed (common/fixed-ids.ts): their
 * replacement without Diff (`up --replace`, deletedWith) answers the old id again, which the old half's delete must not undo.
 * `withOneOwner` (with `withInstanceNetworksNoted` on the Instance) keeps one attachment to one resource of the stack
 * (common/attachment-owners.ts): outside `shared`, so its Diff sees the final replaces.
 */
const providersUntold: Record<ResourceName, pulumi.dynamic.ResourceProvider> = {
  // (an Instance declaring publicIp/publicNetworkId owns its address; a PublicIp there is refused: common/address-owners.ts)
  Instance: withInstanceNetworksNoted(
    shared("Instance", withInstanceAddressNoted(instanceProvider as pulumi.dynamic.ResourceProvider), instanceReplacementIdentity),
  ),
  // (a pinned PublicIp's id is its reserved address: fixed too, see withFixedIdsKept)
  PublicIp: withFixedIdsKept(
    "PublicIp",
    shared(
      "PublicIp", withAddressOwnerRespected(publicIpProvider as pulumi.dynamic.ResourceProvider), publicIpReplacementIdentity,
      async (_client, inputs, instance) => publicIpAdoptionRefusal(inputs as PublicIpInputs, await instance()),
    ),
    "the reserved address it assigns (publicNetworkId)",
    (inputs) => typeof inputs.publicNetworkId === "string",
  ),
  VswitchAttachment: withFixedIdsKept(
    "VswitchAttachment",
    withOneOwner("VswitchAttachment", vswitchAttachmentKey, shared("VswitchAttachment", vswitchAttachmentProvider as pulumi.dynamic.ResourceProvider)),
  ),
  BlockStorageAttachment: withFixedIdsKept(
    "BlockStorageAttachment",
    withOneOwner(
      "BlockStorageAttachment", blockStorageAttachmentKey, shared("BlockStorageAttachment", blockStorageAttachmentProvider as pulumi.dynamic.ResourceProvider),
    ),
  ),
  Snapshot: shared(
    "Snapshot", snapshotProvider as pulumi.dynamic.ResourceProvider, snapshotReplacementIdentity,
    (client, inputs) => snapshotAdoptionRefusal(client, inputs as SnapshotInputs),
  ),
  FirewallRule: shared(
    "FirewallRule", firewallRuleProvider as pulumi.dynamic.ResourceProvider, firewallRuleReplacementIdentity,
    (client, inputs) => firewallRuleAdoptionRefusal(client, inputs as FirewallRuleInputs),
  ),
};

// Outermost: each Check's answer and each Diff's inputs as the engine sees them tell its question whether a dependent
// must be replaced from a Diff that plans the resource's update (common/asked-diffs.ts); errors for the user leave
// without a stack trace, which Pulumi's host would print line by line (common/quiet-errors.ts).
export const providers = Object.fromEntries(
  Object.entries(providersUntold).map(([name, provider]) => [name, withQuietUserErrors(withDependentsQuestionsTold(provider))]),
) as Record<ResourceName, pulumi.dynamic.ResourceProvider>;

/** The Pulumi type token of a resource of ours: dynamic module `vmhost`, type = class name. */
export function typeToken(name: ResourceName): string {
  return `pulumi-nodejs:dynamic/vmhost:${name}`;
}

/**
 * Forgets everything the providers note for one deployment (objects adopted, held by the stack's resources, being
 * replaced or renamed, made here, when a call last ended). The real CLI starts a fresh provider process per deployment, so this is never
 * needed there; a harness that serves several runs from one process (the soak) calls it between runs.
 */
export function forgetDeployment(): void {
  forgetAdoptions();
  forgetFixedIds();
  forgetAttachmentOwners();
  replacementsInProgress.clear();
  objectsOfThisStack.clear();
  leavingIdentity.clear();
  replacedUnderOldIdentity.clear();
  standingBesideCreate.clear();
  replacedByThisDeployment.clear();
  instancesMadeHere.clear();
  claimedByStack.clear();
  detachedStackAddressOfVm.clear();
  forgetRulesOfThisStack();
  forgetUnconfirmedReplacements();
  deploymentActivity.forget();
  forgetDetachedForReplacement();
  forgetAddressOwners();
  forgetKeptWithVm();
  forgetRefreshReads();
  forgetAskedDiffs();
  forgetPreviewNotes();
}
