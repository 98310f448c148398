/** Annotation rules of ObjectMeta (SPEC.md, ObjectMeta; FACTS.md, users). */
import { err } from './errors.js';

export const MAX_ANNOTATIONS_BYTES = 262144;

const LABEL = /^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?$/;
const NAME = /^[a-zA-Z0-9]([a-zA-Z0-9._-]*[a-zA-Z0-9])?$/;

/** Key = optional DNS-subdomain prefix (<= 253 chars) + '/' + name (<= 63 chars, alphanumeric at both ends). */
export function isAnnotationKey(key: string): boolean {
  const parts = key.split('/');
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1] as string;
  if (name.length === 0 || name.length > 63 || !NAME.test(name)) return false;
  if (parts.length === 1) return true;
  const prefix = parts[0] as string;
  return prefix.length > 0 && prefix.length <= 253 && prefix.split('.').every((l) => LABEL.test(l));
}

/** UTF-8 bytes of keys and values, not counting entries whose value is empty (they are deletions). */
export function annotationsSize(a: Record<string, string>): number {
  let n = 0;
  for (const [k, v] of Object.entries(a)) if (v !== '') n += Buffer.byteLength(k) + Buffer.byteLength(v);
  return n;
}

/** Checks keys and size; on create an empty value is refused, on update it means "remove the key". */
export function validateAnnotations(a: Record<string, string>, mode: 'create' | 'update'): void {
  for (const [k, v] of Object.entries(a)) {
    if (!isAnnotationKey(k)) throw err.invalidArgument(`Key prefix segment '${k.slice(0, 300)}' has invalid syntax`);
    if (mode === 'create' && v === '') throw err.invalidArgument(`The value of annotation key '${k.slice(0, 300)}' is empty`);
  }
  checkSize(a);
}

export function checkSize(a: Record<string, string>): void {
  if (annotationsSize(a) > MAX_ANNOTATIONS_BYTES) {
    throw err.invalidArgument(`annotations from field 'metadata.annotations' are larger than the limit of 256kb`);
  }
}

/** Merge an update into existing annotations: a non-empty value upserts, an empty value removes the key. */
export function mergeAnnotations(current: Record<string, string>, update: Record<string, string>): Record<string, string> {
  const out = { ...current };
  for (const [k, v] of Object.entries(update)) {
    if (v === '') delete out[k];
    else out[k] = v;
  }
  return out;
}
