/**
 * The base class of our resources, which registers them with stack traces turned off.
 *
 * Pulumi's language runtime wraps every output property of a resource in a "debuggable" promise that records
 * `new Error().stack` (@pulumi/pulumi `runtime/debuggable.js`, `debuggablePromise`, called from
 * `runtime/rpc.js` `transferProperties` while the resource constructor runs). Under `pulumi up` the runtime has
 * installed source-map-support (`cmd/run/index.js`), so each of those traces is source-mapped frame by frame: an
 * Instance has about 40 outputs, which cost about 12 ms of CPU per resource, or 0.6 s before the first create of a
 * 50-VM program (CPU profile of `make bench`'s fleet). The runtime reads those traces only to print leaked promises
 * when `PULUMI_DEBUG_PROMISE_LEAKS` is set (`leakedPromises` in the same file); otherwise nothing looks at them.
 *
 * So, unless that variable is set, `Error.stackTraceLimit` is 0 while one of our resources registers. The
 * registration is synchronous and the limit is restored right after it, also when it throws. Pulumi's own record
 * of where the resource was declared is not affected (`Resource.callsites` lifts the limit itself). An error
 * thrown during the registration gets the stack of the resource's constructor call instead, so it still points
 * at the user's line.
 *
 * Resource options adapted here, for every class (sdk/nodejs/options.ts says why): the `import` option is refused with
 * the fix (`adoptId`), `deletedWith` is refused on an adopted Snapshot or FirewallRule, and `ignoreChanges: ["*"]` is
 * spelled out as the resource's property names for the engine, so that the `__ignoreChanges` input still reaches the
 * provider.
 */
import * as pulumi from "@pulumi/pulumi";
import { warnPlaintextApiKey, warnUnknownConfigKeys } from "./config-keys";
import { adoptedDeletedWithError, engineIgnoreChanges, importOptionError } from "./options";

/** A dynamic resource of this package (see the module comment for what it adds to Pulumi's). */
export abstract class VmhostResource extends pulumi.dynamic.Resource {
  constructor(
    provider: pulumi.dynamic.ResourceProvider,
    name: string,
    props: pulumi.Inputs,
    opts: pulumi.CustomResourceOptions | undefined,
    module: string,
    type: string,
  ) {
    // The import option cannot work for a dynamic provider (see importOptionError): refused here, before anything
    // reaches the engine. A RunError is printed by the language runtime as its message alone.
    const importRefusal = importOptionError(`${module}.${type}`, name, opts);
    if (importRefusal) throw new pulumi.RunError(importRefusal);
    const adoptedRefusal = adoptedDeletedWithError(`${module}.${type}`, name, props, opts);
    if (adoptedRefusal) throw new pulumi.RunError(adoptedRefusal);
    warnUnknownConfigKeys(); // a misspelt vmhost: key is ignored by the provider: said once per program
    warnPlaintextApiKey();
    // ignoreChanges "*" is spelled out for the engine so that our hidden option inputs survive it (engineIgnoreChanges).
    if (opts?.ignoreChanges?.length) opts = { ...opts, ignoreChanges: engineIgnoreChanges(opts.ignoreChanges, Object.keys(props)) };
    const quiet = !process.env.PULUMI_DEBUG_PROMISE_LEAKS;
    const limit = Error.stackTraceLimit;
    if (quiet) Error.stackTraceLimit = 0;
    try {
      super(provider, name, props, opts, module, type);
    } catch (error) {
      // Captured under limit 0, the error's stack names no frame: give it the stack of this constructor call.
      if (quiet && error instanceof Error) {
        Error.stackTraceLimit = limit;
        Error.captureStackTrace(error, VmhostResource);
      }
      throw error;
    } finally {
      Error.stackTraceLimit = limit;
    }
  }
}
