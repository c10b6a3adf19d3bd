/**
 * The Instance dynamic provider: check, diff, create (create / clone / adopt), read, update, delete.
 *
 * Safety rules (design.md §5) and how they are kept here:
 * - Once the API has answered an instance uuid, every later failure is a `ResourceInitError` carrying the id
 *   and the truest outputs we can read, so Pulumi records the VM instead of forgetting a machine that bills.
 * - A create or clone that failed ambiguously (reset, timeout, 5xx after sending) is reconciled BEFORE any
 *   retry: the instances named like the new VM are listed before sending, and again after the failure; a
 *   VM that appeared is adopted. Only when none appeared is the request re-sent, once.
 * - Every operation on the VM goes through `runInstanceOperation` (per-instance lock, wait until idle, busy
 *   answers retried, wait until settled), so parallel resources on one VM never collide.
 */
import type * as pulumi from "@pulumi/pulumi";
import { AmbiguousRequestError, BusyError, type VmHostClient } from "../../api";
import type { InstanceDetail } from "../../api/schemas/instances";
import { getClient, progressLog, resourceTimeouts } from "../../context";
import { runInstanceOperation, waitForInstanceGone, waitForInstanceSettled } from "../../wait/instance";
import { Deadline, pollUntil } from "../../wait/poll";
import { instanceLock } from "../common/lock";
import { ProviderError, ResourceInitError } from "../common/errors";
import { templateMinimums } from "../common/preflight";
import { diffInstance, diskShrinkRefusal, planInstanceUpdate, type UpdateStep } from "./diff";
import { checkInstanceInputs, createMode, type InstanceInputs, type InstanceOutputs } from "./inputs";
import { inputsFromState, powerStateOf, resolveVswitchId, toOutputs, type VswitchRef } from "./model";

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

// ---------------------------------------------------------------------------------------------- outputs

async function vswitchRefs(client: VmHostClient): Promise<VswitchRef[]> {
  return (await client.network.listVswitches()).map((v) => ({ uuid: v.uuid, name: v.name, networkIp: v.network_ip }));
}

/** The outputs of an instance for the user's declared inputs (resolves the private network only when managed). */
async function outputsFor(client: VmHostClient, detail: InstanceDetail, declared: Partial<InstanceInputs>): Promise<InstanceOutputs> {
  let vswitchId: string | undefined;
  if (declared.vswitchId !== undefined)
    vswitchId = detail.private_network === null ? "" : resolveVswitchId(detail.private_network, await vswitchRefs(client));
  return toOutputs(detail, declared, vswitchId);
}

/** Outputs for an error report: fresh if the API answers, else what we know (never throws). */
async function bestEffortOutputs(client: VmHostClient, id: string, declared: Partial<InstanceInputs>): Promise<Record<string, unknown>> {
  try {
    const detail = await client.instances.find(id);
    if (detail) return { ...(await outputsFor(client, detail, declared)) };
  } catch {
    // the report must not hide the original failure
  }
  return { ...declared };
}

// ---------------------------------------------------------------------------------------------- update steps

function describe(step: UpdateStep, id: string): string {
  switch (step.kind) {
    case "changeTier": return `instance ${id} to change to tier ${step.tierId}`;
    case "resize": return `instance ${id} to resize to ${step.cpu} CPU / ${step.memory} GB memory / ${step.storage} GB storage`;
    case "hostname": return `instance ${id} to be renamed ${step.hostname}`;
    case "password": return `instance ${id} to set its password`;
    case "publicAddress":
      return step.action === "add" ? `instance ${id} to get a public address`
        : step.action === "remove" ? `instance ${id} to drop its public address`
        : `instance ${id} to use public address ${step.publicNetworkId}`;
    case "privateNetwork": return step.vswitchId === "" ? `instance ${id} to leave its private network` : `instance ${id} to join private network ${step.vswitchId}`;
    case "power": return `instance ${id} to be ${step.state}`;
  }
}

