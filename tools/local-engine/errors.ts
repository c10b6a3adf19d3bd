import { types } from "node:util";

/**
 * The text of a thrown value, as the engine prints it: an Error's message, anything else as a string. An error
 * made in another realm (Node's own fs errors seen from a jest sandbox) is not `instanceof` this realm's Error:
 * errors are recognised by their internal slot (subclasses included).
 */
export function errorText(e: unknown): string {
  return types.isNativeError(e) ? e.message : String(e);
}
