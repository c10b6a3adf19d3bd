/**
 * Request encoding: form bodies, query strings and path templates, following what the Laravel backend
 * accepts (real-api-facts.md).
 */

/** A scalar value of a form field or query parameter. */
export type FormScalar = string | number | boolean;

/** A form field or query value: scalars, arrays of scalars, or null/undefined (left out). */
export type FormValue = FormScalar | readonly (FormScalar | null | undefined)[] | null | undefined;

/** A form body or query: field name -> value. */
export type FormFields = Readonly<Record<string, FormValue>>;

/** Path parameters: placeholder name -> value. */
export type PathParams = Readonly<Record<string, string | number>>;

/** A request was built wrongly (a programming error): thrown before anything is sent. */
export class RequestBuildError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RequestBuildError";
  }
}

// Laravel's `boolean` rule accepts 1/0/true/false/"1"/"0" but NOT the string "true", which is what a
// naive form encoder sends: booleans always go out as 1/0.
function scalarText(value: FormScalar): string {
  if (typeof value === "boolean") return value ? "1" : "0";
  return String(value);
}

function appendFields(params: URLSearchParams, fields: FormFields): void {
  for (const [name, value] of Object.entries(fields)) {
    if (value === null || value === undefined) continue; // null means "not sent", never the text "null"
    if (Array.isArray(value)) {
      // PHP/Laravel array syntax: ssh_keys[]=a&ssh_keys[]=b. An empty array sends nothing.
      for (const item of value as readonly (FormScalar | null | undefined)[]) {
        if (item === null || item === undefined) continue;
        params.append(`${name}[]`, scalarText(item));
      }
      continue;
    }
    // Empty strings are sent: for some operations a blank value is meaningful (blank `public_network`
    // removes the address, blank `vswitch` detaches the private network).
    params.append(name, scalarText(value as FormScalar));
  }
}

/**
 * Encodes a form body as `application/x-www-form-urlencoded`: booleans as `1`/`0`, arrays as `k[]=v`
 * repeated, null/undefined fields left out, empty strings kept.
 */
export function encodeForm(fields: FormFields): string {
  const params = new URLSearchParams();
  appendFields(params, fields);
  return params.toString();
}

/** Encodes a query string with the same rules as {@link encodeForm}; returns `""` or `"?..."`. */
export function encodeQuery(query: FormFields | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  appendFields(params, query);
  const text = params.toString();
  return text ? `?${text}` : "";
}

/**
 * Fills a path template's `{name}` placeholders with URL-encoded values. A missing (or empty) parameter or
 * one the template does not have is a programming error: thrown before sending, naming the operation,
 * instead of requesting a wrong URL such as `/instance//detail`.
 */
export function fillPath(operation: string, template: string, params: PathParams | undefined): string {
  const given = params ?? {};
  const used = new Set<string>();
  const filled = template.replace(/\{([A-Za-z0-9_]+)\}/g, (_match, name: string) => {
    const value = given[name];
    if (value === undefined || value === null || String(value) === "") {
      throw new RequestBuildError(`${operation}: missing path parameter "${name}" for ${template}`);
    }
    used.add(name);
    return encodeURIComponent(String(value));
  });
  const unknown = Object.keys(given).filter((name) => !used.has(name));
  if (unknown.length) {
    throw new RequestBuildError(`${operation}: unknown path parameter(s) ${unknown.map((n) => `"${n}"`).join(", ")} for ${template}`);
  }
  return filled;
}

/** Options of one generic call: path parameters, query, form body, abort signal. */
export interface CallOptions {
  /** Values of the path template's `{placeholders}`. */
  path?: PathParams;
  /** Query parameters (same encoding rules as form bodies). */
  query?: FormFields;
  /** Form body fields; when given, the body is sent as `application/x-www-form-urlencoded`. */
  body?: FormFields;
  /** Aborts the call (including waits between retries). */
  signal?: AbortSignal;
  /** Called when an attempt leaves the rate limiter for the host (RequestOptions.onSend). */
  onSend?: () => void;
  /**
   * The input each body field comes from, as users write it (`public_network` -> `publicNetworkId`), for the
   * field errors of a 422 answer: built with the body by {@link bodyFromInputs}, so each wire name is written once.
   */
  inputNames?: Readonly<Record<string, string>>;
}

/**
 * A request body whose fields name the input they come from: `{ public_network: ["publicNetworkId", value] }`
 * gives the body `{ public_network: value }` and the names a validation error shows the user. The area
 * clients build every body from a user's input this way: this is the one place a wire field meets its input.
 */
export function bodyFromInputs(fields: Readonly<Record<string, readonly [input: string, value: FormValue]>>): { body: FormFields; inputNames: Record<string, string> } {
  const body: Record<string, FormValue> = {};
  const inputNames: Record<string, string> = {};
  for (const [wire, [input, value]] of Object.entries(fields)) {
    body[wire] = value;
    inputNames[wire] = input;
  }
  return { body, inputNames };
}
