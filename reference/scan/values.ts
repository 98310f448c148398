/**
 * Daml value encodings of scan's event endpoints. Values are stored in the compact JSON form (plain JSON values:
 * records as objects, variants as {tag, value}, numbers and int64s as strings); protobuf_json renders them in the
 * shape of the Daml-LF value protobuf message: a record is {fields: [{label, value}]}, a value is a one-key object
 * naming its kind ({party}, {text}, {numeric}, {int64}, {timestamp}, {contractId}, {record}, {variant}, {list}, ...).
 */
import { parseIsoMicros } from '../data/seed.js';

export type DamlValueEncoding = 'compact_json' | 'protobuf_json';
export const DAML_VALUE_ENCODINGS: readonly DamlValueEncoding[] = ['compact_json', 'protobuf_json'];

const PARTY = /^[A-Za-z0-9_\-:.]+::1220[0-9a-f]{64}$/;
const CONTRACT_ID = /^00[0-9a-f]{64}/;
const NUMERIC = /^-?\d+\.\d+$/;
const INT = /^-?\d+$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

export function protoValue(v: unknown): unknown {
  if (v === null || v === undefined) return { optional: {} };
  if (typeof v === 'boolean') return { bool: v };
  if (typeof v === 'number') return { int64: String(v) };
  if (typeof v === 'string') {
    if (PARTY.test(v)) return { party: v };
    if (CONTRACT_ID.test(v)) return { contractId: v };
    if (NUMERIC.test(v)) return { numeric: v };
    if (INT.test(v)) return { int64: v };
    if (TIMESTAMP.test(v)) return { timestamp: String(parseIsoMicros(v) ?? 0) };
    return { text: v };
  }
  if (Array.isArray(v)) return { list: { elements: v.map(protoValue) } };
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 2 && typeof o.tag === 'string' && 'value' in o) {
      return { variant: { constructor: o.tag, value: protoValue(o.value) } };
    }
    return { record: protoRecord(o) };
  }
  return { text: String(v) };
}

export function protoRecord(o: Record<string, unknown>): { fields: { label: string; value: unknown }[] } {
  return { fields: Object.entries(o).map(([label, value]) => ({ label, value: protoValue(value) })) };
}

/** a record (create arguments) in the requested encoding */
export function encodeRecord(o: Record<string, unknown>, enc: DamlValueEncoding): unknown {
  return enc === 'compact_json' ? structuredClone(o) : protoRecord(o);
}

/** any value (choice argument, exercise result) in the requested encoding */
export function encodeValue(v: unknown, enc: DamlValueEncoding): unknown {
  return enc === 'compact_json' ? structuredClone(v) : protoValue(v);
}
