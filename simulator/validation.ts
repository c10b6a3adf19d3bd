/**
 * Request validation in the manner of Laravel's validator: every rule failure is collected per field and
 * reported together as a 422. Form bodies carry only text, so types are checked on the text: integers as
 * digits, booleans as Laravel's `boolean` rule accepts them (`1`, `0`, `"1"`, `"0"`, JSON `true`/`false`,
 * but NOT the strings `"true"` / `"false"`). Blank strings count as absent, because Laravel's
 * ConvertEmptyStringsToNull middleware turns them into null before validation.
 */
import { validationFailed } from "./errors";
import { isUuid } from "./ids";

/** Parsed request input: form fields (text or arrays of text) or JSON values. */
export type Input = Record<string, unknown>;

/** Common options of a rule. */
export interface FieldOptions {
  required?: boolean;
}

const attribute = (field: string): string => field.replace(/_/g, " ");

/** Collects field errors; {@link Validator.check} throws the 422. */
export class Validator {
  private readonly errors: Record<string, string[]> = {};

  constructor(private readonly input: Input) {}

  /** The raw value, with blank strings and null read as absent. */
  private raw(field: string): unknown {
    const v = this.input[field];
    if (v === null || v === undefined) return undefined;
    if (typeof v === "string" && v.trim() === "") return undefined;
    return v;
  }

  /** True when the field is present and not blank. */
  has(field: string): boolean {
    return this.raw(field) !== undefined;
  }

  /** Records an error for a field. */
  fail(field: string, text: string): void {
    (this.errors[field] ??= []).push(text);
  }

  /** True when the field has an error already (later rules on it are skipped). */
  failed(field: string): boolean {
    return (this.errors[field]?.length ?? 0) > 0;
  }

  private missing(field: string, opts: FieldOptions): undefined {
    if (opts.required) this.fail(field, `The ${attribute(field)} field is required.`);
    return undefined;
  }

  /** An integer field (digits in a form, a whole number in JSON). */
  integer(field: string, opts: FieldOptions & { min?: number; max?: number } = {}): number | undefined {
    const v = this.raw(field);
    if (v === undefined) return this.missing(field, opts);
    let n: number;
    if (typeof v === "number" && Number.isInteger(v)) n = v;
    else if (typeof v === "string" && /^\s*[-+]?\d+\s*$/.test(v)) n = Number(v);
    else {
      this.fail(field, `The ${attribute(field)} field must be an integer.`);
      return undefined;
    }
    if (opts.min !== undefined && n < opts.min) {
      this.fail(field, `The ${attribute(field)} field must be at least ${opts.min}.`);
      return undefined;
    }
    if (opts.max !== undefined && n > opts.max) {
      this.fail(field, `The ${attribute(field)} field must not be greater than ${opts.max}.`);
      return undefined;
    }
    return n;
  }

  /** A boolean field, accepted exactly as Laravel's `boolean` rule does. */
  boolean(field: string, opts: FieldOptions = {}): boolean | undefined {
    const v = this.raw(field);
    if (v === undefined) return this.missing(field, opts);
    if (v === true || v === 1 || v === "1") return true;
    if (v === false || v === 0 || v === "0") return false;
    this.fail(field, `The ${attribute(field)} field must be true or false.`);
    return undefined;
  }

  /** A text field. */
  string(
    field: string,
    opts: FieldOptions & { min?: number; max?: number; pattern?: RegExp } = {},
  ): string | undefined {
    const v = this.raw(field);
    if (v === undefined) return this.missing(field, opts);
    if (typeof v !== "string") {
      this.fail(field, `The ${attribute(field)} field must be a string.`);
      return undefined;
    }
    if (opts.min !== undefined && v.length < opts.min) {
      this.fail(field, `The ${attribute(field)} field must be at least ${opts.min} characters.`);
      return undefined;
    }
    if (opts.max !== undefined && v.length > opts.max) {
      this.fail(field, `The ${attribute(field)} field must not be greater than ${opts.max} characters.`);
      return undefined;
    }
    if (opts.pattern && !opts.pattern.test(v)) {
      this.fail(field, `The ${attribute(field)} field format is invalid.`);
      return undefined;
    }
    return v;
  }

  /** A uuid field. */
  uuid(field: string, opts: FieldOptions = {}): string | undefined {
    const v = this.string(field, opts);
    if (v === undefined) return undefined;
    if (!isUuid(v)) {
      this.fail(field, `The ${attribute(field)} field must be a valid UUID.`);
      return undefined;
    }
    return v.toLowerCase();
  }

  /** A field whose value must be one of `values` (compared case-sensitively). */
  oneOf<T extends string>(field: string, values: readonly T[], opts: FieldOptions = {}): T | undefined {
    const v = this.string(field, opts);
    if (v === undefined) return undefined;
    if (!(values as readonly string[]).includes(v)) {
      this.fail(field, `The selected ${attribute(field)} is invalid.`);
      return undefined;
    }
    return v as T;
  }

  /** An array of non-blank strings (`k[]=a&k[]=b` in a form, an array in JSON); null/absent = undefined. */
  stringArray(field: string, opts: FieldOptions = {}): string[] | undefined {
    const v = this.raw(field);
    if (v === undefined) return this.missing(field, opts);
    if (!Array.isArray(v)) {
      this.fail(field, `The ${attribute(field)} field must be an array.`);
      return undefined;
    }
    const out: string[] = [];
    v.forEach((item, i) => {
      if (typeof item !== "string" || item.trim() === "") this.fail(`${field}.${i}`, `The ${attribute(field)}.${i} field must be a string.`);
      else out.push(item);
    });
    return out;
  }

  /** A `YYYY-MM-DD` date text. */
  date(field: string, opts: FieldOptions = {}): string | undefined {
    const v = this.string(field, opts);
    if (v === undefined) return undefined;
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
    // Round-trip through Date so 2024-13-01 or 2024-02-30 (which Date would roll over) are refused.
    const d = m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!)) : undefined;
    const valid = m && d && d.getUTCFullYear() === +m[1]! && d.getUTCMonth() === +m[2]! - 1 && d.getUTCDate() === +m[3]!;
    if (!valid) {
      this.fail(field, `The ${attribute(field)} field must match the format Y-m-d.`);
      return undefined;
    }
    return v;
  }

  /** Throws the 422 when any rule failed. */
  check(): void {
    if (Object.keys(this.errors).length > 0) throw validationFailed(this.errors);
  }
}

/** Hostname rule: RFC 1123 labels separated by dots, at most 63 characters in all (one DNS label's worth). */
export const HOSTNAME_PATTERN = /^(?=.{1,63}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** Reverse-DNS rule: a fully qualified name of RFC 1123 labels, up to 253 characters, optional final dot. */
export const FQDN_PATTERN = /^(?=.{1,254}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

/** Username rule: a Linux login name. */
export const USERNAME_PATTERN = /^[a-z_][a-z0-9_-]{0,31}$/;

/** True for an IPv4 address, optionally with a `/prefix`. */
export function isIpv4OrCidr(text: string): boolean {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?:\/(\d{1,2}))?$/.exec(text);
  if (!m) return false;
  const octets = [m[1], m[2], m[3], m[4]].map(Number);
  if (octets.some((o) => o > 255)) return false;
  return m[5] === undefined || Number(m[5]) <= 32;
}
