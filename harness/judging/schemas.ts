/**
 * The schema registry: the four OpenAPI documents, indexed by operation, with response schemas compiled by ajv on
 * first use. Each document is added to ajv whole, so shared components compile once and `$ref`s resolve as written.
 *
 * Two validator sets: responses are judged against the documents after `acceptNullOptionals` (real servers send an
 * unset optional field as JSON null, FACTS.md), requests (generator contract tests, `validateComponent`) against the
 * documents as written, so that a generated request never carries a null the document does not allow.
 */
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { Ajv2020, ValidateFunction, ErrorObject, Options } from 'ajv/dist/2020.js';
import { hasPrecompiled, loadPrecompiled, precompiledKey, writePrecompiled } from './precompiled-validators.js';
import { SPECS_DIR } from '../paths.js';
import { readYamlCached } from '../setup/yaml-cache.js';
import { APIS, type Api } from '../types.js';
import type { ReadOnlyPolicy } from '../transport/http.js';
import { SAFE_METHODS } from '../transport/safe-methods.js';

/**
 * ajv and ajv-formats, loaded on first use: a suite worker whose response validators are all precompiled
 * (precompiled-validators.ts) never compiles a schema, and loading ajv cost each worker about 0.1 s at its start.
 */
const requireHere = createRequire(import.meta.url);
let ajvModule: typeof import('ajv/dist/2020.js') | undefined;
const loadAjv = () => (ajvModule ??= requireHere('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js'));
// ajv-formats is CommonJS; its default export arrives wrapped under some loaders
const addFormats = (a: Ajv2020): void => {
  const m = requireHere('ajv-formats') as { default?: (a: Ajv2020) => void } & ((a: Ajv2020) => void);
  (m.default ?? m)(a);
};

/** The formats our schemas use beyond ajv-formats' (one definition: the compiled and the precompiled validators read it). */
const INT32 = { type: 'number' as const, validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 };
// JSON numbers above 2^53 lose precision but are still integers in the text; accept any integral number
const INT64 = { type: 'number' as const, validate: (n: number) => Number.isInteger(n) };

/** What an ajv made by createAjv holds as its formats, without making one: ajv-formats' full set, int32 and int64. */
function formatsOfCreateAjv(): Ajv2020['formats'] {
  const { fullFormats } = requireHere('ajv-formats/dist/formats') as { fullFormats: Record<string, unknown> };
  return { ...fullFormats, int32: INT32, int64: INT64 } as Ajv2020['formats'];
}

type Json = Record<string, unknown>;

export interface MediaInfo {
  /** JSON pointer of the schema inside its document, e.g. #/paths/~1v2~1users/post/responses/200/content/... */
  pointer?: string;
  requirement?: string;
}

export interface ResponseInfo {
  status: string;
  requirement?: string;
  content: Record<string, MediaInfo>;
}

