/**
 * A participant's own OpenAPI document (FACTS.md: GET /docs/openapi, "for its running version") read against the
 * ledger operations of SPEC.md. Operations are matched the way spec-diff matches two documents
 * (harness/spec-diff/document.ts): by method and path shape, so a participant's own path parameter names (`{userId}`
 * for `{user-id}`), operationIds, schemas and further operations (the real API has many SPEC.md does not describe)
 * change nothing. Judged are SPEC.md's operations only: neither the set-up endpoints FACTS.md adds nor the traffic
 * endpoints, which FACTS.md says a participant's document leaves out.
 */
import { parseYaml } from '../setup/lazy-yaml.js';
import { indexOperations, isObject, shapeOf, type Json } from '../spec-diff/document.js';
import type { OperationInfo } from './schemas.js';
import { ledgerOperationGone, outOfRange } from './versions.js';

/** The served document, parsed (JSON or YAML), or why it is none: a status other than 200, no openapi string, no paths. */
export function readOwnDocument(status: number, text: string): Json | string {
  const start = text.length > 200 ? `${text.slice(0, 200)}...` : text;
  if (status !== 200) return `GET /docs/openapi answered ${status}, not 200${text === '' ? '' : `: ${start}`}`;
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: 1000 }); // YAML is a superset of JSON
  } catch (e) {
    return `the document parses neither as JSON nor as YAML: ${(e as Error).message.split('\n')[0]}`;
  }
  if (!isObject(doc)) return `the document's top level is not a mapping: ${start}`;
  if (typeof doc.openapi !== 'string') return `the document has no openapi version string (openapi: ${JSON.stringify(doc.openapi ?? null)})`;
  if (!isObject(doc.paths)) return `the document has no paths object (paths: ${String(JSON.stringify(doc.paths ?? null)).slice(0, 100)})`;
  return doc;
}

/** SPEC.md's ledger operations: neither FACTS.md's set-up endpoints (x-setup) nor the traffic endpoints. */
export const specLedgerOperations = (ops: readonly OperationInfo[]): OperationInfo[] => ops.filter((o) => o.api === 'ledger' && !o.setup && !o.path.startsWith('/v2/traffic/'));

/** Why `version` does not serve an operation (x-since, x-until, the FACTS.md removals), or undefined when it does. */
export const notServedAt = (version: string, op: OperationInfo): string | undefined => outOfRange(version, op.since, op.until) ?? ledgerOperationGone(version, op.operationId);

export interface OwnDocumentReading {
  /** operations the version serves that the document does not list */
  missing: OperationInfo[];
  /** operations the version does not serve */
  unserved: OperationInfo[];
  /** of those, the ones the document lists */
  listedUnserved: OperationInfo[];
  /** how many operations the document lists in all */
  listed: number;
}

/** Reads a parsed document against SPEC.md's ledger operations (`ops`, e.g. the suite's) at the target's version. */
export function readOwnOperations(doc: Json, version: string, ops: readonly OperationInfo[]): OwnDocumentReading {
  const listed = indexOperations(doc);
  const has = (o: OperationInfo) => listed.has(`${o.method.toUpperCase()} ${shapeOf(o.path)}`);
  const judged = specLedgerOperations(ops);
  const unserved = judged.filter((o) => notServedAt(version, o) !== undefined);
  return {
    missing: judged.filter((o) => notServedAt(version, o) === undefined && !has(o)),
    unserved,
    listedUnserved: unserved.filter(has),
    listed: listed.size,
  };
}
