/**
 * Checks the OpenAPI documents in specs/:
 *  - each is a valid OpenAPI 3.1 document (SwaggerParser.validate);
 *  - every schema (parameters, request bodies, response media types, components) compiles with Ajv2020
 *    (formats from ajv-formats plus int32/int64 range checks, as the harness registers them);
 *  - every operationId listed in specs/README.md is present, at the listed method and path;
 *  - every response carries x-requirement following the convention of specs/README.md;
 *  - the conventions the harness relies on (documented error statuses, no default response, no
 *    additionalProperties: false, no discriminator, no example keyword, security on ledger operations);
 *  - a few sample bodies are accepted or rejected as SPEC.md and FACTS.md say (unions match exactly one branch).
 *
 * Run: npx tsx scripts/check-specs.ts        Exit status 1 on any failure.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createAjv, SchemaRegistry } from '../harness/judging/schemas.js';
import type { ValidateFunction } from 'ajv';
import YAML from 'yaml';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: unknown };

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const specsDir = path.join(root, 'specs');

const APIS = ['ledger', 'scan', 'validator', 'registry'] as const;
type Api = (typeof APIS)[number];

const PATH_PREFIX: Record<Api, string> = {
  ledger: '/v2/',
  scan: '/v0/',
  validator: '/v0/',
  registry: '/registry/',
};
const ERROR_STATUSES: Record<Api, string[]> = {
  ledger: ['400', '401', '403', '404', '409', '429', '500', '501', '503', '504'],
  scan: ['400', '404', '429', '500', '503'],
  validator: ['400', '401', '404', '429', '500', '503'],
  registry: ['400', '404', '409', '429', '500', '503'],
};
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const failures: string[] = [];
const warnings: string[] = [];
const fail = (msg: string): void => {
  failures.push(msg);
};

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function kebab(operationId: string): string {
  return operationId.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`);
}

// ------------------------------------------------------------------------------------------------ Ajv

type AjvInstance = {
  compile: (schema: unknown) => ValidateFunction;
  errorsText: (errors?: unknown) => string;
};

/** The same ajv set-up as the harness (formats, int32/int64), so what compiles here compiles in a run. */
function newAjv(): AjvInstance {
  return createAjv() as unknown as AjvInstance;
}

// ------------------------------------------------------------------------------------------------ README

interface ListedOperation {
  api: Api;
  operationId: string;
  method: string;
  path: string;
  deprecated: boolean;
}

function readListedOperations(): ListedOperation[] {
  const readme = readFileSync(path.join(specsDir, 'README.md'), 'utf8');
  const start = readme.indexOf('### operationIds');
  const end = readme.indexOf('### Requirement ids');
  if (start < 0 || end < 0) {
    fail('specs/README.md: cannot find the operationIds section');
    return [];
  }
  const section = readme.slice(start, end);
  const listed: ListedOperation[] = [];
  const apiMarker = /^(ledger|scan|validator|registry):/gm;
  const marks: { api: Api; index: number }[] = [];
  for (const m of section.matchAll(apiMarker)) marks.push({ api: m[1] as Api, index: m.index ?? 0 });
  marks.forEach((mark, i) => {
    const text = section.slice(mark.index, marks[i + 1]?.index ?? section.length);
    const entry = /`([a-z][A-Za-z0-9]*)`\s*\((GET|POST|PATCH|PUT|DELETE)\s+([^\s,)]+)([^)]*)\)/g;
    for (const e of text.matchAll(entry)) {
      listed.push({
        api: mark.api,
        operationId: e[1] ?? '',
        method: (e[2] ?? '').toLowerCase(),
        path: e[3] ?? '',
        deprecated: /deprecated|removed/i.test(e[4] ?? ''),
      });
    }
  });
  if (listed.length === 0) fail('specs/README.md: no operationIds found');
  return listed;
}

// ------------------------------------------------------------------------------------------------ raw walks