/** True when the detail already shows what the step asks for (the step is then skipped, or its wait ends). */
function satisfied(step: UpdateStep, d: InstanceDetail, vswitches: readonly VswitchRef[]): boolean {
  switch (step.kind) {
    case "changeTier": return d.tier_id === step.tierId;
    case "resize": return d.cpu === step.cpu && d.memory === step.memory && d.storage === step.storage && d.is_cpu_dedicated === step.dedicatedCpu;
    case "hostname": return d.hostname === step.hostname;
    case "password": return false; // write-only: never visible
    case "publicAddress":
      if (step.action === "add") return d.public_ip !== null;
      if (step.action === "remove") return d.public_ip === null;
      return d.public_ip?.ip_id === step.publicNetworkId;
    case "privateNetwork":
      if (step.vswitchId === "") return d.private_network === null;
      return d.private_network !== null && resolveVswitchId(d.private_network, vswitches) === step.vswitchId;
    case "power": return powerStateOf(d.status) === step.state;
  }
}

async function send(client: VmHostClient, id: string, step: UpdateStep): Promise<unknown> {
  switch (step.kind) {
    case "changeTier": return client.instances.changeTier(id, { tierId: step.tierId });
    case "resize":
      return client.instances.resize(id, { cpu: step.cpu, memory: step.memory, storage: step.storage, useDedicatedCpu: step.dedicatedCpu });
    case "hostname": return client.instances.updateHostname(id, { hostname: step.hostname });
    case "password": return client.instances.setPassword(id, { password: step.password });
    case "publicAddress":
      if (step.action === "add") return client.network.addPublicIp(id);
      // a blank public_network removes the address (api-spec.md §4.1)
      return client.network.changePublicIp(id, { publicNetwork: step.action === "remove" ? null : step.publicNetworkId! });
    case "privateNetwork": return client.network.updatePrivateNetwork(id, { vswitch: step.vswitchId === "" ? null : step.vswitchId });
    case "power": return step.state === "running" ? client.instances.start(id) : client.instances.stop(id);
  }
}

/**
 * Runs update steps in order, each through `runInstanceOperation` and waited until the detail shows it.
 * A step the VM already satisfies is skipped (a re-run after a half-done update does not repeat work).
 * `applied` collects the kinds done, for the error report of a failure half-way.
 */
async function runSteps(
  client: VmHostClient, id: string, steps: UpdateStep[], timeoutMs: number, applied: Set<UpdateStep["kind"]>,
): Promise<InstanceDetail> {
  let detail = await client.instances.get(id);
  const vswitches = steps.some((s) => s.kind === "privateNetwork") ? await vswitchRefs(client) : [];
  for (const step of steps) {
    if (satisfied(step, detail, vswitches)) {
      applied.add(step.kind);
      continue;
    }
    const what = describe(step, id);
    progressLog(`${what}`);
    const result = await runInstanceOperation(
      client,
      id,
      {
        what,
        deadline: new Deadline(timeoutMs),
        until: step.kind === "password" ? undefined : (d) => satisfied(step, d, vswitches),
        // polling learns how long each kind takes on this host (hosts differ: a resize takes 20 s or 3 min)
        kind: step.kind === "power" ? `power-${step.state}` : step.kind,
      },
      async () => {
        try {
          return await send(client, id, step);
        } catch (e) {
          // addPublicIp is never re-sent blindly: look whether it happened before failing
          if (e instanceof AmbiguousRequestError && satisfied(step, await client.instances.get(id), vswitches)) return undefined;
          throw e;
        }
      },
    );
    detail = result.detail;
    applied.add(step.kind);
  }
  return detail;
}

// ---------------------------------------------------------------------------------------------- create

/** Instances named `hostname` right now (exact name: `search` may match substrings). */
async function instancesNamed(client: VmHostClient, hostname: string): Promise<string[]> {
  const rows = await client.instances.listAll({ search: hostname });
  return rows.filter((r) => r.hostname === hostname).map((r) => r.uuid);
}

/** New instances named `hostname` in the location: not in `before`, and (by their detail) in `locationId`. */
async function appearedSince(client: VmHostClient, hostname: string, locationId: number, before: Set<string>): Promise<string[]> {
  const fresh = (await instancesNamed(client, hostname)).filter((uuid) => !before.has(uuid));
  const details = await Promise.all(fresh.map((uuid) => client.instances.find(uuid)));
  return details.filter((d) => d !== undefined && d.location_id === locationId).map((d) => d!.uuid);
}

