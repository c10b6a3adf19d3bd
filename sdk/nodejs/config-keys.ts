/**
 * Misspelt `vmhost:` stack config keys are ignored by the provider (it reads only the keys it knows), so
 * `vmhost:createtimeout` or `vmhost:api_key` would silently do nothing. The program sees the whole stack config
 * (the provider only gets it at its first call), so the SDK warns here, once per program, naming the key it
 * most likely meant. The known keys are provider/api/config-keys.ts CONFIG_KEYS. In a project named `vmhost`
 * the project's own keys share the namespace (Pulumi names them after the project), so nothing is warned there.
 */
import * as pulumi from "@pulumi/pulumi";
import { unknownConfigKeyWarnings } from "../../provider/api/config-keys";

let checked = false;

/** Warns (once per program) about every `vmhost:` config key the provider does not read. */
export function warnUnknownConfigKeys(): void {
  if (checked) return;
  checked = true;
  let keys: string[];
  let project: string;
  try {
    keys = Object.keys(pulumi.runtime.allConfig());
    project = pulumi.getProject();
  } catch {
    return; // not inside a Pulumi program
  }
  // In a project named `vmhost` its own keys (`pulumi config set region x`) are `vmhost:region` too: not warned about.
  for (const warning of unknownConfigKeyWarnings(keys, project)) void pulumi.log.warn(warning);
}

let keyChecked = false;

/**
 * Warns (once per program) when `vmhost:apiKey` is in the stack config in plain text: the stack file holding it is
 * usually committed (new-user audit: nothing said so). Which keys are secret comes from the engine
 * (PULUMI_CONFIG_SECRET_KEYS, read by the runtime's isConfigSecret, which the SDK does not type as public); when the
 * engine sends no such list, nothing is said rather than a guess.
 */
export function warnPlaintextApiKey(): void {
  if (keyChecked) return;
  keyChecked = true;
  try {
    const runtime = pulumi.runtime as unknown as { isConfigSecret?: (key: string) => boolean; allConfig(): Record<string, string> };
    if (typeof runtime.isConfigSecret !== "function" || process.env.PULUMI_CONFIG_SECRET_KEYS === undefined) return;
    if (runtime.allConfig()["vmhost:apiKey"] === undefined || runtime.isConfigSecret("vmhost:apiKey")) return;
  } catch {
    return; // not inside a Pulumi program
  }
  void pulumi.log.warn(
    "vmhost:apiKey is stored in plain text in this stack's config file: set it as a secret with " +
      "`pulumi config set --secret vmhost:apiKey <key>` (or use VMHOST_API_KEY), and rotate it if the file was shared.",
  );
}
