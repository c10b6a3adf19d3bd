/** The text of a thrown value, as the engine prints it: an Error's message, anything else as a string. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
