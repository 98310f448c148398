/** daml_value_encoding values of scan's event endpoints: the two documented ones, and any other string (invalid). */
import fc from 'fast-check';

export const DAML_VALUE_ENCODINGS = ['compact_json', 'protobuf_json'] as const;

export function damlValueEncoding(): fc.Arbitrary<(typeof DAML_VALUE_ENCODINGS)[number]> {
  return fc.constantFrom(...DAML_VALUE_ENCODINGS);
}

/** a non-empty string that is neither documented encoding: near misses (case, separators) and arbitrary text */
export function invalidDamlValueEncoding(): fc.Arbitrary<string> {
  const nearMiss = fc.constantFrom('COMPACT_JSON', 'Protobuf_Json', 'compact-json', 'protobuf', 'json', 'compact_json ', ' protobuf_json', 'compactjson', 'proto_json');
  const text = fc.string({ minLength: 1, maxLength: 24, unit: 'grapheme-ascii' });
  return fc.oneof(nearMiss, text).filter((s) => !(DAML_VALUE_ENCODINGS as readonly string[]).includes(s) && s.trim() !== '');
}