/**
 * Sends a create (or clone) so that exactly one VM results. Before sending, the instances already named
 * like the new VM are noted. When the request fails ambiguously, those named like it are listed again
 * (twice, a moment apart, for a request still being processed), keeping the new ones in the requested
 * location: one is adopted; none means the request did not take effect and it is re-sent (at most
 * {@link MAX_CREATE_ATTEMPTS} sends in all, each only after such a look); several mean someone else is
 * creating too, and the user must decide. (Creation times are not compared: the list's minute-precision
 * text times carry no zone, so "created after we sent" cannot be decided reliably; the list taken before
 * sending is exact.)
 */
const MAX_CREATE_ATTEMPTS = 3;

async function sendCreateOnce(
  client: VmHostClient, hostname: string, locationId: number, sendRequest: () => Promise<string>,
): Promise<string> {
  const before = new Set(await instancesNamed(client, hostname));
  for (let attempt = 1; ; attempt++) {
    try {
      return await sendRequest();
    } catch (e) {
      if (!(e instanceof AmbiguousRequestError)) throw e;
      progressLog(`the request to create ${hostname} failed ambiguously (${errorText(e)}); looking for the VM before anything is retried`);
      let appeared: string[] = [];
      for (let look = 0; look < 2 && appeared.length === 0; look++) {
        if (look > 0) await new Promise((r) => setTimeout(r, 1000));
        appeared = await appearedSince(client, hostname, locationId, before);
      }
      if (appeared.length === 1) {
        progressLog(`the VM ${hostname} was created (${appeared[0]}): adopting it instead of creating another`);
        return appeared[0]!;
      }
      if (appeared.length > 1)
        throw new ProviderError(
          `the request to create ${hostname} failed ambiguously and ${appeared.length} new instances named ${hostname} appeared ` +
            `(${appeared.join(", ")}); set adoptId to the one to keep and delete the others`,
        );
      if (attempt >= MAX_CREATE_ATTEMPTS)
        throw new ProviderError(`creating ${hostname} failed ${attempt} times without creating a VM: ${errorText(e)}`, { cause: e });
      progressLog(`no VM named ${hostname} appeared: the request did not take effect; sending it again`);
    }
  }
}

