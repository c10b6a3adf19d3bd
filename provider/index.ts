/**
 * `pulumi-vmhost/provider`: the dynamic-provider implementations behind the SDK's resource classes.
 * Programs never import this directly: the serialized stub of each resource requires it at call time.
 */
export { providers, typeToken } from "./registry";
export { configure } from "./context";