export interface OperationInfo {
  api: Api;
  operationId: string;
  method: string;
  path: string;
  deprecated: boolean;
  /** `x-read-only: true`: not a GET, but changes no state (read-only mode lets it through) */
  readOnly: boolean;
  /** `x-setup: true`: an operation only FACTS.md describes (not SPEC.md); rules on it are SHOULD at most */
  setup: boolean;
  since?: string;
  until?: string;
  responses: Record<string, ResponseInfo>;
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

function resolveLocal(doc: Json, node: unknown): Json {
  let cur = node as Json;
  for (let depth = 0; depth < 10 && typeof cur?.$ref === 'string'; depth++) {
    const ref = cur.$ref as string;
    if (!ref.startsWith('#/')) throw new Error(`external $ref ${ref} is not supported`);
    cur = ref
      .slice(2)
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((o, k) => (o as Json | undefined)?.[k], doc) as Json;
  }
  return cur;
}

/** Which validator set: `response` accepts null for every optional property, `request` is the document as written. */
export type SchemaForm = 'request' | 'response';

type CodeOptions = NonNullable<Options['code']>;

/** Marks the schemas `acceptNullOptionals` adds, so their errors stay out of a failure message. */
export const NULL_OPTIONAL = 'x-null-optional';

// keywords under which a value is itself a schema, or a list or map of schemas (JSON Schema 2020-12)
const SUBSCHEMA = ['additionalProperties', 'items', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems'];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
// keywords that constrain a value; a property schema without any of them already accepts null
const CONSTRAINING = ['type', 'enum', 'const', '$ref', '$dynamicRef', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'properties', 'required', 'items', 'prefixItems', 'additionalProperties', 'format', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems'];
// keywords beside which adding 'null' to `type` would not be enough (they would still refuse null)
const NOT_BY_TYPE = ['enum', 'const', '$ref', '$dynamicRef', 'allOf', 'anyOf', 'oneOf', 'not', 'if'];

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A property schema that also accepts null: `type` widened where that is exact, else `anyOf: [schema, null]`. */
function orNull(schema: unknown): unknown {
  if (!isObject(schema)) return schema; // a boolean schema: true accepts null already, false is meant to refuse
  if (!CONSTRAINING.some((k) => k in schema)) return schema;
  const type = schema.type;
  if ((typeof type === 'string' || Array.isArray(type)) && !NOT_BY_TYPE.some((k) => k in schema)) {
    const types = Array.isArray(type) ? (type as string[]) : [type];
    return types.includes('null') ? schema : { ...schema, type: [...types, 'null'] };
  }
  return { [NULL_OPTIONAL]: true, anyOf: [schema, { [NULL_OPTIONAL]: true, type: 'null' }] };
}

/**
 * One schema, rewritten: every property its object schema does not list in `required` also accepts JSON null (its
 * type still checked when a value is present), in every nested schema. Map values (`additionalProperties`), array
 * items and union branches are not made nullable, only walked. A name required beside an `allOf` or a sibling `$ref`
 * (whose own schema may now accept null for it) is kept non-null there.
 */
export function acceptNullOptionalsInSchema(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const out: Json = { ...schema };
  for (const k of SUBSCHEMA) if (k in schema) out[k] = acceptNullOptionalsInSchema(schema[k]);
  for (const k of SUBSCHEMA_LISTS) {
    if (Array.isArray(schema[k])) out[k] = (schema[k] as unknown[]).map(acceptNullOptionalsInSchema);
  }
  for (const k of SUBSCHEMA_MAPS) {
    if (isObject(schema[k])) out[k] = Object.fromEntries(Object.entries(schema[k]).map(([n, s]) => [n, acceptNullOptionalsInSchema(s)]));
  }
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  if (isObject(out.properties)) {
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([n, s]) => [n, required.has(n) ? s : orNull(s)]));
  }
  if ('allOf' in schema || '$ref' in schema) {
    const own = isObject(out.properties) ? out.properties : {};
    const guards = [...required].filter((n) => !(n in own)).map((n) => [n, { not: { type: 'null' } }]);
    if (guards.length > 0) out.properties = { ...own, ...Object.fromEntries(guards) };
  }
  return out;
}

/**
 * An OpenAPI document whose response schemas accept JSON null for every optional property (FACTS.md: real
 * participants and Splice nodes send unset optional fields as null). Rewrites the component schemas and the inline
 * schemas of responses; parameters and request bodies are left as written. Returns a new document.
 */
export function acceptNullOptionals(doc: Json): Json {
  const out: Json = { ...doc };
  const media = (content: unknown) =>
    isObject(content)
      ? Object.fromEntries(Object.entries(content).map(([mt, m]) => [mt, isObject(m) && 'schema' in m ? { ...m, schema: acceptNullOptionalsInSchema(m.schema) } : m]))
      : content;
  const responses = (rs: unknown) =>
    isObject(rs) ? Object.fromEntries(Object.entries(rs).map(([s, r]) => [s, isObject(r) && 'content' in r ? { ...r, content: media(r.content) } : r])) : rs;
  if (isObject(doc.components)) {
    const c: Json = { ...doc.components };
    if (isObject(c.schemas)) c.schemas = Object.fromEntries(Object.entries(c.schemas).map(([n, s]) => [n, acceptNullOptionalsInSchema(s)]));
    if (isObject(c.responses)) c.responses = responses(c.responses);
    out.components = c;
  }
  if (isObject(doc.paths)) {
    out.paths = Object.fromEntries(
      Object.entries(doc.paths).map(([p, item]) => [
        p,
        isObject(item)
          ? Object.fromEntries(Object.entries(item).map(([m, op]) => [m, HTTP_METHODS.includes(m) && isObject(op) ? { ...op, responses: responses(op.responses) } : op]))
          : item,
      ]),
    );
  }
  return out;
}

/**
 * Constraints only FACTS.md gives (SPEC.md leaves them "not shown"), which the suite judges at level SHOULD under their
 * own requirement, apart from the operation's MUST response-schema rule. On an object schema, `x-facts-required` maps a
 * requirement id to the properties FACTS.md says real responses always carry (present and not null); on any schema,
 * `x-facts-schema` maps a requirement id to a schema the value also meets (a type, a non-empty list, a shape). The
 * document's own keywords (`required`, `type`, ...) are SPEC.md's: the MUST validator reads only them.
 */
export const FACTS_REQUIRED = 'x-facts-required';
export const FACTS_SCHEMA = 'x-facts-schema';

/** `judge`: the document with the FACTS.md constraints made part of it; `reach`: with a mark that always fails there. */
export type FactsMode = 'judge' | 'reach';

/** Marks the schemas withFacts adds, with the requirement they judge (judge) or whose reach they show (reach). */
export const FACTS_TAG = 'x-facts-of';
export const FACTS_REACH = 'x-facts-reach';

const factsKeys = (node: Json, key: string): Json => (isObject(node[key]) ? (node[key] as Json) : {});

/**
 * An OpenAPI document with the FACTS.md constraints made part of the schemas where they are marked, each inside a
 * schema tagged with its requirement, so that a failure names the requirement it breaks. `judge`: the names of
 * `x-facts-required` required and not null, the schema of `x-facts-schema` met (under `anyOf`, whose failure the tag
 * carries). `reach`: a schema that always fails, tagged with the requirement, where the constraints are: its failures
 * say which requirements have a value in the body to apply to (a marked object in the branch of a union the body
 * takes, a marked property that is present and not null). Apply before acceptNullOptionals. Returns a new document.
 */
export function withFacts(doc: unknown, mode: FactsMode): unknown {
  if (Array.isArray(doc)) return doc.map((d) => withFacts(d, mode));
  if (!isObject(doc)) return doc;
  const out: Json = Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, k === FACTS_REQUIRED || k === FACTS_SCHEMA ? v : withFacts(v, mode)]));
  const required = factsKeys(doc, FACTS_REQUIRED);
  const schemas = factsKeys(doc, FACTS_SCHEMA);
  const ids = [...new Set([...Object.keys(required), ...Object.keys(schemas)])].sort();
  if (ids.length === 0) return out;
  const added: Json[] = [];
  for (const id of ids) {
    if (mode === 'reach') {
      added.push({ [FACTS_REACH]: id, not: {} });
      continue;
    }
    const names = Array.isArray(required[id]) ? (required[id] as string[]) : [];
    if (names.length > 0) added.push({ [FACTS_TAG]: id, required: names, properties: Object.fromEntries(names.map((n) => [n, { [FACTS_TAG]: id, not: { type: 'null' } }])) });
    if (id in schemas) added.push({ [FACTS_TAG]: id, anyOf: [withFacts(schemas[id], mode)] });
  }
  return { ...out, allOf: [...(Array.isArray(out.allOf) ? (out.allOf as unknown[]) : []), ...added] };
}

