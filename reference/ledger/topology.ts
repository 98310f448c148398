/**
 * POST /v2/parties/external/generate-topology: the topology transactions that allocate an externally signed party
 * whose namespace and signing key are one key. The serialized transactions here are deterministic stand-ins (JSON
 * behind a version prefix), not Canton protobuf; only their shape is observable.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../types.js';
import { optBool, optInt, optStringArray, reqObject, reqString, type Obj } from './body.js';
import { MalformedRequest, err } from './errors.js';
import { route } from './http.js';
import { fingerprint, isPartyHint, isUid } from './ids.js';
import type { LedgerState } from './state.js';
import { TF } from './faults-topology.js';
import { SF } from './faults-setup.js';

type Has = (fault: string) => boolean;

export const KEY_FORMATS = [
  'CRYPTO_KEY_FORMAT_UNSPECIFIED',
  'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
  'CRYPTO_KEY_FORMAT_RAW',
  'CRYPTO_KEY_FORMAT_DER',
] as const;
export const KEY_SPECS = [
  'SIGNING_KEY_SPEC_UNSPECIFIED',
  'SIGNING_KEY_SPEC_EC_CURVE25519',
  'SIGNING_KEY_SPEC_EC_P256',
  'SIGNING_KEY_SPEC_EC_P384',
  'SIGNING_KEY_SPEC_EC_SECP256K1',
] as const;

interface TopologyRequest {
  synchronizer: string;
  partyHint: string;
  format: string;
  keyData: Buffer;
  keySpec: string;
  localObservationOnly: boolean;
  otherConfirming: string[];
  threshold: number;
  observing: string[];
}

function decodeEnum(o: Obj, key: string, values: readonly string[], path: string, has: Has): string {
  const v = reqString(o, key, path);
  if (!values.includes(v) && has(TF.unknownAccepted)) return values[1] as string;
  if (!values.includes(v)) throw new MalformedRequest(`Invalid value for: body (unknown enum value at '${path}.${key}')`);
  return v;
}

function decodeBase64(s: string, path: string): Buffer {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(s) || s.replace(/=+$/, '').length % 4 === 1) {
    throw new MalformedRequest(`Invalid value for: body (invalid base64 at '${path}')`);
  }
  return Buffer.from(s, s.includes('-') || s.includes('_') ? 'base64url' : 'base64');
}

function decodeRequest(body: Obj, has: Has): TopologyRequest {
  const key = reqObject(body, 'publicKey');
  return {
    synchronizer: reqString(body, 'synchronizer'),
    // the planted missing-field fault takes an absent hint as one of its own choosing
    partyHint: body.partyHint === undefined && has(SF.missingField) ? `party-${createHash('sha256').update(String(Date.now())).digest('hex').slice(0, 8)}` : reqString(body, 'partyHint'),
    format: decodeEnum(key, 'format', KEY_FORMATS, 'publicKey', has),
    keyData: decodeBase64(reqString(key, 'keyData', 'publicKey'), 'publicKey.keyData'),
    keySpec: decodeEnum(key, 'keySpec', KEY_SPECS, 'publicKey', has),
    localObservationOnly: has(TF.observeIgnored) ? false : (optBool(body, 'localParticipantObservationOnly') ?? has(TF.observeDefault)),
    otherConfirming: optStringArray(body, 'otherConfirmingParticipantUids') ?? [],
    threshold: optInt(body, 'confirmationThreshold') ?? 0,
    observing: optStringArray(body, 'observingParticipantUids') ?? [],
  };
}

/** Validates the request; returns the local participant's UID and the effective threshold. */
function validate(state: LedgerState, r: TopologyRequest, has: Has): { localUid: string; threshold: number } {
  if (r.partyHint === '' && has(TF.emptyHint)) r.partyHint = `party-${state.nextSeq()}`;
  if (r.keyData.length === 0 && has(TF.emptyKey)) r.keyData = Buffer.from([0]);
  if (r.threshold < 0 && has(TF.negative)) r.threshold = 0;
  if (r.threshold === 0 && has(TF.zeroRejected)) throw err.invalidArgument('confirmation_threshold must be positive');
  if (r.format === 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO' && has(TF.derRejected)) throw err.invalidArgument('unsupported key format');
  if (r.keySpec === 'SIGNING_KEY_SPEC_EC_SECP256K1' && has(TF.secp256k1Rejected)) throw err.invalidArgument('unsupported key spec');
  if (r.keySpec === 'SIGNING_KEY_SPEC_EC_P384' && has(TF.p384Rejected)) throw err.invalidArgument('unsupported key spec');
  if (has(TF.duplicates)) {
    r.otherConfirming = [...new Set(r.otherConfirming)];
    r.observing = [...new Set(r.observing)].filter((u) => !r.otherConfirming.includes(u));
  }
  if (r.partyHint === '') throw err.invalidArgument('party_hint must not be empty');
  if (!isPartyHint(r.partyHint)) throw err.invalidField('party_hint', `Invalid party hint ${JSON.stringify(r.partyHint.slice(0, 200))}`);
  if (!state.world.synchronizers.includes(r.synchronizer) && !has(TF.unknownSync)) {
    throw err.invalidArgument(`Synchronizer ${r.synchronizer.slice(0, 200)} is unknown or not connected`);
  }
  if (r.keyData.length === 0) throw err.invalidArgument('public_key.key_data must not be empty');
  if (r.format.endsWith('_UNSPECIFIED') && has(TF.unspecifiedAccepted)) r.format = 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO';
  if (r.format.endsWith('_UNSPECIFIED')) throw err.missingField('public_key.format');
  if (r.keySpec.endsWith('_UNSPECIFIED')) throw err.missingField('public_key.key_spec');
  if (r.threshold < 0) throw err.invalidArgument('confirmation_threshold must not be negative');
  for (const uid of [...r.otherConfirming, ...r.observing]) {
    if (!isUid(uid)) throw err.invalidField('participant_uid', `Invalid participant UID ${JSON.stringify(uid.slice(0, 200))}`);
  }
  const localUid = state.world.participantId.replace(/^PAR::/, '');
  const all = [localUid, ...r.otherConfirming, ...r.observing];
  const dup = all.find((u, i) => all.indexOf(u) !== i);
  if (dup !== undefined) throw err.invalidArgument(`Participant ${dup.slice(0, 200)} appears more than once`);
  const confirmers = (r.localObservationOnly ? 0 : 1) + r.otherConfirming.length;
  if (confirmers === 0) throw err.invalidArgument('The party needs at least one confirming participant');
  if (r.threshold > confirmers && has(TF.above)) r.threshold = confirmers;
  if (r.threshold > confirmers) {
    throw err.invalidArgument(`confirmation_threshold ${r.threshold} is above the number of confirming participants (${confirmers})`);
  }
  // 0 (or unset) means: all available confirmers.
  return { localUid, threshold: r.threshold === 0 ? confirmers : r.threshold };
}

const serialize = (mapping: object) => Buffer.concat([Buffer.from([0x0a, 0x22]), Buffer.from(JSON.stringify(mapping))]);

export function topologyRoutes(app: FastifyInstance, ctx: ReferenceContext, state: LedgerState): void {
  route(app, ctx, 'POST', '/v2/parties/external/generate-topology', async (c) => {
    const has: Has = (f) => ctx.faults.has(f);
    const r = decodeRequest(await c.json(), has);
    (await c.caller()).requireIdpAdmin('');
    const { localUid, threshold: effective } = validate(state, r, has);
    // planted: a threshold of 0 (or none) written into the mapping as given instead of as all the confirmers
    const kept = has(TF.zeroKept) && r.threshold === 0 ? 0 : effective;
    // planted: an observing local participant counted as a confirmer for the default threshold
    const threshold = has(TF.observerCounted) && r.threshold === 0 && r.localObservationOnly ? kept + 1 : kept;
    const fp = fingerprint(r.keyData);
    const partyId = `${has(TF.hint) ? `party${state.nextSeq()}` : r.partyHint}::${fp}`;
    const confirming = [...(r.localObservationOnly ? [] : [localUid]), ...r.otherConfirming];
    const observing = [...(r.localObservationOnly ? [localUid] : []), ...r.observing];
    const txs = [
      { mapping: 'NamespaceDelegation', namespace: fp, targetKey: fp, isRootDelegation: true, synchronizer: r.synchronizer },
      {
        mapping: 'PartyToParticipant',
        partyId,
        threshold,
        participants: [
          ...confirming.map((uid) => ({ uid, permission: 'Confirmation' })),
          ...observing.map((uid) => ({ uid, permission: 'Observation' })),
        ],
      },
      { mapping: 'PartyToKeyMapping', partyId, threshold: 1, signingKeys: [{ fingerprint: fp, format: r.format, spec: r.keySpec }] },
    ].map(serialize);
    const hashes = txs.map((t) => createHash('sha256').update(t).digest()).sort(Buffer.compare);
    const multiHash = Buffer.concat([Buffer.from([0x12, 0x20]), createHash('sha256').update(Buffer.concat(hashes)).digest()]);
    return {
      partyId,
      ...(has(TF.schema) ? {} : { publicKeyFingerprint: fp }),
      topologyTransactions: has(TF.txsEmpty) ? [] : txs.map((t) => t.toString('base64')),
      multiHash: has(TF.hashEmpty) ? '' : multiHash.toString('base64'),
    };
  });
}
