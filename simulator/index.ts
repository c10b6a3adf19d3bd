/**
 * `pulumi-vmhost/simulator`: a local implementation of the VM-hosting API for offline tests.
 */
export {};