/** The key under which ajv holds a document's FACTS.md form. */
const factsDocKey = (api: Api, mode: FactsMode) => `${api}~facts-${mode}`;

const tagOf = (e: ErrorObject, key: string): string | undefined => {
  const t = isObject(e.parentSchema) ? e.parentSchema[key] : undefined;
  return typeof t === 'string' ? t : undefined;
};

/** One requirement's verdict on a body from its FACTS.md constraints: `errors` empty when the body keeps it. */
export interface FactsJudgement {
  requirement: string;
  errors: string[];
}

/** `quiet`: an unknown format (a target's own document may use any) is ignored without a warning on the console. */
export function createAjv(o: { quiet?: boolean; code?: CodeOptions } = {}): Ajv2020 {
  const ajv = new (loadAjv().Ajv2020)({
    strict: false,
    allErrors: true,
    validateSchema: false,
    validateFormats: true,
    verbose: true,
    ...(o.quiet === true ? { logger: false as const } : {}),
    ...(o.code !== undefined ? { code: o.code } : {}),
  });
  addFormats(ajv);
  ajv.addFormat('int32', INT32);
  ajv.addFormat('int64', INT64);
  ajv.addKeyword({ keyword: 'x-requirement', schemaType: 'string' });
  ajv.addKeyword({ keyword: NULL_OPTIONAL, schemaType: 'boolean' });
  ajv.addKeyword({ keyword: FACTS_REQUIRED, schemaType: 'object' });
  ajv.addKeyword({ keyword: FACTS_SCHEMA, schemaType: 'object' });
  ajv.addKeyword({ keyword: FACTS_TAG, schemaType: 'string' });
  ajv.addKeyword({ keyword: FACTS_REACH, schemaType: 'string' });
  return ajv;
}

