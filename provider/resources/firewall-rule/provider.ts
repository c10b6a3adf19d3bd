/**
 * The FirewallRule dynamic provider: check, diff, create (create or adopt), read, update, delete.
 *
 * - Every change is an operation on the instance and goes through `runInstanceOperation` (per-instance
 *   lock, wait until idle, busy answers retried), so many rules, an address, a disk and a snapshot declared
 *   on one VM never collide.
 * - createFirewallRule goes through `writeExactlyOnce` (common/reconcile.ts), never re-sent blindly (a rule
 *   would be duplicated): after an ambiguous failure, or when the API answers no id, the new rule matching
 *   the inputs is taken, with reads that survive transient failures until the deadline. On a VM this deployment
 *   created or cloned, the one identical rule no resource made here (a clone copies its source's rules) is taken
 *   over instead of getting a twin; elsewhere an identical rule this resource does not know (left by an
 *   interrupted up) stops the create, naming it and adoptId, or saying another resource of the stack declares it.
 * - Once a rule exists, a later failure (reading it back, a deadline) is a `ResourceInitError` with its id.
 */
import type * as pulumi from "@pulumi/pulumi";
import { NotFoundError, type FirewallRule as ApiFirewallRule, type VmHostClient } from "../../api";
import { getClient, progressLog, resourceDeadline } from "../../context";
import { runInstanceOperation } from "../../wait/instance";
import { Deadline } from "../../wait/poll";
import { sameUuid } from "../common/fields";
import { defineResourceProvider } from "../common/define";
import { deploymentActivity } from "../common/activity";
import { deletedOutsidePulumi, errorText, ProviderError, recordingUncertainUpdate, ResourceInitError } from "../common/errors";
import { writeExactlyOnce } from "../common/reconcile";
import { instancesMadeHere, replacementsInProgress } from "../common/replacements";
import { canonicalPort, canonicalSource, changedApiProperties, diffFirewallRule } from "./diff";
import { isAdoptedIn } from "../common/replace-on-changes";
import { objectDeleted, refuseWhileItsVmIsUnknown } from "../common/kept-with-vm";
import { inputsSchema, type FirewallRuleInputs, type FirewallRuleOutputs } from "./inputs";
import { createParams, firewallRuleOutputs, ruleMatches, ruleParams } from "./model";

/**
 * Operation kind of a firewall change: its usual duration is learned per host (wait/durations.ts) and polling
 * is fast around it. No fixed guess: one longer than the host's real duration only makes the wait late.
 */
const KIND = "firewall";

