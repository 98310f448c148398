/**
 * Bodies of the withdraw choice-context endpoints (SPEC.md, POST .../choice-contexts/withdraw): a JSON object with an
 * optional `meta` object and an optional boolean `excludeDebugFields`. Invalid bodies are malformed in exactly one
 * way: not JSON, not an object, or one documented field of the wrong type.
 */
import fc from 'fast-check';

/**
 * The `meta` of a choice-context request: a map from string to string (`{"key": "value"}`, FACTS.md: Token registry),
 * not the token standard's `{values: {...}}` metadata record, which a registry may refuse with 400.
 */
export function meta(): fc.Arbitrary<Record<string, string>> {
  const key = fc.stringMatching(/^[a-z][a-z0-9.-]{0,15}$/);
  return fc.dictionary(key, fc.string({ maxLength: 20 }), { maxKeys: 3, noNullPrototype: true });
}

export interface ChoiceContextRequestConstraints {
  /** fixed value of excludeDebugFields; 'absent' leaves it out; undefined lets the generator choose */
  excludeDebugFields?: boolean | 'absent';
  /** false leaves meta out */
  withMeta?: boolean;
}

/** A valid GetChoiceContextRequest. */
export function choiceContextRequest(c: ChoiceContextRequestConstraints = {}): fc.Arbitrary<Record<string, unknown>> {
  const debug: fc.Arbitrary<boolean | undefined> =
    c.excludeDebugFields === 'absent' ? fc.constant(undefined) : c.excludeDebugFields !== undefined ? fc.constant(c.excludeDebugFields) : fc.option(fc.boolean(), { nil: undefined });
  const m: fc.Arbitrary<Record<string, unknown> | undefined> = c.withMeta === false ? fc.constant(undefined) : fc.option(meta(), { nil: undefined });
  return fc.tuple(debug, m).map(([x, mm]) => ({ ...(x !== undefined ? { excludeDebugFields: x } : {}), ...(mm !== undefined ? { meta: mm } : {}) }));
}

/** A malformed body, as the raw text to send (so that invalid JSON is possible), with what is wrong with it. */
export interface MalformedBody {
  text: string;
  what: string;
}

const notBoolean = (): fc.Arbitrary<unknown> =>
  fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant([]), fc.constant({}), fc.constantFrom('true', 'false', 0, 1));
const notObject = (): fc.Arbitrary<unknown> => fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.array(fc.integer(), { maxLength: 3 }));

/** A body that is not a JSON object of the documented fields and types. */
export function invalidChoiceContextRequest(): fc.Arbitrary<MalformedBody> {
  return fc.oneof(
    notBoolean().map((v) => ({ text: JSON.stringify({ excludeDebugFields: v }), what: 'excludeDebugFields is not a boolean' })),
    notObject().map((v) => ({ text: JSON.stringify({ meta: v }), what: 'meta is not an object' })),
    notObject().map((v) => ({ text: JSON.stringify(v), what: 'the body is not an object' })),
    fc.constantFrom('{', '{"meta":', '{"excludeDebugFields":tru}', "{'meta':{}}", '{"meta":{}}}').map((text) => ({ text, what: 'the body is not JSON' })),
  );
}
