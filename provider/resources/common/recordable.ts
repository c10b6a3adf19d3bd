import type * as pulumi from "@pulumi/pulumi";
import { ResourceInitError } from "./errors";

/** The key under which Pulumi's dynamic-provider host keeps the serialized provider in every property bag. */
export const PROVIDER_KEY = "__provider";

/**
 * Makes a provider's initialization failures recordable AND later usable by the real Pulumi engine.
 *
 * When `create` or `update` throws an error with an `id`, the dynamic-provider host
 * (@pulumi/pulumi `cmd/dynamic-provider/index.ts`, `grpcResponseFromError`) sends exactly `e.properties` as
 * the ErrorResourceInitFailed detail; unlike a success (`resultIncludingProvider`), it does NOT add the
 * serialized provider. The engine stores those properties as the resource's outputs
 * (pulumi/pulumi `pkg/resource/deploy/step.go`, CreateStep.Apply / UpdateStep.Apply on `resource.StatusPartialFailure`)
 * and later sends them, not the inputs, to Read and Delete, where the host loads the provider from
 * `props.__provider` (`getProvider`). Without it, refresh and destroy of a VM recorded after a failed create
 * fail with "code must be a string, not undefined". So every ResourceInitError leaving create/update gets
 * the `__provider` of the inputs it was called with, here, once for all resources.
 */
export function withRecordableFailures<P extends pulumi.dynamic.ResourceProvider>(provider: P): P {
  const carryProvider = (inputs: unknown, e: unknown): unknown => {
    const key = (inputs as Record<string, unknown> | undefined)?.[PROVIDER_KEY];
    if (e instanceof ResourceInitError && typeof key === "string" && e.properties[PROVIDER_KEY] === undefined)
      (e.properties as Record<string, unknown>)[PROVIDER_KEY] = key;
    return e;
  };
  const wrapped: pulumi.dynamic.ResourceProvider = {
    ...provider,
    create: async (inputs) => {
      try {
        return await provider.create(inputs);
      } catch (e) {
        throw carryProvider(inputs, e);
      }
    },
  };
  if (provider.update) {
    const update = provider.update.bind(provider);
    wrapped.update = async (id, olds, news) => {
      try {
        return await update(id, olds, news);
      } catch (e) {
        throw carryProvider(news, e);
      }
    };
  }
  return wrapped as P;
}