export class SchemaRegistry {
  /** request schemas, as written; response schemas, with null accepted for optional properties */
  private readonly ajvs: Partial<Record<SchemaForm, Ajv2020>> = {};
  private readonly docs = new Map<Api, Json>();
  private readonly ops = new Map<string, OperationInfo>();
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly readOnlyPolicies = new Map<Api, ReadOnlyPolicy>();
  /** response validators compiled ahead (precompiled-validators.ts): null once looked for and not found */
  private precompiled: Map<string, ValidateFunction> | null | undefined;

  /** `precompiled: false` compiles every validator at run time (the test that compares the two) */
  constructor(
    private readonly specsDir = SPECS_DIR,
    options: { precompiled?: boolean } = {},
  ) {
    if (options.precompiled === false) this.precompiled = null;
  }

  /** Whether the response validator at `pointer` is a precompiled one. */
  isPrecompiled(api: Api, pointer: string): boolean {
    return this.precompiledResponse(`${api}${pointer}`) !== undefined;
  }

  private precompiledResponse(key: string): ValidateFunction | undefined {
    if (this.precompiled === undefined) {
      const name = precompiledKey(this.specsDir, APIS);
      this.precompiled = (name !== undefined && hasPrecompiled(name) ? loadPrecompiled(name, formatsOfCreateAjv()) : undefined) ?? null;
    }
    return this.precompiled?.get(key);
  }

  /**
   * Writes the precompiled response validators of these documents when they are not there yet (the main thread, before
   * the suite workers start: they load them instead of compiling). False when nothing usable could be written.
   */
  precompileResponses(): boolean {
    const name = precompiledKey(this.specsDir, APIS);
    if (name === undefined) return false;
    if (hasPrecompiled(name)) return true;
    const { _ } = requireHere('ajv/dist/compile/codegen/index.js') as typeof import('ajv/dist/compile/codegen/index.js');
    const ajv = createAjv({ code: { source: true, formats: _`formats` } });
    const keys: string[] = [];
    for (const api of APIS) {
      this.load(api);
      ajv.addSchema(acceptNullOptionals(this.docs.get(api)!), api);
      const facts = new Set<string>();
      for (const op of this.operations(api)) {
        for (const r of Object.values(op.responses)) {
          for (const m of Object.values(r.content)) {
            if (m.pointer === undefined) continue;
            keys.push(`${api}${m.pointer}`);
            if (this.factsRequirements(api, m.pointer).length === 0) continue;
            facts.add(m.pointer);
            for (const mode of ['judge', 'reach'] as const) keys.push(`${factsDocKey(api, mode)}${m.pointer}`);
          }
        }
      }
      if (facts.size > 0) for (const mode of ['judge', 'reach'] as const) ajv.addSchema(this.factsDoc(api, mode), factsDocKey(api, mode));
    }
    return writePrecompiled(name, ajv, [...new Set(keys)]);
  }

  /** Documents load on first use, so a run of one interface never parses the others. */
  private load(api: Api): void {
    if (this.docs.has(api)) return;
    const doc = readYamlCached(join(this.specsDir, `${api}.yaml`)) as Json;
    this.docs.set(api, doc);
    for (const [form, ajv] of Object.entries(this.ajvs) as Array<[SchemaForm, Ajv2020]>) ajv.addSchema(form === 'response' ? acceptNullOptionals(doc) : doc, api);
    this.index(api, doc);
  }

