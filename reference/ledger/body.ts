/**
 * Decoding of request bodies the way the JSON API's codecs do it: a wrong type or a missing required field is a
 * decoding failure (400 text/plain, MalformedRequest), unknown fields are ignored, and null counts as absent.
 * Semantic validation (empty strings, ranges, syntax of ids) happens later and raises JsCantonErrors.
 */
import { MalformedRequest } from './errors.js';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Obj = Record<string, unknown>;

function fail(path: string, what: string): never {
  throw new MalformedRequest(`Invalid value for: body (${what} at '${path}')`);
}

export function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parse a JSON body; an empty body is `undefined` so callers decide whether it is allowed. */
export function parseJsonBody(raw: Buffer | string | undefined): unknown {
  if (raw === undefined) return undefined;
  const text = typeof raw === 'string' ? raw : raw.toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new MalformedRequest(`Invalid value for: body (${(e as Error).message})`);
  }
}

/** The body as an object; `emptyAs` stands in for an empty body when every field of the request is optional. */
export function bodyObject(v: unknown, emptyAs?: Obj): Obj {
  if (v === undefined && emptyAs !== undefined) return emptyAs;
  if (v === undefined) throw new MalformedRequest('Invalid value for: body (missing request body)');
  if (!isObject(v)) throw new MalformedRequest('Invalid value for: body (expected a JSON object)');
  return v;
}

const at = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);
const absent = (v: unknown) => v === undefined || v === null;

export function optObject(o: Obj, key: string, path = ''): Obj | undefined {
  const v = o[key];
  if (absent(v)) return undefined;
  if (!isObject(v)) fail(at(path, key), 'expected an object');
  return v;
}
export function reqObject(o: Obj, key: string, path = ''): Obj {
  const v = optObject(o, key, path);
  if (v === undefined) fail(at(path, key), 'missing required field');
  return v;
}
export function optString(o: Obj, key: string, path = ''): string | undefined {
  const v = o[key];
  if (absent(v)) return undefined;
  if (typeof v !== 'string') fail(at(path, key), 'expected a string');
  return v;
}
export function reqString(o: Obj, key: string, path = ''): string {
  const v = optString(o, key, path);
  if (v === undefined) fail(at(path, key), 'missing required field');
  return v;
}
export function optBool(o: Obj, key: string, path = ''): boolean | undefined {
  const v = o[key];
  if (absent(v)) return undefined;
  if (typeof v !== 'boolean') fail(at(path, key), 'expected a boolean');
  return v;
}

const INT32 = 2 ** 31;
/** An integer field; int64 values beyond JavaScript's safe range are refused as undecodable. */
export function optInt(o: Obj, key: string, path = '', bits: 32 | 64 = 32): number | undefined {
  const v = o[key];
  if (absent(v)) return undefined;
  // The JSON API's codecs also take int64 values as decimal strings.
  const n = typeof v === 'string' && bits === 64 && /^-?\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) fail(at(path, key), `expected an int${bits}`);
  if (bits === 32 ? n < -INT32 || n >= INT32 : !Number.isSafeInteger(n)) fail(at(path, key), `int${bits} out of range`);
  return n;
}
export function reqInt(o: Obj, key: string, path = '', bits: 32 | 64 = 32): number {
  const v = optInt(o, key, path, bits);
  if (v === undefined) fail(at(path, key), 'missing required field');
  return v;
}
export function optArray(o: Obj, key: string, path = ''): unknown[] | undefined {
  const v = o[key];
  if (absent(v)) return undefined;
  if (!Array.isArray(v)) fail(at(path, key), 'expected an array');
  return v;
}
export function reqArray(o: Obj, key: string, path = ''): unknown[] {
  const v = optArray(o, key, path);
  if (v === undefined) fail(at(path, key), 'missing required field');
  return v;
}
export function optStringArray(o: Obj, key: string, path = ''): string[] | undefined {
  const a = optArray(o, key, path);
  if (a === undefined) return undefined;
  return a.map((x, i) => {
    if (typeof x !== 'string') fail(`${at(path, key)}[${i}]`, 'expected a string');
    return x;
  });
}
/** A map of string to string (protobuf map<string,string>). */
export function optStringMap(o: Obj, key: string, path = ''): Record<string, string> | undefined {
  const m = optObject(o, key, path);
  if (m === undefined) return undefined;
  for (const [k, v] of Object.entries(m)) if (typeof v !== 'string') fail(`${at(path, key)}.${k}`, 'expected a string');
  return m as Record<string, string>;
}
export function elementObject(v: unknown, path: string): Obj {
  if (!isObject(v)) fail(path, 'expected an object');
  return v;
}

/**
 * A protobuf oneof encoded as an object with exactly one key naming the variant (`{CanActAs: {...}}`). Returns the
 * variant name and its payload object.
 */
export function oneOf(v: unknown, path: string, variants: readonly string[]): [string, Obj] {
  if (!isObject(v)) fail(path, 'expected an object');
  const keys = Object.keys(v).filter((k) => !absent(v[k]));
  const known = keys.filter((k) => variants.includes(k));
  if (known.length !== 1) fail(path, `expected exactly one of ${variants.join(', ')}`);
  const name = known[0] as string;
  const payload = v[name];
  if (!isObject(payload)) fail(`${path}.${name}`, 'expected an object');
  return [name, payload];
}

/** A protobuf enum given by its name. */
export function optEnum<T extends string>(o: Obj, key: string, values: readonly T[], path = ''): T | undefined {
  const v = optString(o, key, path);
  if (v === undefined) return undefined;
  if (!(values as readonly string[]).includes(v)) fail(at(path, key), `unknown enum value ${JSON.stringify(v.slice(0, 80))}`);
  return v as T;
}
