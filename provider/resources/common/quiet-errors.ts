/**
 * Errors meant for the user reach them without a JavaScript stack trace.
 *
 * Pulumi's dynamic-provider host prints every error thrown from Check, Diff, Read, Update and Delete to its stderr as
 * `${error}: ${error.stack}` (pulumi/pulumi sdk/nodejs/cmd/dynamic-provider/index.ts, the `catch` of each method),
 * and the CLI shows each line of a dynamic provider's stderr to the user (sdk/go/common/resource/plugin/plugin.go
 * runtrace: Infoerrf), besides the error itself, which the engine reports from the gRPC answer. For an error of ours
 * (an API answer, a refusal, a wait that ran out) the stack is noise: about ten lines of provider internals per
 * resource, so a refresh of 50 resources against a wrong `vmhost:baseUrl` printed 500 of them (new-user audit).
 * The stack is kept for anything else (a bug: a TypeError is worth its trace) and for every error with
 * `VMHOST_LOG=debug`.
 */
import type * as pulumi from "@pulumi/pulumi";
import { ApiError, QueuedPastDeadlineError } from "../../api";
import { debugLoggingEnabled } from "../../api/log";
import { ProviderError, ResourceInitError } from "./errors";

/** Whether `error` is one of this provider's errors for the user (its message says what happened and what to do). */
function isUserFacing(error: unknown): error is Error {
  return error instanceof ProviderError || error instanceof ApiError || error instanceof ResourceInitError || error instanceof QueuedPastDeadlineError;
}

/** The error as thrown, its stack emptied when it is for the user (see the module comment). */
export function withoutStackForUser(error: unknown): unknown {
  if (isUserFacing(error) && !debugLoggingEnabled()) {
    // (own property: the host reads `error.stack`; the message and everything else stay as they are)
    Object.defineProperty(error, "stack", { value: "", writable: true, configurable: true, enumerable: false });
  }
  return error;
}

/** `method` (bound to its provider) with its user-facing errors rethrown without their stack. */
function quiet<A extends unknown[], R>(method: (...args: A) => Promise<R>, provider: object): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await method.apply(provider, args);
    } catch (error) {
      throw withoutStackForUser(error);
    }
  };
}

/** Wraps every method of a resource's provider (outermost, provider/registry.ts) as the module comment says. */
export function withQuietUserErrors(provider: pulumi.dynamic.ResourceProvider): pulumi.dynamic.ResourceProvider {
  const wrapped: pulumi.dynamic.ResourceProvider = { ...provider, create: quiet(provider.create, provider) };
  if (provider.check) wrapped.check = quiet(provider.check, provider);
  if (provider.diff) wrapped.diff = quiet(provider.diff, provider);
  if (provider.read) wrapped.read = quiet(provider.read, provider);
  if (provider.update) wrapped.update = quiet(provider.update, provider);
  if (provider.delete) wrapped.delete = quiet(provider.delete, provider);
  return wrapped;
}