  /** The ajv of one form, made on first use with the documents loaded so far (load() adds the later ones). */
  private ajv(form: SchemaForm): Ajv2020 {
    let ajv = this.ajvs[form];
    if (ajv === undefined) {
      ajv = this.ajvs[form] = createAjv();
      for (const [api, doc] of this.docs) ajv.addSchema(form === 'response' ? acceptNullOptionals(doc) : doc, api);
    }
    return ajv;
  }

  private index(api: Api, doc: Json): void {
    const paths = (doc.paths ?? {}) as Record<string, Json>;
    for (const [path, item] of Object.entries(paths)) {
      for (const method of HTTP_METHODS) {
        const op = item[method] as Json | undefined;
        if (op === undefined) continue;
        const operationId = String(op.operationId);
        const responses: Record<string, ResponseInfo> = {};
        for (const [status, rawResponse] of Object.entries((op.responses ?? {}) as Json)) {
          const r = resolveLocal(doc, rawResponse);
          // pointer into the operation, not the shared component: ajv resolves $refs from there
          const base = `#/paths/${escapePointer(path)}/${method}/responses/${status}`;
          const content: Record<string, MediaInfo> = {};
          for (const [mt, media] of Object.entries((r.content ?? {}) as Record<string, Json>)) {
            const refBase = typeof (rawResponse as Json).$ref === 'string' ? `${(rawResponse as Json).$ref as string}` : base;
            content[mt.toLowerCase()] = {
              ...(media.schema !== undefined ? { pointer: `${refBase}/content/${escapePointer(mt)}/schema` } : {}),
              ...(typeof media['x-requirement'] === 'string' ? { requirement: media['x-requirement'] } : {}),
            };
          }
          responses[status] = {
            status,
            content,
            ...(typeof r['x-requirement'] === 'string' ? { requirement: r['x-requirement'] } : {}),
          };
        }
        this.ops.set(`${api}:${operationId}`, {
          api,
          operationId,
          method: method.toUpperCase(),
          path,
          deprecated: op.deprecated === true,
          readOnly: op['x-read-only'] === true,
          setup: op['x-setup'] === true,
          ...(typeof op['x-since'] === 'string' ? { since: op['x-since'] } : {}),
          ...(typeof op['x-until'] === 'string' ? { until: op['x-until'] } : {}),
          responses,
        });
      }
    }
  }

  operations(api?: Api): OperationInfo[] {
    for (const a of api === undefined ? APIS : [api]) this.load(a);
    return [...this.ops.values()].filter((o) => api === undefined || o.api === api);
  }

  operation(api: Api, operationId: string): OperationInfo {
    this.load(api);
    const op = this.ops.get(`${api}:${operationId}`);
    if (op === undefined) throw new Error(`no operation ${operationId} in specs/${api}.yaml`);
    return op;
  }

  hasOperation(api: Api, operationId: string): boolean {
    this.load(api);
    return this.ops.has(`${api}:${operationId}`);
  }

  /** The documented response for a status: the exact code, else its class (e.g. 4XX). */
  response(op: OperationInfo, status: number): ResponseInfo | undefined {
    return op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`];
  }

  /** ajv validator for a schema by JSON pointer inside the api's document (a response schema unless told). */
  validatorAt(api: Api, pointer: string, form: SchemaForm = 'response'): ValidateFunction {
    const key = `${api}${pointer}`;
    let v = this.validators.get(`${form}:${key}`);
    if (v === undefined) {
      this.load(api);
      v = (form === 'response' ? this.precompiledResponse(key) : undefined) ?? this.ajv(form).getSchema(key);
      if (v === undefined) throw new Error(`no schema at ${key}`);
      this.validators.set(`${form}:${key}`, v);
    }
    return v;
  }

  /**
   * Validates a value against a named component schema, e.g. ('ledger', 'User'): as a request body (the document as
   * written) unless `form` is 'response' (null accepted for optional properties, as real servers send them).
   */
  validateComponent(api: Api, name: string, value: unknown, form: SchemaForm = 'request'): string[] {
    const v = this.validatorAt(api, `#/components/schemas/${escapePointer(name)}`, form);
    return v(value) ? [] : formatErrors(v.errors);
  }

  /** The OpenAPI document of an interface, as written (the request-derived generators walk it). */
  document(api: Api): Json {
    this.load(api);
    return this.docs.get(api)!;
  }

