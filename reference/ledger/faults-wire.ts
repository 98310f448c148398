/**
 * Planted faults of the response fields real participants always send (FACTS.md, "how real responses are encoded"):
 * each leaves one out, for the rule that makes it required to catch: the operation's response-schema rule where SPEC.md
 * does, the FACTS.md requirement (a SHOULD) where only FACTS.md does (the reassignment's synchronizerId and the tree's
 * recordTime sent as null are planted beside their builders, faults-reassignment.ts and faults-transactions.ts).
 */
import type { FastifyInstance } from 'fastify';
import { installBodyFaults, isObj, type BodyFault } from '../body-faults.js';
import { registerFaults, type FaultSet } from '../faults.js';
import { CantonError, MalformedRequest } from './errors.js';

export const WF = {
  exercisedAcsDelta: 'ledger-events-exercised-acs-delta-missing',
  transactionMissing: 'ledger-transaction-by-offset-transaction-missing',
  updateUserEmpty: 'ledger-update-user-response-empty',
  duplicateKeyKept: 'ledger-annotations-duplicate-key-kept',
  emptyListings: 'ledger-empty-listings',
  malformedServerError: 'ledger-malformed-json-server-error',
  emptyBodyServerError: 'ledger-empty-body-server-error',
  nullBodyServerError: 'ledger-null-body-server-error',
  offsetReadAsInt32: 'ledger-offset-read-as-int32',
  leastInt32Malformed: 'ledger-least-int32-malformed',
  annotationValueServerError: 'ledger-annotation-value-type-server-error',
  nullItemServerError: 'ledger-null-list-item-server-error',
  missingShapeServerError: 'ledger-missing-transaction-shape-server-error',
} as const;

registerFaults([
  {
    name: WF.exercisedAcsDelta,
    requirement: 'ledger.events.exercised-required-fields',
    description: 'the exercised events of a transaction tree come without acsDelta',
  },
  {
    name: WF.transactionMissing,
    requirement: 'ledger.get-transaction-by-offset.response-schema',
    description: 'POST /v2/updates/transaction-by-offset answers 200 with an empty object (no transaction)',
  },
  { name: WF.updateUserEmpty, requirement: 'ledger.update-user.response-schema', description: 'PATCH /v2/users/{user-id} applies the update and answers an empty object (no user)' },
  { name: WF.duplicateKeyKept, requirement: 'ledger.annotations.duplicate-keys-impossible', description: 'a user created with an annotation key twice in its raw JSON body is answered with that key twice' },
  {
    name: WF.emptyListings,
    requirement: 'ledger.grant-user-rights.rights-persisted',
    description: 'every ledger listing is answered empty: users, rights, vetted packages, parties, and the events of a transaction read by offset',
  },
  {
    name: WF.malformedServerError,
    requirement: 'ledger.errors.malformed-request-text-plain',
    description: 'a body that is not JSON otherwise than by being cut short (a bare word, an invalid escape, a list without commas) is answered 500 INTERNAL, not 400 text/plain',
  },
  {
    name: WF.emptyBodyServerError,
    requirement: 'ledger.errors.missing-field-rejected',
    description: 'a request with no body at all to an endpoint whose body has required fields is answered 500 INTERNAL, not 400',
  },
  {
    name: WF.nullBodyServerError,
    requirement: 'ledger.errors.missing-field-rejected',
    description: 'a request whose whole body is the JSON value null is answered 500 INTERNAL (its fields read from a null message), not 400',
  },
  {
    name: WF.offsetReadAsInt32,
    requirement: 'ledger.get-transaction-by-offset.unknown-offset-not-found',
    description: 'the int64 offset of a lookup by offset is decoded as an int32: an offset past 2^31 - 1 is answered 400 text/plain (out of range), not looked up',
  },
  {
    name: WF.leastInt32Malformed,
    requirement: 'ledger.errors.canton-error-shape',
    description: 'the int32 pageSize of a vetted packages listing is range-checked off by one: its least value -2^31 is answered 400 text/plain as undecodable, not refused by validation with a JsCantonError',
  },
  {
    name: WF.annotationValueServerError,
    requirement: 'ledger.errors.malformed-request-text-plain',
    description: 'a user created with an annotation value that is no string (a number) is answered 500 INTERNAL, not 400 text/plain',
  },
  {
    name: WF.nullItemServerError,
    requirement: 'ledger.errors.missing-field-rejected',
    description: 'a grant whose rights list holds an item that is JSON null is answered 500 INTERNAL, not 400',
  },
  {
    name: WF.missingShapeServerError,
    requirement: 'ledger.errors.missing-field-rejected',
    description: 'a transaction-by-offset request whose transactionFormat has no transactionShape is answered 500 INTERNAL, not 400',
  },
]);

/** the keys of the first `"annotations": {...}` object of a raw JSON text (flat string values only), in order */
function rawAnnotationEntries(text: string): Array<[string, string]> {
  const m = /"annotations"\s*:\s*\{([^{}]*)\}/.exec(text);
  if (m === null) return [];
  return [...m[1]!.matchAll(/"((?:[^"\\]|\\.)*)"\s*:\s*"((?:[^"\\]|\\.)*)"/g)].map((e) => [e[1]!, e[2]!]);
}

/** the event under a tree event's kind key, with or without the `value` wrapper */
function exercised(e: unknown): Record<string, unknown> | undefined {
  if (!isObj(e)) return undefined;
  const tree = e.ExercisedTreeEvent;
  if (isObj(tree)) return isObj(tree.value) ? tree.value : tree;
  return isObj(e.ExercisedEvent) ? e.ExercisedEvent : undefined;
}

