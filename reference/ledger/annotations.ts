/** Annotation rules of ObjectMeta (SPEC.md, ObjectMeta; FACTS.md, users). */
import { err } from './errors.js';
import type { FaultSet } from '../faults.js';
import { F } from './faults-users.js';

const NO_FAULTS = { has: () => false } as Pick<FaultSet, 'has'>;
type Faults = Pick<FaultSet, 'has'>;

export const MAX_ANNOTATIONS_BYTES = 262144;

const LABEL = /^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?$/;
const NAME = /^[a-zA-Z0-9]([a-zA-Z0-9._-]*[a-zA-Z0-9])?$/;

/** Key = optional DNS-subdomain prefix (<= 253 chars) + '/' + name (<= 63 chars, alphanumeric at both ends). */
export function isAnnotationKey(key: string, faults: Faults = NO_FAULTS): boolean {
  const parts = key.split('/');
  if (parts.length > 2 && !faults.has(F.twoSlashes)) return false;
  const name = parts[parts.length - 1] as string;
  const nameRe = faults.has(F.namePlus) ? /^[a-zA-Z0-9]([a-zA-Z0-9._+-]*[a-zA-Z0-9])?$/ : faults.has(F.nameEnds) ? /^[a-zA-Z0-9][a-zA-Z0-9._-]*$/ : NAME;
  const nameOk = (name.length > 0 && name.length <= (faults.has(F.name64) ? 64 : 63) && nameRe.test(name)) || (faults.has(F.nameEmptyAccepted) && name === '' && parts.length > 1);
  if (!nameOk) return false;
  if (faults.has(F.nameUnderscoreRejected) && name.includes('_')) return false;
  if (parts.length === 1) return true;
  const prefix = parts[0] as string;
  const max = faults.has(F.prefix254) ? 254 : faults.has(F.prefix253Rejected) ? 252 : 253;
  const label = faults.has(F.prefixHyphen) ? /^[a-zA-Z0-9-]*$/ : LABEL;
  if (prefix.length === 0) return faults.has(F.prefixEmpty);
  return prefix.length <= max && prefix.split('.').every((l) => label.test(l));
}

/** UTF-8 bytes of keys and values, not counting entries whose value is empty (they are deletions). */
export function annotationsSize(a: Record<string, string>, faults: Faults = NO_FAULTS): number {
  let n = 0;
  const size = faults.has(F.sizeInChars) ? (s: string) => s.length : (s: string) => Buffer.byteLength(s);
  for (const [k, v] of Object.entries(a)) if (v !== '' || faults.has(F.sizeCountsEmpty)) n += size(k) + size(v);
  return n;
}

/** Checks keys and size; on create an empty value is refused, on update it means "remove the key". */
export function validateAnnotations(a: Record<string, string>, mode: 'create' | 'update', faults: Faults = NO_FAULTS): void {
  for (const [k, v] of Object.entries(a)) {
    if (!isAnnotationKey(k, faults)) {
      const cause = `Key prefix segment '${k.slice(0, 300)}' has invalid syntax`;
      throw faults.has(F.keyCode) ? err.invalidField('user.metadata.annotations', cause) : err.invalidArgument(cause);
    }
    if (mode === 'create' && v === '' && !faults.has(F.emptyOnCreate)) throw err.invalidArgument(`The value of annotation key '${k.slice(0, 300)}' is empty`);
  }
  checkSize(a, faults);
}

export function checkSize(a: Record<string, string>, faults: Faults = NO_FAULTS): void {
  const size = annotationsSize(a, faults);
  const over = faults.has(F.sizeOffByOne) ? size > MAX_ANNOTATIONS_BYTES + 1 : faults.has(F.sizeAtLimitRejected) ? size >= MAX_ANNOTATIONS_BYTES : size > MAX_ANNOTATIONS_BYTES;
  if (over) {
    throw err.invalidArgument(`annotations from field 'metadata.annotations' are larger than the limit of 256kb`);
  }
}

/** Merge an update into existing annotations: a non-empty value upserts, an empty value removes the key. */
export function mergeAnnotations(current: Record<string, string>, update: Record<string, string>, faults: Faults = NO_FAULTS): Record<string, string> {
  const out = faults.has(F.replace) ? {} : { ...current };
  for (const [k, v] of Object.entries(update)) {
    if (v === '' && faults.has(F.deleteMissing) && !(k in current)) throw err.invalidArgument(`annotation key '${k.slice(0, 300)}' does not exist`);
    if (v === '' && faults.has(F.emptyStored)) out[k] = '';
    else if (v === '') delete out[k];
    else if (!(faults.has(F.noOverwrite) && k in out)) out[k] = v;
  }
  return out;
}
