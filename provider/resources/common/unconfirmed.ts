/**
 * Objects whose create may or may not have happened, recorded in the state so that they are never lost.
 *
 * `writeExactlyOnce` (reconcile.ts) cannot always tell whether an ambiguous create took effect: its listings
 * may keep failing until the deadline. Throwing without an id then would let Pulumi forget an object that may
 * exist and bill, and no later run would know of it. So the resource is recorded instead: an initialization
 * failure, which the engine stores with its id and properties (pulumi/pulumi pkg/resource/deploy/step.go,
 * CreateStep.Apply: `if err == nil || resourceStatus == resource.StatusPartialFailure { id = resp.ID; outs =
 * resp.Properties }`), under a placeholder id `unconfirmed-…`, with the inputs and what is needed to find the
 * object later: which objects were listed before the create was sent (none of them is the new one).
 *
 * What each later call does with it (`withUnconfirmedCreates`, used by `defineResourceProvider`):
 * - refresh (Read): the one new object is ours: its real id and outputs replace the placeholder (the engine
 *   takes a new id from Read: step.go, RefreshStep.Apply, "There is a chance that the ID has changed");
 *   none: the create did not happen and the record is dropped; several: the error names them.
 * - up (Diff): a replace, deleting first: the placeholder's Delete removes the object if it exists, then it is
 *   created anew (except an object the program now adopts, which is kept, and a PublicIp's address, which the
 *   replacement takes: a delete could only leave it reserved). Keeping the object instead needs its real id, which only Read can give the engine, so the
 *   message says: run `pulumi refresh` first to keep it. (Dependents were never created: the engine stops
 *   when a create fails.)
 * - destroy (Delete): the object is deleted if it exists.
 *
 * The new object is told apart by identity (hostname in the location, snapshot name on the VM, the rule's
 * fields) minus what existed before the send; not by its creation time, since hosts send timestamps without a
 * zone and a misread zone would hide the object, leaving it orphaned.
 */
import { randomUUID } from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { progressLog, resourceDeadline } from "../../context";
import { isAdoptedHere } from "./adoptions";
import { ProviderError, ResourceInitError } from "./errors";
import { readPersistently, UnconfirmedWriteError } from "./reconcile";
import { claimedByStack } from "./replacements";

/** The output under which an unconfirmed create keeps what is needed to find its object. */
export const UNCONFIRMED_KEY = "unconfirmedCreate";

const UNCONFIRMED_ID_PREFIX = "unconfirmed-";

/** True for the placeholder id of a create whose outcome is unknown. */
export const isUnconfirmedId = (id: string): boolean => id.startsWith(UNCONFIRMED_ID_PREFIX);

const recordSchema = z.object({
  what: z.string(),
  sentAt: z.string(),
  existing: z.array(z.string()),
  howToFind: z.string(),
});

/** What an unconfirmed create records beside the inputs. */
export type UnconfirmedCreate = z.infer<typeof recordSchema>;

/** The initialization failure that records `error`'s object as unconfirmed, with the create's inputs. */
export function recordUnconfirmed(error: UnconfirmedWriteError, inputs: Record<string, unknown>): ResourceInitError {
  const id = `${UNCONFIRMED_ID_PREFIX}${randomUUID()}`;
  const record: UnconfirmedCreate = {
    what: error.what, sentAt: error.sentAt.toISOString(), existing: [...error.existing], howToFind: error.howToFind,
  };
  const message =
    `${error.message} It is recorded in the stack as unconfirmed (id ${id}), so it is not lost: \`pulumi refresh\` ` +
    "looks for it and records it under its real id if it exists (or drops the record if not); without a refresh, the " +
    "next `pulumi up` deletes it if it exists and creates it anew, and `pulumi destroy` deletes it if it exists.";
  return new ResourceInitError(message, id, { ...inputs, ...error.recorded, [UNCONFIRMED_KEY]: record }, [message], { cause: error });
}

/**
 * What a resource lists for an unconfirmed create of it (from the recorded inputs): the objects of its identity
 * that could be the one it made, and (`unlike`) those of the identity that differ from what it asked for (an
 * Instance of the hostname with other sizes), which are never taken for it, only named.
 */
export type Candidates = string[] | { fitting: string[]; unlike: string[] };

/** How a resource lists the objects an unconfirmed create of it may have made (from the recorded inputs). */
export type FindCandidates = (props: Record<string, unknown>) => Promise<Candidates>;

/**
 * The objects that appeared since the unconfirmed create `id` was sent (its record's `existing` left out).
 * Listing failures are retried until the deadline of `phase`.
 */
async function appearedSince(
  id: string, props: Record<string, unknown>, find: FindCandidates, phase: "update" | "delete",
): Promise<{ record: UnconfirmedCreate; found: string[]; unlike: string[] }> {
  const parsed = recordSchema.safeParse(props[UNCONFIRMED_KEY]);
  if (!parsed.success)
    throw new ProviderError(`${id}: the state lacks the record of this unconfirmed create (${UNCONFIRMED_KEY}); find the object by hand and set adoptId to it`);
  const record = parsed.data;
  const deadline = resourceDeadline(props.timeouts as { create?: string; update?: string; delete?: string } | undefined, phase);
  const before = new Set(record.existing);
  // (an object another resource of this stack holds is not this create's, though it appeared under the identity:
  // e.g. a VM renamed into the hostname by this up; deleting it would delete that resource's VM: replacements.ts)
  const listed = await readPersistently(`the ${record.what} (unconfirmed create ${id})`, deadline, () => find(props));
  const { fitting, unlike } = Array.isArray(listed) ? { fitting: listed, unlike: [] } : listed;
  // (each once: a paged list read while other clients add objects can show a row twice: reconcile.ts)
  const appeared = (ids: string[]): string[] => [...new Set(ids)].filter((x) => !before.has(x) && !claimedByStack.has(x.toLowerCase()));
  return { record, found: appeared(fitting), unlike: appeared(unlike) };
}