/** The instance's rules, or undefined when the instance itself is gone (404/410). */
async function rulesOrGone(client: VmHostClient, instanceId: string): Promise<ApiFirewallRule[] | undefined> {
  try {
    return await client.firewall.listAllRules(instanceId);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

async function findRule(client: VmHostClient, instanceId: string, id: string): Promise<ApiFirewallRule | undefined> {
  return (await rulesOrGone(client, instanceId))?.find((r) => sameUuid(r.id, id));
}

/** The instance's rules exactly like `inputs` (none when the instance is gone). */
async function rulesLike(client: VmHostClient, inputs: FirewallRuleInputs): Promise<string[]> {
  return ((await rulesOrGone(client, inputs.instanceId)) ?? []).filter((r) => ruleMatches(r, inputs)).map((r) => r.id);
}

/** A rule in every field the API stores (canonical port and source): two rules with one key are the same rule. */
function ruleKey(inputs: FirewallRuleInputs): string {
  return JSON.stringify([inputs.instanceId.toLowerCase(), inputs.protocol, canonicalPort(inputs.port), inputs.action, canonicalSource(inputs.sourceIp), inputs.description ?? ""]);
}

/**
 * The rule a state's or the program's inputs declare, or undefined. Without the engine's and the SDK's own keys
 * (`__provider`, `__replaceOnChanges`, `__ignoreChanges`), which the strict schema refuses: with them, a rule
 * declared with either option was never seen as the stack's (options audit).
 */
function declaredRule(inputs: Record<string, unknown>): FirewallRuleInputs | undefined {
  const parsed = inputsSchema.safeParse(Object.fromEntries(Object.entries(inputs).filter(([k]) => !k.startsWith("__"))));
  return parsed.success ? parsed.data : undefined;
}

/**
 * The identity a replacement rule is created under (withReplaceOnChanges notes the old rule there): the rule
 * itself, so a replacement identical to the rule it replaces (`replaceOnChanges` on a value the API does not
 * store, such as timeouts) is told to use deleteBeforeReplace, not to adopt its own old rule.
 */
export const firewallRuleReplacementIdentity = (news: Record<string, unknown>): string | undefined => {
  const rule = declaredRule(news);
  return rule ? `FirewallRule:${ruleKey(rule)}` : undefined;
};

/**
 * The rules (by {@link ruleKey}) that resources of this stack declare, as this provider process has seen them: at
 * check, the state's inputs of every existing FirewallRule (not one `--replace` replaces: the engine sends no
 * olds for it), and each rule created or taken here.
 */
const rulesOfThisStack = new Set<string>();

/**
 * The rules (by {@link ruleKey}) that a FirewallRule of this stack held and declares otherwise now (its check saw
 * state and program differ): in this up, that rule is changed into another one. An update into an identical twin of
 * such a rule is the first half of a swap (two rules exchanging ports), not a duplicate that stays.
 */
const rulesLeavingHere = new Set<string>();

/**
 * The FirewallRules of this stack (each by the rule its state holds) that declare each rule (by {@link ruleKey}) now, as
 * their checks saw the program: two of them for one rule declare it twice. (A set, so a check repeated for one resource
 * counts once.)
 */
const rulesDeclaredHere = new Map<string, Set<string>>();
const declarersOf = (key: string): number => rulesDeclaredHere.get(key)?.size ?? 0;

/** Forgets the rules noted for this deployment (see forgetDeployment in provider/registry.ts). */
export function forgetRulesOfThisStack(): void {
  rulesOfThisStack.clear();
  rulesLeavingHere.clear();
  rulesDeclaredHere.clear();
}

/**
 * Sends createFirewallRule exactly once (common/reconcile.ts) and returns the new rule's id, or the id of the one
 * identical rule no resource of this stack declares, taken over.
 */
async function createRule(client: VmHostClient, inputs: FirewallRuleInputs, deadline: Deadline): Promise<string> {
  const key = ruleKey(inputs);
  const id = await writeExactlyOnce({
    what: `firewall rule ${inputs.protocol}/${inputs.port} (${inputs.action}) on instance ${inputs.instanceId}`,
    // (coarser than "identical": rules of one port and protocol are only created one after another; the port
    // in canonical form, so "8000:8100" and "8000-8100", one rule to the API, wait for each other too)
    identity: `FirewallRule:${inputs.instanceId.toLowerCase()}/${inputs.protocol}/${String(canonicalPort(inputs.port))}`,
    deadline,
    requestBoundMs: client.requestTimeoutMs,
    howToFind: "the instance's firewall rules in the host's panel",
    candidates: () => rulesLike(client, inputs),
    // On a VM this deployment created or cloned, a rule like this one in every field that no resource made here:
    // copied from the source by the clone (the API copies the firewall; a program declaring the clone's rules
    // failed, asking for adoptId of a rule that did not exist before the up). No state can hold a rule of a VM
    // that did not exist before this deployment, so managing it loses nothing, and a twin helps no one.
    // Nowhere else: an identical rule on an older VM may be another resource's, e.g. the old rule of a
    // `pulumi up --replace`, which the engine deletes after this create and sends no sign of to the provider
    // (no olds at check, no diff: step_generator.go), so taking it would lose the rule.
    takeOver: (existing) => {
      if (existing.length !== 1 || rulesOfThisStack.has(key) || !instancesMadeHere.has(inputs.instanceId.toLowerCase())) return undefined;
      progressLog(
        `instance ${inputs.instanceId}, made by this deployment, already has a firewall rule exactly like this one (${existing[0]!}), ` +
          "copied by the clone: this resource manages it instead of adding a twin",
      );
      return existing[0];
    },
    refuseBeside: (existing) => {
      if (existing.length === 0) return;
      if (existing.every((id) => replacementsInProgress.isBeingReplaced(`FirewallRule:${key}`, id)))
        throw new ProviderError(
          `instance ${inputs.instanceId} still has the rule this FirewallRule replaces (${existing.join(", ")}), exactly like the new one: ` +
            "a rule cannot stand twice, so replacing a rule by an unchanged one needs the resource option deleteBeforeReplace: true " +
            "(the old rule is then deleted first). Nothing was added.",
        );
      if (rulesOfThisStack.has(key))
        throw new ProviderError(
          `instance ${inputs.instanceId} already has this exact firewall rule (${existing.join(", ")}), declared by another FirewallRule of this ` +
            "stack. Declare each rule once.",
        );
      throw new ProviderError(
        `instance ${inputs.instanceId} already has a firewall rule exactly like this one (${existing.join(", ")}) that this resource does ` +
          `not manage, so no duplicate was added. It may be left by an interrupted pulumi up. To manage it, set adoptId: "${existing[0]}" (never on a rule another ` +
          "FirewallRule of this stack declares: with `--target` or `--exclude` the provider cannot tell which those are). " +
          "(Replacing this rule with `pulumi up --replace` needs the resource option deleteBeforeReplace: true: a rule cannot stand twice.)",
      );
    },
    send: async () => {
      let answer: { id: string | null } | undefined;
      try {
        await runInstanceOperation(
          client,
          inputs.instanceId,
          { what: `creation of a firewall rule (${inputs.protocol}/${inputs.port}) on instance ${inputs.instanceId}`, deadline, kind: KIND },
          async () => (answer = await client.firewall.createRule(inputs.instanceId, createParams(inputs))),
        );
      } catch (error) {
        // The rule exists once the API answered: a later failure (waiting for the instance) must record it.
        if (answer?.id) throw await initError(client, inputs, answer.id, error);
        // Answered 2xx without its id: the host took it, so it is looked for and recorded as the answer's own path
        // does (writeExactlyOnce), never passed on as if nothing was made (soak: the wait's failure left the rule in no state).
        if (answer !== undefined) {
          progressLog(`firewall rule ${inputs.protocol}/${inputs.port} on instance ${inputs.instanceId}: the API took it without naming its id, and waiting for the instance afterwards failed (${errorText(error)}); looking for the rule`);
          return undefined;
        }
        throw error;
      }
      return answer?.id ?? undefined;
    },
  });
  rulesOfThisStack.add(key);
  return id;
}

/** The error that records a rule which exists but whose creation did not complete, with its truest outputs. */
async function initError(client: VmHostClient, inputs: FirewallRuleInputs, id: string, error: unknown): Promise<ResourceInitError> {
  const last = await findRule(client, inputs.instanceId, id).catch(() => undefined);
  const properties = last ? firewallRuleOutputs(inputs, last) : { ...inputs };
  return new ResourceInitError(`firewall rule ${id} on instance ${inputs.instanceId}: ${errorText(error)}`, id, properties, [errorText(error)], {
    cause: error,
  });
}

/** Sends the whole desired rule with updateFirewallRule, through the instance's operation queue. */
async function updateRule(client: VmHostClient, id: string, inputs: FirewallRuleInputs, deadline: Deadline): Promise<void> {
  await runInstanceOperation(
    client,
    inputs.instanceId,
    { what: `update of firewall rule ${id} on instance ${inputs.instanceId}`, deadline, kind: KIND },
    () => client.firewall.updateRule(inputs.instanceId, id, ruleParams(inputs)),
  );
}

/**
 * Refuses, before any write, an update that would make rule `id` identical to another rule that a FirewallRule of this
 * stack also declares (audit: a FirewallRule edited to the port, protocol, source, action and description of another
 * rule made a duplicate, which the API accepts: the firewall then held the rule twice, and every later up fought over
 * it). Declared twice is a program mistake, named. A twin nobody else declares is let through with a warning: it is
 * most often a rule of this stack that this same up deletes (the engine deletes removed resources after every update:
 * merging two rules into one, review of the audit's fix), or the first half of a swap (rulesLeavingHere), or a rule made
 * in the panel; the provider cannot tell those apart before the deletes run. Its check may come later than this update
 * (the engine registers resources as the program declares them): a twin is looked at again once the rest of the
 * deployment has caught up.
 */
async function refuseTwinOfAnotherRule(client: VmHostClient, id: string, news: FirewallRuleInputs, deadline: Deadline): Promise<void> {
  const key = ruleKey(news);
  const twins = async (): Promise<string[]> => (await rulesLike(client, news)).filter((other) => !sameUuid(other, id));
  // (one twin, that a FirewallRule of this stack changes away in this up, and no other resource declaring this rule)
  const swapping = (others: string[]): boolean => others.length === 1 && rulesLeavingHere.has(key) && declarersOf(key) <= 1;
  let others = await twins();
  if (others.length === 0 || swapping(others)) return;
  if (await deploymentActivity.waitForOthers(deadline)) others = await twins();
  if (others.length === 0 || swapping(others)) return;
  const rule = `${news.protocol}/${String(canonicalPort(news.port))} ${news.action} from ${news.sourceIp ?? "any source"}${news.description ? ` (${JSON.stringify(news.description)})` : ""}`;
  if (declarersOf(key) <= 1) {
    progressLog(
      `firewall rule ${id}: updated to ${rule}, which rule ${others.join(", ")} of instance ${news.instanceId} also is. If a FirewallRule this ` +
        "up removes holds it, it goes once the updates are done; otherwise the firewall now holds the rule twice. If another FirewallRule " +
        "of this stack declares it (`--target` and `--exclude` keep the resources they leave out from the provider's sight), change " +
        "one of the two; else delete the other in the host's panel, or manage it with adoptId.",
    );
    return;
  }
  throw new ProviderError(
    `firewall rule ${id}: the update would make it identical to rule ${others.join(", ")} of instance ${news.instanceId} (${rule}), which ` +
      "another FirewallRule of this stack declares: a firewall holds each rule once, so nothing was changed. Declare each rule once " +
      "(change protocol, port, sourceIp, action or description of one of them, or remove one).",
  );
}

/** Reads the rule back for outputs; a rule missing right after a change is an error (named with its id). */
async function readBack(client: VmHostClient, id: string, inputs: FirewallRuleInputs): Promise<FirewallRuleOutputs> {
  const rule = await findRule(client, inputs.instanceId, id);
  if (!rule) throw new ProviderError(`firewall rule ${id} is not listed on instance ${inputs.instanceId} after the change`);
  return firewallRuleOutputs(inputs, rule);
}

/**
 * The rule `inputs` adopt, from the instance's rules (undefined: the instance is gone), or why it cannot be adopted
 * as declared. What create refuses before any write, and the preview with it.
 */
function ruleToAdopt(rules: ApiFirewallRule[] | undefined, inputs: FirewallRuleInputs, adoptId: string): { found: ApiFirewallRule } | { refusal: string } {
  if (rules === undefined) return { refusal: `cannot adopt firewall rule ${adoptId}: instance ${inputs.instanceId} does not exist` };
  // (ids compare without case, as uuid inputs do everywhere: fields.ts; the state keeps the API's spelling)
  const found = rules.find((r) => r.id.toLowerCase() === adoptId.toLowerCase());
  if (!found)
    return {
      refusal:
        `cannot adopt firewall rule ${adoptId}: instance ${inputs.instanceId} has no such rule (see getFirewallRules({ instanceId: ` +
        `"${inputs.instanceId}" })): set adoptId to one of its rules, or remove adoptId to create the rule`,
    };
  // Adopting makes the rule as declared, but the API cannot blank a description (only a new rule can lose it,
  // and an adopted rule is never replaced): refused before anything changes, rather than a next up that fails.
  const has = firewallRuleOutputs(inputs, found).description;
  if (has && !inputs.description)
    return {
      refusal:
        `cannot adopt firewall rule ${found.id} as declared: it has the description ${JSON.stringify(has)}, and the API cannot remove a ` +
        `description (only a new rule can lack it, and an adopted rule is never replaced). Declare description: ${JSON.stringify(has)} ` +
        "(or another text), or leave adoptId out to get a new rule. Nothing was changed.",
    };
  return { found };
}

/**
 * Why create would refuse to adopt (adoptId) the rule `inputs` declare, or undefined: for the preview's check
 * (common/preflight.ts), one read of the instance's rules, made only for a new FirewallRule with adoptId.
 */
export async function firewallRuleAdoptionRefusal(client: VmHostClient, inputs: FirewallRuleInputs): Promise<string | undefined> {
  if (inputs.adoptId === undefined) return undefined;
  const toAdopt = ruleToAdopt(await rulesOrGone(client, inputs.instanceId), inputs, inputs.adoptId);
  return "refusal" in toAdopt ? toAdopt.refusal : undefined;
}

/** The FirewallRule provider (registered as `providers.FirewallRule`). */
export const firewallRuleProvider = defineResourceProvider<FirewallRuleInputs, FirewallRuleOutputs>({
  inputsSchema,
  // The recorded inputs are the checked inputs the create was called with.
  findUnconfirmed: async (recorded) => rulesLike(getClient(), recorded as FirewallRuleInputs),
  existingSeen: (olds, news) => {
    const rule = declaredRule(olds);
    if (rule) rulesOfThisStack.add(ruleKey(rule));
    const declared = declaredRule(news);
    if (rule && declared) rulesDeclaredHere.set(ruleKey(declared), (rulesDeclaredHere.get(ruleKey(declared)) ?? new Set<string>()).add(ruleKey(rule)));
    if (rule && declared && ruleKey(rule) !== ruleKey(declared)) rulesLeavingHere.add(ruleKey(rule));
  },
  diff: (olds, news, id) => {
    refuseWhileItsVmIsUnknown(
      "FirewallRule", id, olds, news, isAdoptedIn(olds, news, id) ? "was adopted (adoptId)" : undefined,
      "Keep the VM in this up (no change that replaces it), or remove adoptId: the rule then goes with the old VM and is created on the new one.",
    );
    return diffFirewallRule(olds, news);
  },

  async create(inputs: FirewallRuleInputs): Promise<pulumi.dynamic.CreateResult<FirewallRuleOutputs>> {
    const client = getClient();
    const deadline = resourceDeadline(inputs.timeouts, "create");
    let id: string;
    let adopted: ApiFirewallRule | undefined;
    if (inputs.adoptId !== undefined) {
      const toAdopt = ruleToAdopt(await rulesOrGone(client, inputs.instanceId), inputs, inputs.adoptId);
      if ("refusal" in toAdopt) throw new ProviderError(toAdopt.refusal);
      adopted = toAdopt.found;
      id = adopted.id;
    } else {
      id = await createRule(client, inputs, deadline);
    }
    // From here the rule exists: any failure records it (with its id) instead of forgetting it.
    try {
      if (adopted && changedApiProperties(firewallRuleOutputs(inputs, adopted), inputs).length > 0) {
        await updateRule(client, id, inputs, deadline); // adopting makes the rule match the declaration
      }
      return { id, outs: await readBack(client, id, inputs) };
    } catch (error) {
      throw await initError(client, inputs, id, error);
    }
  },

  async read(id: string, props: FirewallRuleOutputs): Promise<pulumi.dynamic.ReadResult<Partial<FirewallRuleOutputs>>> {
    if (!props?.instanceId) throw new ProviderError(`cannot read firewall rule ${id}: the state has no instanceId`);
    const rule = await findRule(getClient(), props.instanceId, id);
    if (!rule) return {}; // the rule (or its instance) is gone
    const outs = firewallRuleOutputs(props, rule);
    // No \`inputs\`: the engine would store them as the resource's inputs, and every later refresh diffs against
    // them (RefreshStep.Apply, pulumi/pulumi pkg/resource/deploy/step.go): from the second refresh on, drift stayed
    // hidden, and a change undone in the panel showed as drift. The inputs of the last up stay (see Instance read).
    return { id, props: outs };
  },

  async update(id: string, olds: FirewallRuleOutputs, news: FirewallRuleInputs): Promise<pulumi.dynamic.UpdateResult<FirewallRuleOutputs>> {
    const client = getClient();
    const deadline = resourceDeadline(news.timeouts, "update");
    const changing = changedApiProperties(olds, news);
    const fresh = async (): Promise<FirewallRuleOutputs | undefined> => {
      const rule = await findRule(client, news.instanceId, id);
      return rule ? firewallRuleOutputs(olds, rule) : undefined;
    };
    // (deleted in the panel, the rule or its VM: a refresh is the way on, not another up)
    if (!(await findRule(client, news.instanceId, id))) throw deletedOutsidePulumi(`firewall rule ${id} (instance ${news.instanceId})`);
    if (changing.length > 0) await refuseTwinOfAnotherRule(client, id, news, deadline);
    return recordingUncertainUpdate(id, olds, changing, fresh, async () => {
      if (changing.length > 0) await updateRule(client, id, news, deadline);
      return { outs: await readBack(client, id, news) };
    });
  },

  async delete(id: string, props: FirewallRuleOutputs): Promise<void> {
    objectDeleted(id); // (deleted on purpose: its VM's delete need not keep it, common/kept-with-vm.ts)
    const client = getClient();
    const deadline = resourceDeadline(props.timeouts, "delete");
    if (!(await findRule(client, props.instanceId, id))) return; // already gone (or its instance is)
    try {
      await runInstanceOperation(
        client,
        props.instanceId,
        { what: `deletion of firewall rule ${id} on instance ${props.instanceId}`, deadline, kind: KIND },
        () => client.firewall.deleteRule(props.instanceId, id), // resolves undefined on 404: already gone
      );
    } catch (error) {
      if (!(await rulesOrGone(client, props.instanceId))) return; // the instance vanished meanwhile, rules with it
      throw error;
    }
    if (await findRule(client, props.instanceId, id)) {
      throw new ProviderError(`firewall rule ${id} is still listed on instance ${props.instanceId} after deleteFirewallRule`);
    }
  },
});