function walk(node: unknown, where: string, visit: (key: string, value: unknown, where: string) => void): void {
  if (Array.isArray(node)) {
    node.forEach((v, i) => walk(v, `${where}/${i}`, visit));
  } else if (isObj(node)) {
    for (const [k, v] of Object.entries(node)) {
      visit(k, v, `${where}/${k}`);
      walk(v, `${where}/${k}`, visit);
    }
  }
}

function checkRawConventions(file: string, raw: Obj): void {
  walk(raw, '#', (key, value, where) => {
    if (key === 'additionalProperties' && value === false) fail(`${file}: additionalProperties: false at ${where}`);
    if (key === 'discriminator') fail(`${file}: discriminator at ${where}`);
    if (key === 'example') fail(`${file}: example keyword at ${where} (use examples)`);
    if (key === 'nullable') fail(`${file}: nullable (OpenAPI 3.0) at ${where}; use type: [T, "null"]`);
  });
}

// ------------------------------------------------------------------------------------------------ samples

interface Sample {
  schema: string;
  valid: boolean;
  /** 'response': judged as the harness judges a response (null accepted for optional properties) */
  form?: 'response';
  /**
   * A FACTS.md requirement (x-facts-required, x-facts-schema) the value breaks: the MUST schema decides `valid`, and
   * the FACTS.md constraints of this requirement, judged as a response (SchemaRegistry.validateFacts), must refuse it.
   */
  breaks?: string;
  value: Json;
  note: string;
}

const createdEvent: Json = {
  offset: 12,
  nodeId: 0,
  contractId: '00abc',
  templateId: '#pkg:Mod:T',
  createdAt: '2025-01-01T00:00:00Z',
  packageName: 'pkg',
  representativePackageId: 'abc',
  acsDelta: true,
  createArgument: { owner: 'alice::1220' },
  witnessParties: ['alice::1220'],
  signatories: ['alice::1220'],
  observers: [],
  interfaceViews: [],
};
const exercisedEvent: Json = {
  offset: 12,
  nodeId: 1,
  contractId: '00abc',
  templateId: '#pkg:Mod:T',
  choice: 'Archive',
  choiceArgument: {},
  actingParties: ['alice::1220'],
  consuming: true,
  witnessParties: ['alice::1220'],
  lastDescendantNodeId: 1,
  packageName: 'pkg',
  implementedInterfaces: [],
  acsDelta: true,
};
const scanCreated: Json = {
  event_type: 'created_event',
  event_id: 'u:0',
  contract_id: '00c',
  template_id: 'pkg:Mod:T',
  package_name: 'pkg',
  create_arguments: {},
  created_at: '2025-01-01T00:00:00.123456Z',
  signatories: ['dso::1220'],
  observers: [],
};
const scanTransaction: Json = {
  update_id: 'u1',
  migration_id: 0,
  workflow_id: '',
  record_time: '2025-01-01T00:00:00.123456Z',
  synchronizer_id: 'global::1220',
  effective_at: '2025-01-01T00:00:00.123456Z',
  root_event_ids: ['u1:0'],
  events_by_id: { 'u1:0': scanCreated },
};
const contract: Json = {
  template_id: 'pkg:Splice.ValidatorLicense:ValidatorLicense',
  contract_id: '00c',
  payload: {},
  created_event_blob: 'AAE=',
  created_at: '2025-01-01T00:00:00Z',
};