const RULES: BodyFault[] = [
  {
    fault: WF.exercisedAcsDelta,
    method: 'POST',
    path: /\/v2\/commands\/submit-and-wait-for-transaction-tree$/,
    apply: (b) => {
      const tree = b.transactionTree;
      if (isObj(tree) && isObj(tree.eventsById)) for (const e of Object.values(tree.eventsById)) delete exercised(e)?.acsDelta;
      return b;
    },
  },
  { fault: WF.transactionMissing, method: 'POST', path: /\/v2\/updates\/transaction-by-offset$/, apply: () => ({}) },
  { fault: WF.updateUserEmpty, method: 'PATCH', path: /\/v2\/users\/[^/]+$/, apply: () => ({}) },
  ...(
    [
      ['GET', /\/v2\/users$/, ['users']],
      ['GET', /\/v2\/users\/[^/]+\/rights$/, ['rights']],
      ['GET', /\/v2\/package-vetting$/, ['vettedPackages']],
      ['POST', /\/v2\/package-vetting\/list$/, ['vettedPackages']],
      ['GET', /\/v2\/parties$/, ['partyDetails']],
      ['POST', /\/v2\/updates\/(transaction|update)-by-offset$/, ['events']],
    ] as const
  ).map(([method, path, keys]): BodyFault => ({ fault: WF.emptyListings, method, path, apply: (b) => emptied(b, keys) })),
];

/** `body` with every list under one of `keys` (at any depth) emptied */
function emptied(body: unknown, keys: readonly string[]): Record<string, unknown> {
  const walk = (v: unknown, depth: number): void => {
    if (depth > 8 || !isObj(v)) return;
    for (const [k, e] of Object.entries(v)) {
      if (keys.includes(k) && Array.isArray(e)) v[k] = [];
      else walk(e, depth + 1);
    }
  };
  walk(body, 0);
  return body as Record<string, unknown>;
}

export function installLedgerBodyFaults(app: FastifyInstance, faults: FaultSet): void {
  installBodyFaults(app, faults, RULES);
  if (faults.has(WF.nullBodyServerError)) {
    // a handler that reads the fields of a body decoded as null crashes: an internal error
    app.addHook('preHandler', async (req) => {
      if (Buffer.isBuffer(req.body) && req.body.toString('utf8').trim() === 'null') throw new CantonError('INTERNAL', 'INTERNAL', 'An error occurred');
    });
  }
  // requests whose decoding crashes a handler: each answered 500 INTERNAL
  const crashes: Array<[fault: string, path: RegExp, crashes: (body: unknown) => boolean]> = [
    [WF.annotationValueServerError, /\/v2\/users$/, (b) => {
      const a = (b as { user?: { metadata?: { annotations?: unknown } } } | null)?.user?.metadata?.annotations;
      return isObj(a) && Object.values(a).some((v) => typeof v !== 'string' && v !== null);
    }],
    [WF.nullItemServerError, /\/v2\/users\/[^/]+\/rights$/, (b) => Array.isArray((b as { rights?: unknown } | null)?.rights) && (b as { rights: unknown[] }).rights.includes(null)],
    [WF.missingShapeServerError, /\/v2\/updates\/transaction-by-offset$/, (b) => {
      const tf = (b as { transactionFormat?: unknown } | null)?.transactionFormat;
      return isObj(tf) && tf.transactionShape === undefined;
    }],
  ];
  const on = crashes.filter(([fault]) => faults.has(fault));
  if (on.length > 0) {
    app.addHook('preHandler', async (req) => {
      if (req.method !== 'POST' || !Buffer.isBuffer(req.body)) return;
      const path = (req.raw.url ?? '').split('?')[0] ?? '';
      let body: unknown;
      try {
        body = JSON.parse(req.body.toString('utf8'));
      } catch {
        return;
      }
      if (on.some(([, p, crashes]) => p.test(path) && crashes(body))) throw new CantonError('INTERNAL', 'INTERNAL', 'An error occurred');
    });
  }
  if (faults.has(WF.offsetReadAsInt32)) {
    app.addHook('preHandler', async (req) => {
      if (req.method !== 'POST' || !/\/v2\/updates\/(transaction|update)-by-offset$/.test((req.raw.url ?? '').split('?')[0] ?? '') || !Buffer.isBuffer(req.body)) return;
      let offset: unknown;
      try {
        offset = (JSON.parse(req.body.toString('utf8')) as { offset?: unknown } | null)?.offset;
      } catch {
        return;
      }
      if (typeof offset === 'number' && offset >= 2 ** 31) throw new MalformedRequest("Invalid value for: body (int32 out of range at 'offset')");
    });
  }
  if (faults.has(WF.duplicateKeyKept)) {
    // the raw text keeps what a JSON object cannot: the answer names the key as often as the request did
    app.addHook('onSend', async (req, reply, payload) => {
      if (req.method !== 'POST' || !/\/v2\/users$/.test((req.raw.url ?? '').split('?')[0] ?? '') || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
      const sent = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : typeof req.body === 'string' ? req.body : '';
      const entries = rawAnnotationEntries(sent);
      const twice = entries.find(([k], i) => entries.findIndex(([o]) => o === k) !== i);
      if (twice === undefined) return payload;
      const first = entries.find(([k]) => k === twice[0])!;
      return payload.replace(`"${twice[0]}":`, `"${twice[0]}":"${first[1]}","${twice[0]}":`);
    });
  }
}
