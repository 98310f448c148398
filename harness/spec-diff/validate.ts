/**
 * `run --also-validate-against`: every response the checks judge is also judged against the target's own API
 * description (its status, content type and body), as information for the vendor: "where the target disagrees with its
 * own API description". Pure functions of an exchange, like the generic checks; nothing here is a verdict.
 *
 * Null: real servers send unset optional fields as JSON null (FACTS.md). The target's document is judged as written
 * (a 3.0 `nullable` converted), and a body that is invalid only by such nulls is reported apart (`nullOnly`): the
 * document does not say null is allowed there, but it is the wire form FACTS.md describes, not a second disagreement.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { mayAnswerAnywhere } from '../judging/checks.js';
import { ConfigError, type Config } from '../config.js';
import type { Exchange } from '../transport/http.js';
import { redactText } from '../transport/redact.js';
import { acceptNullOptionals, createAjv, formatErrors, type OperationInfo } from '../judging/schemas.js';
import type { Api, OwnDescriptionFinding } from '../types.js';
import { DocumentError, indexOperations, loadDocument, responseKeyFor, servedDocumentHeaders, servedDocumentUrl, shapeOf, type Json, type Operation } from './document.js';

/** A target's own document, bundled and in the 3.1 form, as the runner wrote it for the checks to read. */
export interface OwnDescriptionSource {
  /** what was asked for: a file, a URL, or the served document's URL */
  source: string;
  openapi: string;
  /** the bundled document (JSON) in the run's report folder */
  file: string;
}

const KEY = 'own';

class OwnDescription {
  private readonly ops: Map<string, Operation>;
  private readonly ajv: Record<'asWritten' | 'nullOptional', Ajv2020> = { asWritten: createAjv({ quiet: true }), nullOptional: createAjv({ quiet: true }) };
  private readonly validators = new Map<string, ValidateFunction | undefined>();

  constructor(doc: Json) {
    this.ops = indexOperations(doc);
    this.ajv.asWritten.addSchema(doc, KEY);
    this.ajv.nullOptional.addSchema(acceptNullOptionals(doc), KEY);
  }

  private validator(form: 'asWritten' | 'nullOptional', pointer: string): ValidateFunction | undefined {
    const key = `${form}${pointer}`;
    if (!this.validators.has(key)) {
      let v: ValidateFunction | undefined;
      try {
        v = this.ajv[form].getSchema(`${KEY}${pointer}`);
      } catch {
        v = undefined; // a schema ajv cannot compile is not judged
      }
      this.validators.set(key, v);
    }
    return this.validators.get(key);
  }

  judge(x: Exchange, operation: OperationInfo): OwnDescriptionFinding[] {
    const base = { api: x.api, operation: `${operation.method} ${operation.path}`, operationId: operation.operationId, status: x.status };
    const op = this.ops.get(`${operation.method} ${shapeOf(operation.path)}`);
    if (op === undefined) return [{ ...base, kind: 'operation', message: `the target's document does not describe ${operation.method} ${operation.path}` }];
    const anywhere = mayAnswerAnywhere(x.api, x.status);
    const key = responseKeyFor(op.responses, String(x.status));
    if (key === undefined) {
      // 429, 503, 499 and redirects answer nothing of the operation (as for the generic checks)
      if (anywhere || (x.status >= 300 && x.status < 400)) return [];
      return [{ ...base, kind: 'status', message: `status ${x.status} is not described, and there is no default response (described: ${Object.keys(op.responses).join(', ') || 'none'})` }];
    }
    const media = op.responses[key]!;
    const documented = Object.keys(media);
    if (documented.length === 0) return [];
    const mt = x.mediaType;
    if (mt === undefined || !(mt in media)) {
      if (anywhere || documented.includes('*/*') || (mt === undefined && x.text.length === 0)) return [];
      return [{ ...base, kind: 'content-type', message: `${key === String(x.status) ? '' : `(described by ${key}) `}content type ${mt ?? '(none)'} is not described (described: ${documented.join(', ')})` }];
    }
    const pointer = op.responsePointers[key]?.[mt];
    const isJson = mt === 'application/json' || mt.endsWith('+json');
    if (pointer === undefined || !isJson || x.json === undefined) return [];
    const strict = this.validator('asWritten', pointer);
    if (strict === undefined || strict(x.json)) return [];
    const lenient = this.validator('nullOptional', pointer);
    const where = `${key === String(x.status) ? '' : `(described by ${key}) `}`;
    if (lenient !== undefined && lenient(x.json)) {
      const at = [...new Set((strict.errors ?? []).filter((e) => e.keyword === 'type' && e.data === null).map((e) => `body${e.instancePath.replace(/\//g, '.')}`))];
      return [{ ...base, kind: 'body', nullOnly: true, message: redactText(`${where}null where the document allows no null: ${at.slice(0, 6).join(', ')}${at.length > 6 ? ` and ${at.length - 6} more` : ''}`) }];
    }
    return [{ ...base, kind: 'body', message: redactText(`${where}body does not match the target's own schema: ${formatErrors((lenient ?? strict).errors, 6).join('; ')}`) }];
  }
}