/** The note for objects of the identity that appeared but differ from what the create asked for. */
function unlikeNote(record: UnconfirmedCreate, unlike: string[]): string {
  return unlike.length === 0
    ? ""
    : ` (${unlike.join(", ")} appeared too but differs from what the create asked for, so it is not taken for it; if it is the ` +
        `${record.what} nonetheless, changed since, manage it with adoptId)`;
}

function severalFound(id: string, record: UnconfirmedCreate, found: string[]): ProviderError {
  return new ProviderError(
    `${id}: ${found.length} objects may be the ${record.what} whose create was unconfirmed (${found.join(", ")}), so none is taken: ` +
      `set adoptId to the one to keep, delete the others (${record.howToFind}), then run pulumi refresh`,
  );
}

/** The inputs recorded with an unconfirmed create, without the record (what Read/Delete get as props). */
function withoutRecord(props: Record<string, unknown>): Record<string, unknown> {
  const { [UNCONFIRMED_KEY]: _record, ...rest } = props;
  return rest;
}

/** Placeholders this deployment replaces (their Diff ran): their delete is the first half of a replacement. */
const placeholdersReplacedHere = new Set<string>();

/**
 * Objects an unconfirmed create made that the placeholder's delete left in place for the replacement's create to
 * take (resources with `keepForReplacement`): a PublicIp's address, which a delete can only take off the VM, where
 * it stays reserved in the account with nothing to release it (soak: the replacement then added a second one).
 */
export const keptForReplacement = new Set<string>();

/** Forgets the placeholders replaced and objects kept in this deployment (see forgetDeployment in provider/registry.ts). */
export function forgetUnconfirmedReplacements(): void {
  placeholdersReplacedHere.clear();
  keptForReplacement.clear();
}

/**
 * Adds the handling of unconfirmed creates (see the module comment) to a resource's provider: `create` records
 * an `UnconfirmedWriteError`'s object, and Diff/Read/Update/Delete of a placeholder id resolve it with `find`.
 * With `keepForReplacement`, the delete of a placeholder this deployment replaces leaves the object it finds (see
 * {@link keptForReplacement}); the resource's create takes it. `placeholderDiffed` is told the recorded outputs of
 * a placeholder at its Diff (which the resource's own diff never sees).
 */
export function withUnconfirmedCreates(
  provider: Required<Pick<pulumi.dynamic.ResourceProvider, "check" | "diff" | "create" | "read" | "update" | "delete">>,
  find: FindCandidates,
  keepForReplacement = false,
  placeholderDiffed?: (olds: Record<string, unknown>) => void,
): typeof provider {
  return {
    ...provider,
    create: async (inputs) => {
      try {
        return await provider.create(inputs);
      } catch (e) {
        if (e instanceof UnconfirmedWriteError) throw recordUnconfirmed(e, inputs as Record<string, unknown>);
        throw e;
      }
    },
    diff: async (id, olds, news) => {
      if (!isUnconfirmedId(id)) return provider.diff(id, olds, news);
      placeholdersReplacedHere.add(id);
      placeholderDiffed?.((olds ?? {}) as Record<string, unknown>);
      return { changes: true, replaces: [UNCONFIRMED_KEY], deleteBeforeReplace: true };
    },
    read: async (id, props) => {
      if (!isUnconfirmedId(id)) return provider.read(id, props);
      const { record, found, unlike } = await appearedSince(id, (props ?? {}) as Record<string, unknown>, find, "update");
      if (found.length === 0) {
        progressLog(`${id}: the unconfirmed create of ${record.what} did not happen; dropping the record${unlikeNote(record, unlike)}`);
        return {};
      }
      if (found.length > 1) throw severalFound(id, record, found);
      progressLog(`${id}: the unconfirmed create of ${record.what} happened: recording it as ${found[0]}`);
      return provider.read(found[0]!, withoutRecord((props ?? {}) as Record<string, unknown>));
    },
    update: async (id, olds, news) => {
      if (isUnconfirmedId(id))
        throw new ProviderError(`${id} is an unconfirmed create: run \`pulumi refresh\` to record the object it made (if any), then \`pulumi up\``);
      return provider.update(id, olds, news);
    },
    delete: async (id, props) => {
      if (!isUnconfirmedId(id)) return provider.delete(id, props);
      const { record, found, unlike } = await appearedSince(id, (props ?? {}) as Record<string, unknown>, find, "delete");
      if (found.length > 1) throw severalFound(id, record, found);
      if (found.length === 0) return progressLog(`${id}: the unconfirmed create of ${record.what} did not happen; nothing to delete${unlikeNote(record, unlike)}`);
      // The program adopts it (the user set adoptId to keep what the unconfirmed create made, and ran up without a
      // refresh: the placeholder's delete comes before the adopting create): never deleted (common/adoptions.ts).
      if (isAdoptedHere(found[0]!))
        return progressLog(`${id}: the unconfirmed create of ${record.what} happened (${found[0]}); it is not deleted: a resource of this deployment adopts it (adoptId)`);
      if (keepForReplacement && placeholdersReplacedHere.has(id)) {
        keptForReplacement.add(found[0]!.toLowerCase());
        return progressLog(`${id}: the unconfirmed create of ${record.what} happened (${found[0]}); it is kept for the replacement, which takes it`);
      }
      progressLog(`${id}: the unconfirmed create of ${record.what} happened (${found[0]}): deleting it`);
      await provider.delete(found[0]!, withoutRecord(props as Record<string, unknown>));
    },
  };
}
