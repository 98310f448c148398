/**
 * The schema registry: the four OpenAPI documents, indexed by operation, with response schemas compiled by ajv on
 * first use. Each document is added to ajv whole, so shared components compile once and `$ref`s resolve as written.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse as parseYaml } from 'yaml';
import { SPECS_DIR } from './paths.js';
import { APIS, type Api } from './types.js';

// ajv-formats is CommonJS; its default export arrives wrapped under some loaders
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => void;

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

export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, validateFormats: true, verbose: true });
  addFormats(ajv);
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  // JSON numbers above 2^53 lose precision but are still integers in the text; accept any integral number
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addKeyword({ keyword: 'x-requirement', schemaType: 'string' });
  return ajv;
}

export class SchemaRegistry {
  private readonly ajv = createAjv();
  private readonly docs = new Map<Api, Json>();
  private readonly ops = new Map<string, OperationInfo>();
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly specsDir = SPECS_DIR) {}

  /** Documents load on first use, so a run of one interface never parses the others. */
  private load(api: Api): void {
    if (this.docs.has(api)) return;
    const doc = parseYaml(readFileSync(join(this.specsDir, `${api}.yaml`), 'utf8')) as Json;
    this.docs.set(api, doc);
    this.ajv.addSchema(doc, api);
    this.index(api, doc);
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

  /** ajv validator for a schema by JSON pointer inside the api's document. */
  validatorAt(api: Api, pointer: string): ValidateFunction {
    const key = `${api}${pointer}`;
    let v = this.validators.get(key);
    if (v === undefined) {
      this.load(api);
      v = this.ajv.getSchema(key);
      if (v === undefined) throw new Error(`no schema at ${key}`);
      this.validators.set(key, v);
    }
    return v;
  }

  /** Validates a value against a named component schema, e.g. ('ledger', 'User'). */
  validateComponent(api: Api, name: string, value: unknown): string[] {
    const v = this.validatorAt(api, `#/components/schemas/${escapePointer(name)}`);
    return v(value) ? [] : formatErrors(v.errors);
  }

  /** Validates a value against the schema of one response media type; [] when valid. */
  validateBody(api: Api, media: MediaInfo, value: unknown): string[] {
    if (media.pointer === undefined) return [];
    const v = this.validatorAt(api, media.pointer);
    return v(value) ? [] : formatErrors(v.errors);
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
  const list = (errors ?? []).map((e) => {
    const at = e.instancePath === '' ? 'body' : `body${e.instancePath.replace(/\//g, '.')}`;
    if (e.keyword === 'required') return `${at}: missing required field "${(e.params as { missingProperty: string }).missingProperty}"`;
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
