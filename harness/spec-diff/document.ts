/**
 * A target's own OpenAPI document: read from a file or a URL, its relative external `$ref`s bundled (swagger-parser),
 * an OpenAPI 3.0 document brought to the 3.1 form (`nullable`, boolean `exclusiveMinimum`/`exclusiveMaximum`), and its
 * operations indexed by method and path shape, so that two documents whose operationIds and path parameter names
 * differ can be matched operation by operation.
 */
import { readFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { parseYaml } from '../setup/lazy-yaml.js';
import { buildUrl, HttpClient, TransportError } from '../transport/http.js';
import type { TargetConfig } from '../config.js';
import type { Api } from '../types.js';

export type Json = Record<string, unknown>;
export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A document that cannot be read, parsed, bundled or is no OpenAPI 3.x document: the CLI says so and exits 2. */
export class DocumentError extends Error {
  override name = 'DocumentError';
}

export interface LoadedDocument {
  /** where it came from (a file path or a URL), for the report */
  source: string;
  /** the `openapi` field as written, e.g. "3.0.3" */
  openapi: string;
  /** the document, bundled (only internal `$ref`s left) and in the 3.1 form */
  doc: Json;
}

export interface FetchOptions {
  timeoutMs?: number;
  maxBytes?: number;
  /** extra request headers (a configured target's gateway key, its bearer token) */
  headers?: Record<string, string>;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;
const isUrl = (s: string) => /^https?:\/\//i.test(s);

/** GET of a document or of an external `$ref` target, bounded in time and size, never following a redirect. */
async function fetchText(url: string, o: FetchOptions): Promise<string> {
  const u = new URL(url);
  const client = new HttpClient({ api: 'ledger', baseUrl: u.origin, timeoutMs: o.timeoutMs ?? 10_000, maxResponseBytes: o.maxBytes ?? 16 * 1024 * 1024, retries: 1, headers: o.headers ?? {} });
  let x;
  try {
    x = await client.send({ method: 'GET', path: `${u.pathname}${u.search}`, headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' } });
  } catch (e) {
    throw new DocumentError(`cannot fetch ${url}: ${(e as Error).message}`);
  }
  if (x.status !== 200) throw new DocumentError(`cannot fetch ${url}: it answered ${x.status}${x.status === 401 || x.status === 403 ? ' (credentials refused or missing)' : ''}`);
  return x.text;
}

function parseText(text: string, source: string): unknown {
  try {
    return parseYaml(text, { maxAliasCount: 1000 }); // YAML is a superset of JSON
  } catch (e) {
    throw new DocumentError(`${source} is neither JSON nor YAML: ${(e as Error).message.split('\n')[0]}`);
  }
}

/** Reads, bundles and converts a document from a file path or an http(s) URL. */
export async function loadDocument(source: string, o: FetchOptions = {}): Promise<LoadedDocument> {
  let text: string;
  if (isUrl(source)) text = await fetchText(source, o);
  else {
    try {
      text = readFileSync(source, 'utf8');
    } catch (e) {
      throw new DocumentError(`cannot read ${source}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
    }
  }
  const raw = parseText(text, source);
  if (!isObject(raw)) throw new DocumentError(`${source} is not an OpenAPI document (its top level is not a mapping)`);
  if (typeof raw.swagger === 'string') throw new DocumentError(`${source} is a Swagger ${raw.swagger} document; only OpenAPI 3.0 and 3.1 are supported`);
  if (typeof raw.openapi !== 'string' || !/^3\.[01]\./.test(raw.openapi)) {
    throw new DocumentError(`${source} is not an OpenAPI 3.0 or 3.1 document (openapi: ${JSON.stringify(raw.openapi ?? null)})`);
  }
  if (!isObject(raw.paths)) throw new DocumentError(`${source} has no paths`);
  let bundled: Json;
  try {
    // external relative $refs resolve against the document's own location: a file beside it, or a URL relative to it
    const base = isUrl(source) ? source : resolvePath(source);
    // imported here: the checks' workers use this module's index of operations, never the parser
    const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
    bundled = (await SwaggerParser.bundle(base, raw as never, {
      resolve: {
        http: false,
        // the configured headers (a token) go to the document's own origin only, never to where a $ref points elsewhere
        bounded: { order: 1, canRead: /^https?:\/\//i, read: (file: { url: string }) => fetchText(file.url, isUrl(source) && new URL(file.url).origin === new URL(source).origin ? o : { ...o, headers: {} }) },
      },
    } as never)) as unknown as Json;
  } catch (e) {
    const err = e as Error;
    throw new DocumentError(`${source}: a $ref cannot be resolved: ${err instanceof TransportError || err instanceof DocumentError ? err.message : err.message.split('\n')[0]}`);
  }
  return { source, openapi: raw.openapi, doc: raw.openapi.startsWith('3.0.') ? fromOpenApi30(bundled) : bundled };
}

// keywords under which a value is a schema, a list of schemas or a map of schemas
const SUB = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames'];
const SUB_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUB_MAPS = ['properties', 'patternProperties', '$defs'];

/** One schema of an OpenAPI 3.0 document in the JSON Schema 2020-12 form OpenAPI 3.1 uses. */
export function schema30to31(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const s: Json = { ...schema };
  for (const k of SUB) if (k in s) s[k] = schema30to31(s[k]);
  for (const k of SUB_LISTS) if (Array.isArray(s[k])) s[k] = (s[k] as unknown[]).map(schema30to31);
  for (const k of SUB_MAPS) if (isObject(s[k])) s[k] = Object.fromEntries(Object.entries(s[k]).map(([n, v]) => [n, schema30to31(v)]));
  // 3.0: exclusiveMinimum/Maximum are booleans qualifying minimum/maximum; 2020-12: the bound itself
  for (const [ex, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof s[ex] !== 'boolean') continue;
    if (s[ex] === true && typeof s[bound] === 'number') {
      s[ex] = s[bound];
      delete s[bound];
    } else delete s[ex];
  }
  const nullable = s.nullable === true;
  delete s.nullable;
  if (!nullable) return s;
  // 3.0.3: nullable: true allows null in addition to what the rest of the schema allows (an enum included)
  const typed = typeof s.type === 'string' && !('$ref' in s) && !['allOf', 'anyOf', 'oneOf', 'not'].some((k) => k in s);
  if (typed) {
    const out: Json = { ...s, type: [s.type, 'null'] };
    if (Array.isArray(s.enum) && !s.enum.includes(null)) out.enum = [...s.enum, null];
    return out;
  }
  if (s.type === undefined && !('$ref' in s) && !['allOf', 'anyOf', 'oneOf', 'not', 'enum'].some((k) => k in s)) return s; // accepts null already
  // a $ref's siblings are ignored in 3.0 but read in 3.1: the $ref stands alone in the first branch
  return { anyOf: [s, { type: 'null' }] };
}

/** Every schema of an OpenAPI 3.0 document (components, parameters, bodies, responses, headers) in the 3.1 form. */
export function fromOpenApi30(doc: Json): Json {
  const media = (content: unknown) =>
    isObject(content) ? Object.fromEntries(Object.entries(content).map(([mt, m]) => [mt, isObject(m) && 'schema' in m ? { ...m, schema: schema30to31(m.schema) } : m])) : content;
  const withSchema = (x: unknown) => {
    if (!isObject(x)) return x;
    const out: Json = { ...x };
    if ('schema' in x) out.schema = schema30to31(x.schema);
    if ('content' in x) out.content = media(x.content);
    if (isObject(x.headers)) out.headers = Object.fromEntries(Object.entries(x.headers).map(([n, h]) => [n, withSchema(h)]));
    return out;
  };
  const map = (m: unknown, f: (x: unknown) => unknown) => (isObject(m) ? Object.fromEntries(Object.entries(m).map(([k, v]) => [k, f(v)])) : m);
  const operation = (op: unknown) => {
    if (!isObject(op)) return op;
    const out: Json = { ...op };
    if (Array.isArray(op.parameters)) out.parameters = op.parameters.map(withSchema);
    if ('requestBody' in op) out.requestBody = withSchema(op.requestBody);
    if ('responses' in op) out.responses = map(op.responses, withSchema);
    return out;
  };
  const out: Json = { ...doc };
  out.paths = map(doc.paths, (item) => {
    if (!isObject(item)) return item;
    const i: Json = { ...item };
    if (Array.isArray(item.parameters)) i.parameters = item.parameters.map(withSchema);
    for (const m of HTTP_METHODS) if (m in item) i[m] = operation(item[m]);
    return i;
  });
  if (isObject(doc.components)) {
    const c: Json = { ...doc.components };
    c.schemas = map(c.schemas, schema30to31);
    for (const k of ['parameters', 'requestBodies', 'responses', 'headers']) c[k] = map(c[k], withSchema);
    out.components = Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined));
  }
  return out;
}

/** Follows local `$ref`s (`#/...`) to the node they name; a bundled document has no others. */
export function deref(doc: Json, node: unknown): { node: unknown; ref?: string } {
  let cur = node;
  let ref: string | undefined;
  for (let depth = 0; depth < 20 && isObject(cur) && typeof cur.$ref === 'string'; depth++) {
    ref = cur.$ref;
    if (!ref.startsWith('#')) return { node: {}, ref };
    cur = ref
      .slice(1)
      .split('/')
      .slice(1)
      .map((p) => decodeURIComponent(p).replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((o, k) => (isObject(o) || Array.isArray(o) ? (o as Json)[k] : undefined), doc);
  }
  return { node: cur ?? {}, ...(ref !== undefined ? { ref } : {}) };
}

export interface Parameter {
  in: string;
  name: string;
  required: boolean;
  schema: unknown;
}

export interface Operation {
  method: string;
  /** the path as written, e.g. /v2/users/{user-id} */
  path: string;
  /** the path with every parameter name blanked: /v2/users/{} (the key two documents are matched by) */
  shape: string;
  operationId?: string;
  deprecated: boolean;
  /** path parameters in the order they appear in the path, then the others */
  parameters: Parameter[];
  requestBody?: { required: boolean; content: Record<string, unknown> };
  /** status (or NXX, default) -> media type -> schema */
  responses: Record<string, Record<string, unknown>>;
  /** status -> media type -> JSON pointer of its schema inside the document (where a validator compiles it from) */
  responsePointers: Record<string, Record<string, string>>;
  /** JSON pointer of the operation inside its document */
  pointer: string;
  /** the raw operation object */
  node: Json;
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
export const shapeOf = (path: string) => path.replace(/\/+$/, '').replace(/\{[^}]*\}/g, '{}') || '/';
const mediaKey = (mt: string) => mt.split(';')[0]!.trim().toLowerCase();

function contentOf(content: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isObject(content)) return out;
  for (const [mt, m] of Object.entries(content)) out[mediaKey(mt)] = isObject(m) ? m.schema : undefined;
  return out;
}

/** Every operation of a document, keyed `METHOD shape` (the first one wins if a document repeats a shape). */
export function indexOperations(doc: Json): Map<string, Operation> {
  const out = new Map<string, Operation>();
  for (const [path, rawItem] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    const item = deref(doc, rawItem).node;
    if (!isObject(item)) continue;
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const params = new Map<string, Parameter>();
      for (const raw of [...(Array.isArray(item.parameters) ? item.parameters : []), ...(Array.isArray(op.parameters) ? op.parameters : [])]) {
        const p = deref(doc, raw).node;
        if (!isObject(p) || typeof p.name !== 'string' || typeof p.in !== 'string') continue;
        params.set(`${p.in}:${p.name}`, { in: p.in, name: p.name, required: p.required === true || p.in === 'path', schema: p.schema });
      }
      // path parameters by position: their names are the documents' own business
      const names = [...path.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]!);
      const ordered = [
        ...names.map((n) => params.get(`path:${n}`) ?? { in: 'path', name: n, required: true, schema: undefined }),
        ...[...params.values()].filter((p) => p.in !== 'path'),
      ];
      const body = op.requestBody !== undefined ? deref(doc, op.requestBody).node : undefined;
      const responses: Operation['responses'] = {};
      const responsePointers: Operation['responsePointers'] = {};
      const pointer = `#/paths/${escapePointer(path)}/${method}`;
      for (const [status, r] of Object.entries(isObject(op.responses) ? op.responses : {})) {
        const { node: resp, ref } = deref(doc, r);
        const k = status.toUpperCase() === 'DEFAULT' ? 'default' : status.toUpperCase();
        const content = isObject(resp) ? resp.content : undefined;
        responses[k] = contentOf(content);
        // a shared response ($ref) is compiled where it is written, so that its own $refs resolve as written
        const base = ref ?? `${pointer}/responses/${escapePointer(status)}`;
        responsePointers[k] = Object.fromEntries(
          Object.entries(isObject(content) ? content : {}).flatMap(([mt, m]) => (isObject(m) && m.schema !== undefined ? [[mediaKey(mt), `${base}/content/${escapePointer(mt)}/schema`]] : [])),
        );
      }
      const key = `${method.toUpperCase()} ${shapeOf(path)}`;
      if (out.has(key)) continue;
      out.set(key, {
        method: method.toUpperCase(),
        path,
        shape: shapeOf(path),
        ...(typeof op.operationId === 'string' ? { operationId: op.operationId } : {}),
        deprecated: op.deprecated === true,
        parameters: ordered,
        ...(isObject(body) ? { requestBody: { required: body.required === true, content: contentOf(body.content) } } : {}),
        responses,
        responsePointers,
        pointer,
        node: op,
      });
    }
  }
  return out;
}

/** The response a status falls to: the exact code, else its class (4XX), else `default`. */
export function responseKeyFor(responses: Record<string, unknown>, status: string): string | undefined {
  if (status in responses) return status;
  const range = /^\d{3}$/.test(status) ? `${status[0]}XX` : undefined;
  if (range !== undefined && range in responses) return range;
  return 'default' in responses ? 'default' : undefined;
}

/**
 * The headers a request for a configured target's served document carries: the target's own (a gateway key) and, when
 * its auth gives one, an `admin` token (the token request within the run's bounds: timeout, response and header size);
 * a document that needs no token is read all the same when none can be had.
 */
export async function servedDocumentHeaders(target: TargetConfig, bounds: { timeoutMs: number; maxResponseBytes: number; maxHeaderBytes: number }): Promise<Record<string, string>> {
  const headers = { ...target.headers };
  if (target.auth.kind === 'none') return headers;
  const { TokenProvider } = await import('../transport/auth.js');
  try {
    headers.authorization = `Bearer ${await new TokenProvider(target.auth, bounds.timeoutMs, bounds.maxResponseBytes, bounds.maxHeaderBytes).tokenFor('admin')}`;
  } catch {
    // read without a token
  }
  return headers;
}

/** The document a configured ledger target serves its own description at (FACTS.md: GET /docs/openapi). */
export const servedDocumentUrl = (api: Api, baseUrl: string): string | undefined => (api === 'ledger' ? buildUrl(baseUrl, '/docs/openapi') : undefined);
