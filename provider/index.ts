/**
 * `pulumi-vmhost/provider`: the dynamic-provider implementations behind the SDK's resource classes.
 */
export {};
