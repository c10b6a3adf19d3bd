import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { deploymentActivity } from "./activity";
import { noteManaged } from "./adoptions";
import { checkInputs } from "./check";
import { notingCreatedId } from "./errors";
import { isDependentsQuestion, noteDiffPlans } from "./asked-diffs";
import { isRefreshDiff, noteRefreshRead } from "./refresh-diffs";
import { noteClaimed } from "./replacements";
import type { ResourceDiff } from "./replace-on-changes";
import { withUnconfirmedCreates, type Candidates } from "./unconfirmed";

/** What one resource implements; `defineResourceProvider` wires it into Pulumi's dynamic-provider shape. */
export interface ResourceImplementation<Inputs, Outputs> {
  /** The zod schema of the inputs: `check` validates and normalizes with it before any API call. */
  inputsSchema: z.ZodType<Inputs>;
  /**
   * Replaces the schema-only check where what is valid depends on the inputs themselves (Instance: the
   * required inputs differ per mode, create / clone / adopt); it must validate with `inputsSchema` too.
   */
  check?(news: Record<string, unknown>): pulumi.dynamic.CheckResult<Inputs>;
  /**
   * Told, at check, the state's inputs of a resource the stack already has: the engine sends them as `olds` for
   * every existing resource, except one that `pulumi up --replace` replaces, whose old state it ignores (and
   * whose Diff it skips): pulumi/pulumi pkg/resource/deploy/step_generator.go, checkInputs and isTargetedReplace.
   * `news`: what the program declares for it now (raw, before validation; unknown values possible at preview).
   */
  existingSeen?(olds: Record<string, unknown>, news: Record<string, unknown>): void;
  /**
   * Diff of the state's outputs against the program's (checked) inputs; `id` is the object's id. It names
   * the inputs it found changed (`changedKeys`), in its own terms, because `replaceOnChanges` acts on those
   * only (common/replace-on-changes.ts). `refresh`: this Diff plans no update, so it must not refuse what only an update
   * would refuse: it only shows what a refresh found (common/refresh-diffs.ts; refusing would fail the refresh), or it is
   * the engine's question whether this resource must be replaced with one it depends on, asked with the state's inputs
   * before the program's are known (common/asked-diffs.ts; its own Diff, with the program's inputs, comes later).
   */
  diff(olds: Outputs, news: Inputs, id: string, refresh: boolean): ResourceDiff | Promise<ResourceDiff>;
  create(inputs: Inputs): Promise<pulumi.dynamic.CreateResult<Outputs>>;
  /** Reads the object; `{}` when it is gone. `inputs`, when returned, may hold only the declared inputs. */
  read(id: string, props: Outputs): Promise<pulumi.dynamic.ReadResult<Partial<Outputs>>>;
  update(id: string, olds: Outputs, news: Inputs): Promise<pulumi.dynamic.UpdateResult<Outputs>>;
  delete(id: string, props: Outputs): Promise<void>;
  /**
   * For a resource whose create goes through `writeExactlyOnce`: lists, from the inputs recorded with a create
   * whose outcome stayed unknown, the ids of the objects that create may have made (the same identity as the
   * write's `candidates`). With it, such a create is recorded instead of lost (common/unconfirmed.ts).
   */
  findUnconfirmed?(recordedInputs: Partial<Inputs>): Promise<Candidates>;
  /**
   * The replacement of an unconfirmed record takes the object it made instead of deleting it first (a delete
   * cannot undo the create: a PublicIp's address would stay reserved); see unconfirmed.ts keptForReplacement.
   */
  keepUnconfirmedForReplacement?: boolean;
  /**
   * Told, at Diff, the recorded outputs of an unconfirmed create's placeholder (whose Diff is answered without
   * {@link diff}): what the resource learns from a state at Diff, it learns from these too.
   */
  placeholderDiffed?(olds: Record<string, unknown>): void;
}

/**
 * Builds a resource's `pulumi.dynamic.ResourceProvider`. Pulumi hands every method untyped property bags;
 * the casts to the resource's own types live here once: `check` has validated the inputs with the schema,
 * and the outputs in the state are the ones `create`/`read`/`update` returned.
 */
export function defineResourceProvider<Inputs, Outputs>(
  impl: ResourceImplementation<Inputs, Outputs>,
): pulumi.dynamic.ResourceProvider<Inputs, Outputs> {
  const provider = {
    check: async (olds, news) => {
      if (olds && Object.keys(olds).length > 0) impl.existingSeen?.(olds as Record<string, unknown>, (news ?? {}) as Record<string, unknown>);
      return impl.check
        ? impl.check(news as Record<string, unknown>)
        : (checkInputs(impl.inputsSchema, news as Record<string, unknown>) as pulumi.dynamic.CheckResult<Inputs>);
    },
    diff: async (id, olds, news) => {
      // (both asked: a refresh's Diff answers for its Read)
      const refreshing = isRefreshDiff(id);
      const refresh = refreshing || isDependentsQuestion(id);
      noteDiffPlans(id, !refresh);
      // Not a refresh's Diff: `up --refresh` refreshes every resource of the state in the same deployment, before its
      // Check (step_generator.go, RefreshStep), so an adopted resource's own refresh counted as another resource
      // managing its object: `up --refresh --replace` with deleteBeforeReplace then deleted the adopted VM (audit); so
      // would an adoption by a resource renamed without alias be refused. A resource the program still declares is noted
      // at its own Diff.
      if (!refreshing) noteManaged(id);
      noteClaimed(id);
      const answer = await impl.diff(olds, news, id, refresh);
      // (an update in place only: a replace's create is often the very call that waits, an adoption; see noteDiffed)
      if (answer.changes && !answer.replaces?.length) deploymentActivity.noteDiffed();
      return answer;
    },
    // Every call that acts is counted (common/activity.ts), so a create can wait for the rest of the deployment.
    create: (inputs) => deploymentActivity.track(() => notingCreatedId(() => impl.create(inputs), noteClaimed)),
    read: (id, props) =>
      deploymentActivity.track(async () => {
        const result = (await impl.read(id, (props ?? {}) as Outputs)) as pulumi.dynamic.ReadResult<Outputs>;
        noteClaimed(result.id);
        noteRefreshRead(result.id);
        return result;
      }),
    update: (id, olds, news) => {
      noteClaimed(id);
      return deploymentActivity.track(() => impl.update(id, olds, news));
    },
    delete: (id, props) => deploymentActivity.track(() => impl.delete(id, props)),
  } satisfies pulumi.dynamic.ResourceProvider<Inputs, Outputs>;
  const find = impl.findUnconfirmed?.bind(impl);
  if (!find) return provider;
  return withUnconfirmedCreates(
    provider as unknown as Parameters<typeof withUnconfirmedCreates>[0],
    (recorded) => find(recorded as Partial<Inputs>),
    impl.keepUnconfirmedForReplacement ?? false,
    impl.placeholderDiffed?.bind(impl),
  ) as unknown as pulumi.dynamic.ResourceProvider<Inputs, Outputs>;
}