  /** ajv validator of an operation's JSON request body, the document as written; undefined when it takes none. */
  requestBodyValidator(api: Api, operationId: string): ValidateFunction | undefined {
    const op = this.operation(api, operationId);
    const raw = (this.document(api).paths as Record<string, Json>)[op.path]![op.method.toLowerCase()] as Json;
    const body = raw.requestBody as Json | undefined;
    if (body === undefined) return undefined;
    const base = typeof body.$ref === 'string' ? body.$ref : `#/paths/${escapePointer(op.path)}/${op.method.toLowerCase()}/requestBody`;
    if ((resolveLocal(this.document(api), body).content as Json | undefined)?.['application/json'] === undefined) return undefined;
    return this.validatorAt(api, `${base}/content/application~1json/schema`, 'request');
  }

  private readonly factsReqs = new Map<string, string[]>();
  private readonly factsDocsAdded = new Set<string>();

  /** A document's FACTS.md form, in response form (see withFacts). */
  private factsDoc(api: Api, mode: FactsMode): Json {
    return acceptNullOptionals(withFacts(this.document(api), mode) as Json);
  }

  /**
   * The requirements whose FACTS.md constraints (`x-facts-required`, `x-facts-schema`) the schema at `pointer` holds,
   * itself or through its `$ref`s, sorted.
   */
  factsRequirements(api: Api, pointer: string): string[] {
    const key = `${api}${pointer}`;
    let out = this.factsReqs.get(key);
    if (out !== undefined) return out;
    const doc = this.document(api);
    const found = new Set<string>();
    const seen = new Set<unknown>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (!isObject(node) || seen.has(node)) return;
      seen.add(node);
      for (const k of [FACTS_REQUIRED, FACTS_SCHEMA]) for (const r of Object.keys(factsKeys(node, k))) found.add(r);
      if (typeof node.$ref === 'string' && node.$ref.startsWith('#/')) walk(resolveLocal(doc, { $ref: node.$ref }));
      for (const [k, v] of Object.entries(node)) if (k !== FACTS_REQUIRED) walk(v);
    };
    walk(resolveLocal(doc, { $ref: pointer }));
    out = [...found].sort();
    this.factsReqs.set(key, out);
    return out;
  }

  /** Whether the FACTS.md validators of the response schema at `pointer` (see validateFacts) are precompiled ones. */
  isFactsPrecompiled(api: Api, pointer: string): boolean {
    return (['judge', 'reach'] as const).every((mode) => this.precompiledResponse(`${factsDocKey(api, mode)}${pointer}`) !== undefined);
  }

  private factsValidator(api: Api, mode: FactsMode, pointer: string): ValidateFunction {
    const docKey = factsDocKey(api, mode);
    const key = `${docKey}${pointer}`;
    let v = this.validators.get(`response:${key}`) ?? this.precompiledResponse(key);
    if (v === undefined) {
      const ajv = this.ajv('response');
      if (!this.factsDocsAdded.has(docKey)) {
        ajv.addSchema(this.factsDoc(api, mode), docKey);
        this.factsDocsAdded.add(docKey);
      }
      v = ajv.getSchema(key);
      if (v === undefined) throw new Error(`no schema at ${key}`);
    }
    this.validators.set(`response:${key}`, v);
    return v;
  }

  /**
   * Judges a body the MUST validator of its media type accepts against the FACTS.md constraints its schema holds: one
   * judgement per requirement with a value in the body the constraints apply to (see withFacts), errors empty when it
   * keeps the requirement. A body that fails its MUST schema gets no judgement here (its failure is the MUST's).
   */
  validateFacts(api: Api, media: MediaInfo, value: unknown): FactsJudgement[] {
    if (media.pointer === undefined) return [];
    const pointer = media.pointer;
    if (this.factsRequirements(api, pointer).length === 0 || !this.validatorAt(api, pointer)(value)) return [];
    const reach = this.factsValidator(api, 'reach', pointer);
    if (reach(value)) return [];
    const reached = [...new Set((reach.errors ?? []).map((e) => tagOf(e, FACTS_REACH)).filter((t): t is string => t !== undefined))].sort();
    if (reached.length === 0) return [];
    const judge = this.factsValidator(api, 'judge', pointer);
    const errors = judge(value) ? [] : (judge.errors ?? []);
    const tagged = errors.filter((e) => tagOf(e, FACTS_TAG) !== undefined);
    return reached.map((requirement) => {
      const mine = tagged.filter((e) => tagOf(e, FACTS_TAG) === requirement);
      // a shape (x-facts-schema) fails as a whole: the errors inside it say where
      const within = (e: ErrorObject) => mine.some((m) => m.keyword === 'anyOf' && (e.instancePath === m.instancePath || e.instancePath.startsWith(`${m.instancePath}/`)));
      const detail = errors.filter((e) => tagOf(e, FACTS_TAG) === undefined && within(e));
      const shown = [...mine.filter((e) => e.keyword !== 'anyOf' || detail.length === 0), ...detail];
      return { requirement, errors: mine.length === 0 ? [] : formatErrors(shown) };
    });
  }

  /** Validates a value against the schema of one response media type; [] when valid. */
  validateBody(api: Api, media: MediaInfo, value: unknown): string[] {
    if (media.pointer === undefined) return [];
    const v = this.validatorAt(api, media.pointer);
    return v(value) ? [] : formatErrors(v.errors);
  }

  /**
   * Read-only mode's policy for one interface: GETs and HEADs, and the operations marked `x-read-only: true` (matched
   * by method and path template; a path parameter holding an encoded slash or backslash matches nothing). Built once per
   * interface, not for every check.
   */
  readOnlyPolicy(api: Api): ReadOnlyPolicy {
    const cached = this.readOnlyPolicies.get(api);
    if (cached !== undefined) return cached;
    const marked = this.operations(api)
      .filter((o) => o.readOnly)
      .map((o) => ({ method: o.method, path: new RegExp(`^${o.path.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('[^/]+')}$`) }));
    const policy: ReadOnlyPolicy = {
      allows: (method, path) => {
        const m = method.toUpperCase();
        if (SAFE_METHODS.has(m)) return true;
        if (/%2f|%5c/i.test(path)) return false;
        return marked.some((o) => o.method === m && o.path.test(path));
      },
    };
    this.readOnlyPolicies.set(api, policy);
    return policy;
  }

  /** Builds the path of an operation from its template and parameters. */
  pathFor(api: Api, operationId: string, params: Record<string, string | number> = {}): string {
    const op = this.operation(api, operationId);
    return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const v = params[name];
      if (v === undefined) throw new Error(`${operationId}: path parameter ${name} missing`);
      return encodeURIComponent(String(v));
    });
  }
}