const loaded = new Map<string, OwnDescription>();

/** Judges one response against the target's own description of its operation (loaded once per worker). */
export function judgeOwnDescription(own: OwnDescriptionSource, x: Exchange, operation: OperationInfo): OwnDescriptionFinding[] {
  let d = loaded.get(own.file);
  if (d === undefined) {
    d = new OwnDescription(JSON.parse(readFileSync(own.file, 'utf8')) as Json);
    loaded.set(own.file, d);
  }
  return d.judge(x, operation);
}

/** What one check saw of the target's own description: responses judged and distinct findings (at most 30). */
export interface OwnDescriptionTally {
  responses: number;
  findings: OwnDescriptionFinding[];
}

/** Judges one response and adds what it found to the check's tally; a response it cannot judge is said so, not thrown. */
export function tallyOwnDescription(tally: OwnDescriptionTally, own: OwnDescriptionSource, x: Exchange, operation: OperationInfo): void {
  tally.responses++;
  let found: OwnDescriptionFinding[];
  try {
    found = judgeOwnDescription(own, x, operation);
  } catch (e) {
    found = [{ api: x.api, operation: `${operation.method} ${operation.path}`, operationId: operation.operationId, status: x.status, kind: 'body', message: `not judged: ${redactText((e as Error).message)}` }];
  }
  for (const f of found) {
    if (tally.findings.length >= 30) return;
    if (!tally.findings.some((g) => g.operation === f.operation && g.status === f.status && g.message === f.message)) tally.findings.push(f);
  }
}

/** `run.alsoValidateAgainst` values: `served` means the ledger target's GET /docs/openapi (FACTS.md). */
export const SERVED = 'served';

/**
 * Reads each document `run.alsoValidateAgainst` names, bundles it and writes it into the report folder for the
 * checks; a document that cannot be read is a configuration error (exit 2). `phase` 'files' reads the files and URLs
 * (before anything runs), 'served' the served documents (once the targets, the embedded reference's included, are up).
 */
export async function loadOwnDescriptions(config: Config, phase: 'files' | 'served', loadedBefore: Partial<Record<Api, Awaited<ReturnType<typeof loadDocument>>>> = {}): Promise<Partial<Record<Api, Awaited<ReturnType<typeof loadDocument>>>>> {
  const out = { ...loadedBefore };
  for (const [api, value] of Object.entries(config.run.alsoValidateAgainst ?? {}) as Array<[Api, string]>) {
    if ((value === SERVED) !== (phase === 'served')) continue;
    const target = config.targets[api];
    let source = value;
    if (value === SERVED) {
      const url = target !== undefined ? servedDocumentUrl(api, target.url) : undefined;
      if (url === undefined) throw new ConfigError(`--also-validate-against ${api}=served: ${target === undefined ? `no ${api} target is configured` : `only a participant serves its own document (FACTS.md); name the ${api} document's file or URL`}`);
      source = url;
    }
    try {
      const headers = value === SERVED && target !== undefined ? await servedDocumentHeaders(target, config.run) : undefined;
      out[api] = await loadDocument(source, { timeoutMs: config.run.timeoutMs, maxBytes: config.run.maxResponseBytes, ...(headers !== undefined ? { headers } : {}) });
    } catch (e) {
      if (e instanceof DocumentError) throw new ConfigError(`--also-validate-against ${api}: ${redactText(e.message)}`);
      throw e;
    }
  }
  return out;
}

/** Writes the loaded documents into the run's folder and returns what the checks read. */
export function writeOwnDescriptions(dir: string, docs: Partial<Record<Api, Awaited<ReturnType<typeof loadDocument>>>>): Partial<Record<Api, OwnDescriptionSource>> {
  const out: Partial<Record<Api, OwnDescriptionSource>> = {};
  for (const [api, d] of Object.entries(docs) as Array<[Api, Awaited<ReturnType<typeof loadDocument>>]>) {
    const folder = join(dir, 'own-description');
    mkdirSync(folder, { recursive: true });
    const file = join(folder, `${api}.json`);
    writeFileSync(file, JSON.stringify(d.doc));
    out[api] = { source: redactText(d.source), openapi: d.openapi, file };
  }
  return out;
}