async function createInstance(inputs: InstanceInputs): Promise<pulumi.dynamic.CreateResult<InstanceOutputs>> {
  const client = getClient();
  const timeouts = resourceTimeouts(inputs.timeouts);
  const mode = createMode(inputs);

  if (mode === "adopt") {
    const id = inputs.adoptId!;
    const found = await client.instances.find(id);
    if (!found) throw new ProviderError(`adoptId: there is no instance ${id} to adopt (check the uuid with getInstances)`);
    // Adopting changes nothing on the VM: differences from the declared properties show at the next preview.
    // A VM in Error can be adopted too (to repair or delete it under Pulumi): only a running operation is waited out.
    const detail = await waitUntilIdle(client, id, `instance ${id} (adopted) to be idle`, new Deadline(timeouts.create));
    if (!detail) throw new ProviderError(`adoptId: instance ${id} disappeared while being adopted`);
    return { id, outs: await outputsFor(client, detail, inputs) };
  }

  const hostname = inputs.hostname!;
  let id: string;
  if (mode === "clone") {
    const sourceId = inputs.cloneFrom!;
    const source = await client.instances.find(sourceId);
    if (!source) throw new ProviderError(`cloneFrom: there is no instance ${sourceId} to clone (check the uuid with getInstances)`);
    if (inputs.storage !== undefined && inputs.storage < source.storage)
      throw new ProviderError(
        `storage: a clone starts with its source's ${source.storage} GB disk and disks only grow; set storage to ${source.storage} or more`,
      );
    const deadline = new Deadline(timeouts.create);
    // Through the SOURCE's operation queue: the API refuses to clone a VM that is busy (an address being
    // attached by another resource in the same up), and a busy answer is waited out and re-sent.
    id = await sendCreateOnce(client, hostname, inputs.locationId!, async () => {
      const sent = await runInstanceOperation(client, sourceId, { what: `instance ${sourceId} to be cloned as ${hostname}`, deadline }, () =>
        client.instances.clone(sourceId, { hostname, locationId: inputs.locationId!, tierId: inputs.tierId! }),
      );
      return sent.result.uuid;
    });
  } else {
    // Checked at preview too (common/preflight.ts); kept here for a create whose check did not see the catalogue.
    const min = await templateMinimums(client, inputs.templateId!);
    for (const [key, value] of [["cpu", inputs.cpu], ["memory", inputs.memory], ["storage", inputs.storage]] as const) {
      const least = min?.[key];
      if (least !== undefined && value !== undefined && value < least)
        throw new ProviderError(`${key}: template ${inputs.templateId} needs at least ${least}${key === "cpu" ? " CPU" : " GB"}; raise ${key} to ${least} or more`);
    }
    const usePublic = inputs.publicIp === true || inputs.publicNetworkId !== undefined;
    id = await sendCreateOnce(client, hostname, inputs.locationId!, async () =>
      (
        await client.instances.create({
          locationId: inputs.locationId!, tierId: inputs.tierId!, templateId: inputs.templateId!, hostname,
          cpu: inputs.cpu!, memory: inputs.memory!, storage: inputs.storage!, username: inputs.username!, password: inputs.password!,
          usePublicIp: usePublic,
          useDedicatedCpu: inputs.dedicatedCpu ?? null,
          useSharedCpu: inputs.dedicatedCpu === undefined ? null : !inputs.dedicatedCpu,
          vswitch: inputs.vswitchId ? inputs.vswitchId : null,
          sshKeys: inputs.sshKeys ?? null,
          includeBackup: inputs.backups ?? null,
          publicNetwork: inputs.publicNetworkId ?? null,
        })
      ).uuid,
    );
  }

  // From here on the VM exists and bills: every failure carries its id.
  const applied = new Set<UpdateStep["kind"]>();
  try {
    const detail = await waitForInstanceSettled(client, id, {
      what: `instance ${id} (${hostname}) to finish ${mode === "clone" ? "cloning" : "creating"}`,
      deadline: new Deadline(timeouts.create),
      kind: mode,
    });
    // What create/clone could not set: a clone's sizes, password, address and network; a "stopped" power state.
    const created = await outputsFor(client, detail, inputs);
    const steps = planInstanceUpdate(mode === "clone" ? { ...created, password: undefined } : created, inputs);
    if (steps.length > 0) await runSteps(client, id, steps, timeouts.create, applied);
    const fresh = await client.instances.get(id);
    return { id, outs: await outputsFor(client, fresh, inputs) };
  } catch (e) {
    const declared = mode === "clone" && !applied.has("password") ? { ...inputs, password: undefined } : inputs;
    const message =
      `instance ${id} (${hostname}) was ${mode === "clone" ? "cloned" : "created"} but did not become ready: ${errorText(e)}. ` +
      `It is recorded in the stack: run pulumi up again to converge it, or pulumi destroy to delete it.`;
    throw new ResourceInitError(message, id, await bestEffortOutputs(client, id, declared), [message], { cause: e });
  }
}

/**
 * Waits until no operation runs on the instance, whatever its status (unlike waitForInstanceSettled, a VM in
 * Error is fine here). Resolves to the detail, or undefined when the instance does not exist.
 */
async function waitUntilIdle(client: VmHostClient, id: string, what: string, deadline: Deadline): Promise<InstanceDetail | undefined> {
  return pollUntil<InstanceDetail | undefined>({
    what,
    deadline,
    log: progressLog,
    poll: async () => {
      const d = await client.instances.find(id);
      if (!d) return { done: true, value: undefined };
      return d.operation_flag === 0 ? { done: true, value: d } : { done: false, status: d.status };
    },
  });
}

// ---------------------------------------------------------------------------------------------- delete

