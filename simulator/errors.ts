/**
 * Error answers in Laravel's shapes (real-api-facts.md: the backend is Laravel). Handlers throw
 * {@link HttpError}; the server turns it into the response.
 */

/** An error answer: HTTP status, JSON body and extra headers. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body["message"] === "string" ? body["message"] : `HTTP ${status}`);
  }
}

/** The message of the 409 answer to a state-changing request on an instance that is busy. */
export const BUSY_MESSAGE = "Another operation is in progress on this instance. Try again when it finishes.";

/** 404 for an unknown or deleted resource id. */
export function notFound(what: string): HttpError {
  return new HttpError(404, { message: `${what} not found.` });
}

/** 409: an operation is running on the instance. */
export function busy(): HttpError {
  return new HttpError(409, { message: BUSY_MESSAGE });
}

/** 422 with Laravel's message: the first error, plus "(and N more errors)". */
export function validationFailed(errors: Record<string, string[]>): HttpError {
  const all = Object.values(errors).flat();
  const first = all[0] ?? "The given data was invalid.";
  const more = all.length - 1;
  const message = more > 0 ? `${first} (and ${more} more error${more > 1 ? "s" : ""})` : first;
  return new HttpError(422, { message, errors });
}

/** 422 for a single field. */
export function fieldError(field: string, text: string): HttpError {
  return validationFailed({ [field]: [text] });
}
