/**
 * `pulumi-vmhost/api`: the HTTP client for the whole VM-hosting API.
 */
export * from "./routes";
