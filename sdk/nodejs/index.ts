/**
 * `pulumi-vmhost`: resource classes and functions for Pulumi programs.
 */
export {};