const SAMPLES: Record<Api, Sample[]> = {
  ledger: [
    { schema: 'User', valid: true, value: { id: 'alice@x.y_(1)' }, note: 'user id alphabet' },
    { schema: 'User', valid: false, value: { id: '' }, note: 'empty user id' },
    { schema: 'User', valid: false, value: { id: 'a'.repeat(129) }, note: '129-character user id' },
    { schema: 'User', valid: true, value: { id: 'a'.repeat(128) }, note: '128-character user id' },
    { schema: 'User', valid: false, value: { id: 'a b' }, note: 'space in user id' },
    { schema: 'User', valid: true, value: { id: 'u', extra: 1 }, note: 'extra fields allowed' },
    { schema: 'Right', valid: true, value: { kind: { CanActAs: { value: { party: 'p' } } } }, note: 'CanActAs' },
    { schema: 'Right', valid: true, value: { kind: { CanReadAsAnyParty: { value: {} } } }, note: 'CanReadAsAnyParty' },
    { schema: 'Right', valid: true, value: { kind: { Empty: {} } }, note: 'Empty right' },
    { schema: 'Right', valid: false, value: { kind: { CanActAs: { value: {} } } }, note: 'CanActAs without party' },
    {
      schema: 'Right',
      valid: false,
      value: { kind: { CanActAs: { value: { party: 'p' } }, CanReadAs: { value: { party: 'p' } } } },
      note: 'two variants',
    },
    {
      schema: 'JsCantonError',
      valid: true,
      value: { code: 'USER_NOT_FOUND', cause: 'x', context: { a: 'b' }, errorCategory: 11, resources: [['a', 'b']] },
      note: 'canton error',
    },
    { schema: 'JsCantonError', valid: false, value: { code: 'X', cause: 'x', errorCategory: 8 }, note: 'no context' },
    {
      schema: 'JsCantonError',
      valid: false,
      value: { code: 'X', cause: 'x', context: {}, errorCategory: 2 ** 31 },
      note: 'errorCategory beyond int32',
    },
    {
      schema: 'ObjectMeta',
      valid: true,
      value: { resourceVersion: '1', annotations: { 'example.com/key-1': 'v', name_2: '' } },
      note: 'annotation keys',
    },
    { schema: 'ObjectMeta', valid: false, value: { annotations: { '-bad': 'v' } }, note: 'bad annotation key' },
    {
      schema: 'VettedPackages',
      valid: false,
      value: { packages: [], participantId: 'p', synchronizerId: 's', topologySerial: 1 },
      note: 'empty packages',
    },
    {
      schema: 'GenerateExternalPartyTopologyResponse',
      valid: false,
      value: { partyId: 'p', publicKeyFingerprint: 'f', topologyTransactions: ['t'], multiHash: '' },
      note: 'empty multiHash',
    },
    {
      schema: 'JsTransaction',
      valid: true,
      value: {
        updateId: 'u',
        effectiveAt: 't',
        offset: 12,
        synchronizerId: 's',
        recordTime: 't',
        events: [{ CreatedEvent: createdEvent }, { ExercisedEvent: exercisedEvent }],
      },
      note: 'transaction with created and exercised events',
    },
    {
      schema: 'Event',
      valid: false,
      value: { CreatedEvent: createdEvent, ArchivedEvent: { ...(createdEvent as object), implementedInterfaces: [] } },
      note: 'two event kinds',
    },
    { schema: 'TreeEvent', valid: true, value: { CreatedTreeEvent: { value: createdEvent } }, note: 'tree event' },
    { schema: 'TreeEvent', valid: true, value: { ExercisedEvent: exercisedEvent }, note: 'flat tree event' },
    {
      schema: 'JsReassignmentEvent',
      valid: true,
      value: { JsUnassignedEvent: { value: { reassignmentId: 'r', contractId: 'c', reassignmentCounter: 1, offset: 7 } } },
      note: 'unassigned event under value',
    },
    {
      schema: 'JsReassignmentEvent',
      valid: true,
      value: { JsUnassignedEvent: { reassignmentId: 'r', contractId: 'c', reassignmentCounter: 1, offset: 7 } },
      note: 'unassigned event with its fields directly under the key',
    },
    {
      schema: 'JsReassignmentEvent',
      valid: false,
      value: { JsUnassignedEvent: { value: {} } },
      note: 'an empty unassigned event (no reassignmentId an assignment could name, no offset)',
    },
    {
      schema: 'JsReassignmentEvent',
      valid: true,
      value: { JsAssignmentEvent: { source: 's', target: 't', reassignmentId: 'r', submitter: 'p', reassignmentCounter: 1, createdEvent } },
      note: 'assignment event',
    },
    {
      schema: 'JsReassignmentEvent',
      valid: true,
      breaks: 'ledger.submit-and-wait-for-reassignment.required-fields',
      value: { JsAssignmentEvent: { reassignmentId: 'r', createdEvent } },
      note: 'assignment event without source, target, submitter, counter (FACTS.md only)',
    },
    {
      schema: 'JsReassignmentEvent',
      valid: false,
      value: { JsAssignmentEvent: { source: 's', target: 't', reassignmentId: 'r', submitter: 'p', reassignmentCounter: 1 } },
      note: 'assignment event without its created event (SPEC.md: it carries one)',
    },
    { schema: 'JsReassignment', valid: true, breaks: 'ledger.submit-and-wait-for-reassignment.required-fields', value: {}, note: 'empty reassignment (its required fields are FACTS.md only)' },
    { schema: 'JsTransactionTree', valid: true, breaks: 'ledger.submit-and-wait-for-transaction-tree.required-fields', value: {}, note: 'empty transaction tree (its required fields are FACTS.md only)' },
    { schema: 'JsTransaction', valid: true, breaks: 'ledger.get-transaction-by-offset.transaction-required-fields', value: { updateId: 'u', offset: 3, events: [] }, note: 'transaction without effectiveAt, synchronizerId, recordTime (FACTS.md only)' },
    { schema: 'JsTransaction', valid: false, value: { events: {} }, note: 'transaction whose events are no list (SPEC.md: a list)' },
    { schema: 'GetTransactionResponse', valid: false, value: {}, note: 'transaction missing' },
    { schema: 'UpdateUserResponse', valid: false, value: {}, note: 'user missing' },
    {
      schema: 'Right',
      valid: true,
      value: { kind: { CanActAsAnyParty: { value: {} } } },
      note: 'a right kind of a later release (3.6)',
    },
    {
      schema: 'Right',
      valid: false,
      value: { kind: { CanReadAs: { value: {} } } },
      note: 'a named kind without its payload',
    },
    {
      schema: 'JsCantonError',
      valid: true,
      form: 'response',
      value: {
        code: 'INVALID_ARGUMENT',
        cause: 'x',
        context: {},
        errorCategory: 8,
        resources: [],
        correlationId: null,
        traceId: null,
        grpcCodeValue: null,
        retryInfo: null,
        definiteAnswer: null,
      },
      note: 'optional fields sent as null (response form)',
    },
    {
      schema: 'JsCantonError',
      valid: false,
      value: { code: 'INVALID_ARGUMENT', cause: 'x', context: {}, errorCategory: 8, resources: [], correlationId: null },
      note: 'null optional field (request form: the document as written)',
    },
    {
      schema: 'JsCantonError',
      valid: false,
      form: 'response',
      value: { code: 'INVALID_ARGUMENT', cause: 'x', context: {}, errorCategory: 8, resources: [], grpcCodeValue: 'x' },
      note: 'optional field of the wrong type (response form)',
    },
    {
      schema: 'JsReassignment',
      valid: true,
      form: 'response',
      breaks: 'ledger.submit-and-wait-for-reassignment.required-fields',
      value: { updateId: null, offset: 3, recordTime: 't', synchronizerId: 's', events: [] },
      note: 'a field only FACTS.md requires sent as null (response form)',
    },
    {
      schema: 'JsAssignmentEvent',
      valid: false,
      form: 'response',
      value: { source: 's', target: 't', reassignmentId: 'r', submitter: 'p', reassignmentCounter: 1, createdEvent: null },
      note: 'a field SPEC.md requires sent as null (response form)',
    },
    { schema: 'ListVettedPackagesResponse', valid: true, value: {}, note: 'fields optional' },
    { schema: 'UploadPackageResponse', valid: true, value: {}, note: 'empty object' },
    { schema: 'TrafficAccountResponse', valid: true, value: { response: { accountId: 'a', balance: -5 } }, note: 'traffic' },
  ],
  scan: [
    {
      schema: 'AnsEntry',
      valid: true,
      value: { user: 'dso::1', name: 'dso.ans', url: '', description: '', expires_at: null },
      note: 'DSO entry, null expiry, no contract_id',
    },
    {
      schema: 'AnsEntry',
      valid: false,
      value: { user: 'u', name: 'n', url: '', description: '', expires_at: 'tomorrow' },
      note: 'expires_at not a date-time',
    },
    {
      schema: 'EventHistoryItem',
      valid: true,
      value: { update: scanTransaction, verdict: null, traffic_summary: null, app_activity_records: null },
      note: 'transaction, nulls',
    },
    {
      schema: 'EventHistoryItem',
      valid: true,
      value: {
        update: {
          update_id: 'u2',
          offset: '000001',
          record_time: '2025-01-01T00:00:00.123456Z',
          event: {
            submitter: 'p',
            source_synchronizer: 's',
            target_synchronizer: 't',
            migration_id: 0,
            unassign_id: 'x',
            created_event: scanCreated,
            reassignment_counter: 1,
          },
        },
        verdict: {
          update_id: 'u2',
          verdict_result: 'VERDICT_RESULT_ACCEPTED',
          mediator_group: 0,
          transaction_views: {
            views: [{ view_id: 0, informees: [], confirming_parties: [{ parties: [], threshold: 1 }], sub_views: [] }],
            root_views: [0],
          },
        },
        traffic_summary: { total_traffic_cost: 10, envelope_traffic_summaries: [{ traffic_cost: 10, view_ids: [0] }] },
        app_activity_records: { round_number: 3, records: [{ party: 'p', weight: 1 }] },
      },
      note: 'assignment with verdict, traffic summary and activity records',
    },
    {
      schema: 'UpdateHistoryItemV2',
      valid: true,
      value: {
        update_id: 'u3',
        offset: '2',
        record_time: '2025-01-01T00:00:00Z',
        event: { submitter: 'p', contract_id: 'c', reassignment_counter: 2 },
      },
      note: 'unassignment',
    },
    {
      schema: 'UpdateHistoryItemV2',
      valid: false,
      value: { update_id: 'u3', offset: '2', record_time: '2025-01-01T00:00:00Z', event: { submitter: 'p' } },
      note: 'reassignment event neither assign nor unassign',
    },
    {
      schema: 'EventHistoryVerdict',
      valid: false,
      value: { verdict_result: 'ACCEPTED' },
      note: 'verdict_result outside the enum',
    },
    { schema: 'TrafficSummary', valid: false, value: { total_traffic_cost: 1 }, note: 'missing envelopes' },
    { schema: 'TreeEvent', valid: false, value: {}, note: 'empty tree event' },
    { schema: 'TreeEvent', valid: false, value: { ...scanCreated, event_type: 'exercised_event' }, note: 'created fields under exercised_event' },
    {
      schema: 'TreeEvent',
      valid: true,
      form: 'response',
      value: {
        event_type: 'exercised_event',
        event_id: 'u:1',
        contract_id: '00c',
        template_id: 'pkg:Mod:T',
        package_name: 'pkg',
        choice: 'C',
        choice_argument: {},
        child_event_ids: [],
        exercise_result: null,
        consuming: false,
        acting_parties: ['p'],
        interface_id: null,
      },
      note: 'exercised event, null interface_id',
    },
    { schema: 'ListEntriesResponse', valid: false, value: {}, note: 'entries missing' },
    { schema: 'ListValidatorLicensesResponse', valid: false, value: {}, note: 'validator_licenses missing' },
    {
      schema: 'ListValidatorLicensesResponse',
      valid: true,
      value: { validator_licenses: [contract], next_page_token: null },
      note: 'last page',
    },
    { schema: 'ErrorResponse', valid: false, value: {}, note: 'error body without error' },
  ],
  validator: [
    { schema: 'LookupFeaturedAppRightResponse', valid: true, value: { featured_app_right: null }, note: 'null right' },
    { schema: 'LookupFeaturedAppRightResponse', valid: true, value: {}, note: 'absent right' },
    { schema: 'LookupFeaturedAppRightResponse', valid: true, value: { featured_app_right: contract }, note: 'right' },
    {
      schema: 'GetOpenAndIssuingMiningRoundsProxyResponse',
      valid: false,
      value: { open_mining_rounds: [] },
      note: 'issuing rounds missing',
    },
    {
      schema: 'AnsEntryResponse',
      valid: false,
      value: { contractId: 'c', name: 'n', amount: '1', unit: 'USD', expiresAt: 'x', paymentInterval: 'p' },
      note: 'paymentDuration missing',
    },
  ],
  registry: [
    {
      schema: 'ChoiceContext',
      valid: true,
      value: {
        choiceContextData: {},
        disclosedContracts: [
          { templateId: 't', contractId: 'c', createdEventBlob: 'b', synchronizerId: 's', debugCreatedAt: '2025-01-01T00:00:00Z' },
        ],
      },
      note: 'choice context',
    },
    {
      schema: 'DisclosedContract',
      valid: false,
      value: { templateId: 't', contractId: 'c', createdEventBlob: 'b' },
      note: 'synchronizerId missing',
    },
    { schema: 'FactoryWithChoiceContext', valid: false, value: { factoryId: 'f' }, note: 'choiceContext missing' },
  ],
};

