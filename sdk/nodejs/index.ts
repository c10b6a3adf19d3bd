/**
 * `pulumi-vmhost`: resource classes and functions for Pulumi programs.
 */
export {};
export * from "./snapshot";
export * from "./firewall-rule";
