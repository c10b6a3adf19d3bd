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