// ------------------------------------------------------------------------------------------------ catalogue

function catalogueIds(api: Api): Set<string> | undefined {
  const file = path.join(specsDir, 'requirements', `${api}.yaml`);
  if (!existsSync(file)) return undefined;
  try {
    const doc: unknown = YAML.parse(readFileSync(file, 'utf8'));
    const reqs = isObj(doc) && Array.isArray(doc.requirements) ? doc.requirements : [];
    return new Set(reqs.filter(isObj).map((r) => String(r.id)));
  } catch (e) {
    warnings.push(`requirements/${api}.yaml: cannot parse (${(e as Error).message})`);
    return undefined;
  }
}

// ------------------------------------------------------------------------------------------------ per document

async function checkDocument(api: Api, listed: ListedOperation[]): Promise<string> {
  const file = `${api}.yaml`;
  const filePath = path.join(specsDir, file);
  const before = failures.length;
  const raw = YAML.parse(readFileSync(filePath, 'utf8')) as Obj;

  if (raw.openapi !== '3.1.0') fail(`${file}: openapi must be 3.1.0`);
  checkRawConventions(file, raw);

  try {
    await SwaggerParser.validate(filePath);
  } catch (e) {
    fail(`${file}: SwaggerParser.validate: ${(e as Error).message}`);
    return `${file}: INVALID`;
  }
  const doc = (await SwaggerParser.dereference(filePath)) as unknown as Obj;

  const ajv = newAjv();
  let compiled = 0;
  const compile = (schema: unknown, where: string): ValidateFunction | undefined => {
    try {
      const v = ajv.compile(schema);
      compiled += 1;
      return v;
    } catch (e) {
      fail(`${file}: schema at ${where} does not compile: ${(e as Error).message}`);
      return undefined;
    }
  };

  const expected = new Map(listed.filter((l) => l.api === api).map((l) => [l.operationId, l]));
  const seen = new Set<string>();
  const requirementIds = new Set<string>();
  const paths = isObj(doc.paths) ? doc.paths : {};
  let operations = 0;

  for (const [p, item] of Object.entries(paths)) {
    if (!p.startsWith(PATH_PREFIX[api])) fail(`${file}: path ${p} does not start with ${PATH_PREFIX[api]}`);
    if (!isObj(item)) continue;
    const pathParams = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      operations += 1;
      const id = typeof op.operationId === 'string' ? op.operationId : '';
      const at = `${method.toUpperCase()} ${p}`;
      if (!id) fail(`${file}: ${at} has no operationId`);
      if (seen.has(id)) fail(`${file}: duplicate operationId ${id}`);
      seen.add(id);
      const listing = expected.get(id);
      if (!listing) fail(`${file}: operationId ${id} (${at}) is not listed in specs/README.md`);
      else {
        if (listing.method !== method || listing.path !== p)
          fail(`${file}: ${id} is at ${at}, README lists ${listing.method.toUpperCase()} ${listing.path}`);
        if (listing.deprecated && op.deprecated !== true) fail(`${file}: ${id} must be deprecated: true`);
      }
      // read-only mode (run.readOnly) lets through GETs and the operations marked so: a marker is `true`, on another method
      if ('x-read-only' in op && (op['x-read-only'] !== true || method === 'get')) {
        fail(`${file}: ${id} x-read-only must be true, and only on an operation that is not a GET (a GET is read-only already)`);
      }
      if (typeof op.summary !== 'string' || op.summary.length === 0) fail(`${file}: ${id} has no summary`);
      if (!Array.isArray(op.tags) || op.tags.length === 0) fail(`${file}: ${id} has no tags`);

      // security
      const security = op.security;
      if (api === 'ledger') {
        const schemes = Array.isArray(security) ? security.filter(isObj).flatMap((s) => Object.keys(s)) : [];
        if (!schemes.includes('httpAuth') || !schemes.includes('apiKeyAuth'))
          fail(`${file}: ${id} must declare security httpAuth and apiKeyAuth`);
      } else if (id === 'listOwnedAnsEntries') {
        const schemes = Array.isArray(security) ? security.filter(isObj).flatMap((s) => Object.keys(s)) : [];
        if (!schemes.includes('httpAuth')) fail(`${file}: ${id} must require httpAuth`);
      } else if (security !== undefined) {
        fail(`${file}: ${id} declares security although SPEC.md does not show it`);
      }

      // parameters and request body
      const params = [...pathParams, ...(Array.isArray(op.parameters) ? op.parameters : [])];
      for (const param of params) {
        if (isObj(param) && param.schema !== undefined) compile(param.schema, `${id} parameter ${String(param.name)}`);
      }
      const body = op.requestBody;
      if (isObj(body) && isObj(body.content)) {
        for (const [mt, media] of Object.entries(body.content)) {
          if (isObj(media) && media.schema !== undefined) compile(media.schema, `${id} request ${mt}`);
        }
      }

      // responses
      const responses = isObj(op.responses) ? op.responses : {};
      if ('default' in responses) fail(`${file}: ${id} has a default response`);
      const statuses = Object.keys(responses);
      if (!statuses.some((s) => s.startsWith('2'))) fail(`${file}: ${id} documents no 2xx response`);
      const wantErrors = ERROR_STATUSES[api];
      for (const s of wantErrors) if (!statuses.includes(s)) fail(`${file}: ${id} does not document ${s}`);
      for (const [status, response] of Object.entries(responses)) {
        if (!isObj(response)) continue;
        const req = response['x-requirement'];
        if (typeof req !== 'string') {
          fail(`${file}: ${id} ${status} has no x-requirement`);
          continue;
        }
        requirementIds.add(req);
        if (status.startsWith('2')) {
          const want = `${api}.${kebab(id)}.response-schema`;
          if (req !== want) fail(`${file}: ${id} ${status} x-requirement ${req}, expected ${want}`);
        } else {
          const want = api === 'ledger' ? 'ledger.errors.canton-error-shape' : `${api}.errors.error-body`;
          if (req !== want) fail(`${file}: ${id} ${status} x-requirement ${req}, expected ${want}`);
        }
        const content = isObj(response.content) ? response.content : {};
        // Splice: the HTTP framework answers a request it rejects before a handler runs (400, 401) with text/plain
        const framework = api !== 'ledger' && (status === '400' || status === '401');
        if (framework) {
          if (Object.keys(content).sort().join() !== 'application/json,text/plain')
            fail(`${file}: ${id} ${status} must have application/json ({error}) and text/plain (framework) content`);
        } else if (status.startsWith('2') || api !== 'ledger' || status !== '400') {
          if (Object.keys(content).join() !== 'application/json')
            fail(`${file}: ${id} ${status} must have exactly application/json content`);
        } else {
          const text = content['text/plain'];
          if (!isObj(text) || text['x-requirement'] !== 'ledger.errors.malformed-request-text-plain')
            fail(`${file}: ${id} 400 needs text/plain with x-requirement ledger.errors.malformed-request-text-plain`);
          if (!isObj(content['application/json'])) fail(`${file}: ${id} 400 needs application/json`);
        }
        for (const [mt, media] of Object.entries(content)) {
          if (!isObj(media)) continue;
          if (typeof media['x-requirement'] === 'string') requirementIds.add(media['x-requirement']);
          if (media.schema === undefined) fail(`${file}: ${id} ${status} ${mt} has no schema`);
          else compile(media.schema, `${id} ${status} ${mt}`);
        }
      }
    }
  }
  for (const id of expected.keys()) if (!seen.has(id)) fail(`${file}: operationId ${id} from README is missing`);

  // components
  const components = isObj(doc.components) ? doc.components : {};
  const schemas = isObj(components.schemas) ? components.schemas : {};
  const validators = new Map<string, ValidateFunction>();
  for (const [name, schema] of Object.entries(schemas)) {
    const v = compile(schema, `components/schemas/${name}`);
    if (v) validators.set(name, v);
  }

  // samples
  let samples = 0;
  const registry = new SchemaRegistry(specsDir);
  for (const sample of SAMPLES[api]) {
    if (sample.breaks !== undefined) {
      const judged = registry.validateFacts(api, { pointer: `#/components/schemas/${sample.schema}` }, sample.value).find((j) => j.requirement === sample.breaks);
      if (judged === undefined || judged.errors.length === 0)
        fail(`${file}: sample "${sample.note}" for ${sample.schema} ${judged === undefined ? 'was not judged' : 'was accepted'} under ${sample.breaks}`);
    }
    if (sample.form === 'response') {
      samples += 1;
      const errors = registry.validateComponent(api, sample.schema, sample.value, 'response');
      if ((errors.length === 0) !== sample.valid)
        fail(`${file}: response sample "${sample.note}" for ${sample.schema} was ${errors.length === 0 ? 'accepted' : `rejected: ${errors.join('; ')}`}`);
      continue;
    }
    const v = validators.get(sample.schema);
    if (!v) {
      fail(`${file}: sample "${sample.note}" names unknown schema ${sample.schema}`);
      continue;
    }
    samples += 1;
    const ok = v(sample.value);
    if (ok !== sample.valid)
      fail(
        `${file}: sample "${sample.note}" for ${sample.schema} was ${ok ? 'accepted' : 'rejected'}` +
          (ok ? '' : `: ${ajv.errorsText(v.errors)}`),
      );
  }

  // catalogue cross-check (warning only: the catalogue is written separately)
  const catalogue = catalogueIds(api);
  if (catalogue) {
    for (const id of requirementIds)
      if (!catalogue.has(id)) warnings.push(`${file}: x-requirement ${id} is not in requirements/${api}.yaml`);
  }

  const status = failures.length === before ? 'ok' : `${failures.length - before} failure(s)`;
  return (
    `${file}: ${operations} operations, ${Object.keys(schemas).length} component schemas, ` +
    `${compiled} schemas compiled, ${samples} samples, ${requirementIds.size} requirement ids: ${status}`
  );
}

// ------------------------------------------------------------------------------------------------ main

async function main(): Promise<void> {
  const listed = readListedOperations();
  const lines: string[] = [];
  for (const api of APIS) lines.push(await checkDocument(api, listed));
  for (const line of lines) console.log(line);
  for (const w of warnings) console.warn(`warning: ${w}`);
  if (failures.length > 0) {
    for (const f of failures) console.error(`FAIL ${f}`);
    console.error(`${failures.length} failure(s)`);
    process.exit(1);
  }
  console.log(`all ${listed.length} listed operations present; all documents pass`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