export function formatErrors(errors: ErrorObject[] | null | undefined, limit = 8): string[] {
  // the null branch acceptNullOptionals adds says nothing a reader needs: the other branch's errors say what is wrong
  const list = (errors ?? []).filter((e) => !(isObject(e.parentSchema) && e.parentSchema[NULL_OPTIONAL] === true)).map((e) => {
    const at = e.instancePath === '' ? 'body' : `body${e.instancePath.replace(/\//g, '.')}`;
    if (e.keyword === 'required') return `${at}: missing required field "${(e.params as { missingProperty: string }).missingProperty}"`;
    if (e.keyword === 'not' && tagOf(e, FACTS_TAG) !== undefined) return `${at}: must not be null`;
    if (e.keyword === 'type') return `${at}: must be ${([] as string[]).concat((e.params as { type: string | string[] }).type).join(' or ')}`;
    if (e.keyword === 'enum') return `${at}: ${JSON.stringify(e.data)} is not one of ${JSON.stringify((e.params as { allowedValues: unknown }).allowedValues)}`;
    return `${at}: ${e.message ?? e.keyword}`;
  });
  const unique = [...new Set(list)];
  return unique.length > limit ? [...unique.slice(0, limit), `... and ${unique.length - limit} more`] : unique;
}

const shared = new Map<string, SchemaRegistry>();

/** One registry per specs folder and process (worker), built on first use. */
export function schemaRegistry(specsDir = SPECS_DIR): SchemaRegistry {
  let r = shared.get(specsDir);
  if (r === undefined) {
    r = new SchemaRegistry(specsDir);
    shared.set(specsDir, r);
  }
  return r;
}
