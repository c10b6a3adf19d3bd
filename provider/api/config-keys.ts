/**
 * The stack config keys of the `vmhost` namespace: the one list (config.ts and context.ts read them through
 * configName, schema.json's config.variables documents them, tests/schema.test.ts keeps the two equal). A key outside it is ignored by
 * the provider, so a misspelt one (`vmhost:createtimeout`, `vmhost:api_key`) would pass unnoticed: the SDK
 * warns about it once per program ({@link unknownConfigKeyWarnings}). No imports: the SDK loads it in programs.
 */
export const CONFIG_KEYS = [
  "apiKey",
  "baseUrl",
  "routes",
  "maxRequestsPerSecond",
  "requestTimeout",
  "createTimeout",
  "updateTimeout",
  "deleteTimeout",
] as const;

/** A `vmhost:` stack config key the provider reads (without the namespace), e.g. `apiKey`, `requestTimeout`. */
export type ConfigKey = (typeof CONFIG_KEYS)[number];

const NAMESPACE = "vmhost:";

/**
 * The full stack config name of a key of {@link CONFIG_KEYS} (`vmhost:apiKey`): every read goes through it, so a key
 * read but not listed (and so not documented, and warned about as unknown) does not compile.
 */
export const configName = (key: ConfigKey): string => NAMESPACE + key;

/** Edit distance (insertions, deletions, substitutions), for did-you-mean. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** The known key a misspelt one most likely meant: same letters ignoring case, "_" and "-", else at most 3 edits away. */
export function suggestConfigKey(key: string): ConfigKey | undefined {
  const squash = (k: string) => k.toLowerCase().replace(/[_\-.]/g, "");
  const same = CONFIG_KEYS.find((k) => squash(k) === squash(key));
  if (same) return same;
  let best: ConfigKey | undefined;
  let bestDistance = Infinity;
  for (const k of CONFIG_KEYS) {
    const d = distance(squash(key), squash(k));
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return bestDistance <= Math.min(3, Math.floor(key.length / 3)) ? best : undefined;
}

/**
 * One warning per `vmhost:` key of the stack config that the provider does not read, with the key it most likely
 * meant (or the list of keys). `keys` are full names as Pulumi gives them (`vmhost:apiKey`, `aws:region`, ...).
 * `project` is the Pulumi project's name: Pulumi stores a project's own keys under its name, so in a project
 * named `vmhost` `pulumi config set region x` is `vmhost:region`, read by the program, not a misspelt setting;
 * there the two cannot be told apart, and no key is warned about.
 */
export function unknownConfigKeyWarnings(keys: Iterable<string>, project?: string): string[] {
  if (project !== undefined && NAMESPACE === project + ":") return [];
  const known = new Set<string>(CONFIG_KEYS);
  const warnings: string[] = [];
  for (const full of keys) {
    if (!full.startsWith(NAMESPACE)) continue;
    const key = full.slice(NAMESPACE.length);
    if (known.has(key)) continue;
    const suggestion = suggestConfigKey(key);
    warnings.push(
      `config ${full} is not a vmhost setting and is ignored: ` +
        (suggestion
          ? `did you mean ${NAMESPACE}${suggestion}? (\`pulumi config rm ${full}\`, then set ${NAMESPACE}${suggestion})`
          : `the vmhost settings are ${CONFIG_KEYS.map((k) => NAMESPACE + k).join(", ")}`),
    );
  }
  return warnings;
}
