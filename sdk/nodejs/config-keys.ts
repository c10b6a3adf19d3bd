/**
 * Misspelt `vmhost:` stack config keys are ignored by the provider (it reads only the keys it knows), so
 * `vmhost:createtimeout` or `vmhost:api_key` would silently do nothing. The program sees the whole stack config
 * (the provider only gets it at its first call), so the SDK warns here, once per program, naming the key it
 * most likely meant. The known keys are provider/api/config-keys.ts CONFIG_KEYS.
 */
import * as pulumi from "@pulumi/pulumi";
import { unknownConfigKeyWarnings } from "../../provider/api/config-keys";

let checked = false;

/** Warns (once per program) about every `vmhost:` config key the provider does not read. */
export function warnUnknownConfigKeys(): void {
  if (checked) return;
  checked = true;
  let keys: string[];
  try {
    keys = Object.keys(pulumi.runtime.allConfig());
  } catch {
    return; // not inside a Pulumi program
  }
  for (const warning of unknownConfigKeyWarnings(keys)) void pulumi.log.warn(warning);
}