async function deleteInstance(id: string, props: Partial<InstanceOutputs>): Promise<void> {
  const client = getClient();
  const timeouts = resourceTimeouts(props.timeouts);
  const deadline = new Deadline(timeouts.delete);
  const options = { removePublicIp: true, removeBlockStorage: false, ...props.deleteOptions };
  await instanceLock.run(id, async () => {
    // Not runInstanceOperation: a VM in Error must still be deletable, and "settled" after a delete is "gone".
    for (let busyAnswers = 0; ; busyAnswers++) {
      const idle = await waitUntilIdle(client, id, `instance ${id} to be idle before deleting it`, deadline);
      if (!idle) return; // already gone: delete is done
      try {
        await client.instances.delete(id, { removeIp: options.removePublicIp, removeBlockStorage: options.removeBlockStorage });
        break;
      } catch (e) {
        // another operation slipped in between: wait for it, then try again (until the deadline)
        if (e instanceof BusyError && !deadline.expired()) {
          // the detail said idle but the API said busy (its views lag): back off before asking again
          await new Promise((r) => setTimeout(r, Math.min(deadline.remainingMs(), 250 * 2 ** Math.min(busyAnswers, 4))));
          continue;
        }
        throw e;
      }
    }
    await waitForInstanceGone(client, id, { what: `instance ${id} to be deleted`, deadline });
  });
}

// ---------------------------------------------------------------------------------------------- provider

/** The Instance resource provider. */
export const instanceProvider: pulumi.dynamic.ResourceProvider<InstanceInputs, InstanceOutputs> = {
  async check(_olds, news) {
    return checkInstanceInputs(news as unknown as Record<string, unknown>);
  },

  async diff(_id, olds, news) {
    return diffInstance(olds, news);
  },

  create: createInstance,

  async read(id, props) {
    const client = getClient();
    const detail = await client.instances.find(id);
    if (!detail) return {}; // gone: Pulumi drops it from the state
    // Which properties the user manages, and the write-only values (password), come from the state.
    const declared = inputsFromState((props ?? {}) as Record<string, unknown>);
    const outs = await outputsFor(client, detail, declared);
    // `inputs` (the input-named values of the state, password kept) only for a VM this resource created:
    // there every read-back property (hostname, cpu, ...) is one the program declared, so they are exactly
    // the user's inputs and a refresh right after an up changes nothing. For a clone or an adopted VM the
    // state also holds read-back values the program never declared (a clone's templateId, an adopted VM's
    // cpu): returning them would show as changed inputs at refresh, so Pulumi keeps its recorded inputs.
    // Either way drift shows in the outputs, and the diff compares the outputs with the program.
    if (createMode(declared) !== "create") return { id, props: outs };
    // (Pulumi types ReadResult.inputs with the outputs type.)
    return { id, props: outs, inputs: declared as unknown as InstanceOutputs };
  },

  async update(id, olds, news) {
    // Refused before any API call, so a half-applied update never follows (tier changed, disk refused).
    const refusal = diskShrinkRefusal(id, olds, news);
    if (refusal) throw new ProviderError(refusal);
    const client = getClient();
    const timeouts = resourceTimeouts(news.timeouts);
    const steps = planInstanceUpdate(olds, news);
    const applied = new Set<UpdateStep["kind"]>();
    try {
      await runSteps(client, id, steps, timeouts.update, applied);
      const fresh = await client.instances.get(id);
      return { outs: await outputsFor(client, fresh, news) };
    } catch (e) {
      // Half-way: report what is true now, and the old password unless the new one was set.
      const declared = { ...news, password: applied.has("password") ? news.password : olds.password };
      const done = steps.filter((s) => applied.has(s.kind)).map((s) => s.kind);
      const message =
        `updating instance ${id} failed: ${errorText(e)}` +
        (done.length ? ` (done before the failure: ${done.join(", ")})` : "") +
        `. Run pulumi up again to finish.`;
      throw new ResourceInitError(message, id, await bestEffortOutputs(client, id, declared), [message], { cause: e });
    }
  },

  async delete(id, props) {
    await deleteInstance(id, props);
  },
};
