/**
 * `pulumi-vmhost`: resource classes and functions for Pulumi programs.
 */
export {};
export * from "./snapshot";
export * from "./firewall-rule";
export * from "./public-ip";
export * from "./vswitch-attachment";
export * from "./block-storage-attachment";
export * from "./instance";
export * from "./functions";
