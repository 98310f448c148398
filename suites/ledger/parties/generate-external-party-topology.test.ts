import { describe } from 'vitest';
import fc from 'fast-check';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import type { Exchange } from '../../../harness/transport/http.js';
import { expectRejected, judgeBadRequests, judgeRejection } from '../../rejections.js';
import { connectedSynchronizers } from '../../../harness/fixtures/ledger.js';
import { tryAllVettingRecords } from '../../../harness/fixtures/ledger-vetting.js';
import {
  ed25519DerKey,
  invalidEmptyKeyData,
  invalidKeyEnum,
  invalidNegativeThreshold,
  everyListedKey,
  listedKey,
  partyHint,
} from '../../../generators/ledger/topology.js';

const P = 'ledger.generate-external-party-topology';

async function synchronizer(t: CheckContext): Promise<string> {
  const s = t.fixture<string>('synchronizerId') ?? (await connectedSynchronizers(t))[0];
  if (s === undefined) t.skip('the participant is connected to no synchronizer');
  return s;
}

const uidOf = (participantId: string) => participantId.replace(/^PAR::/, '');

/**
 * The UID of a participant the target lists in its vetting records (participantId PAR::<uid>) other than the answering
 * participant (its id from GET /v2/parties/participant-id, real API); none where that id is not known.
 */
async function otherParticipantUid(t: CheckContext): Promise<string | { why: string }> {
  const records = await tryAllVettingRecords(t);
  if (typeof records === 'string') return { why: `no participant to name twice: ${records}` };
  const x = await t.client.raw({ method: 'GET', path: '/v2/parties/participant-id', operationId: 'getParticipantId (real API, not in SPEC.md)', token: await t.client.token(undefined) });
  const local = (x.json as { participantId?: unknown } | undefined)?.participantId;
  // never the answering participant: a duplicate participant is refused (FACTS.md), so naming it as "another" would
  // fail a correct participant; where its own id is not known, no listed participant is known to be another
  if (typeof local !== 'string' || local === '') return { why: `GET /v2/parties/participant-id answered ${x.status} without a participantId, so no listed participant is known to be another than the answering one` };
  const uids = [...new Set(records.map((r) => uidOf(r.participantId)))].filter((u) => u !== '' && u !== uidOf(local));
  return uids[0] ?? { why: 'the vetting listing names no participant other than the answering one: no known participant to name twice' };
}

const generate = (t: CheckContext, json: Record<string, unknown>) => t.call('generateExternalPartyTopology', { json });

const BAD_REQUEST = 'ledger.errors.bad-request-400';

describe('POST /v2/parties/external/generate-topology', () => {
  conformance(
    {
      id: 'ledger.generate-external-party-topology.response',
      title: 'answers an Ed25519 DER key with a party id built from the hint, topology transactions and a multi-hash',
      api: 'ledger',
      operations: ['generateExternalPartyTopology'],
      requirements: [
        `${P}.ed25519-der-accepted`,
        `${P}.response-schema`,
        `${P}.party-id-from-hint`,
        `${P}.topology-transactions-non-empty`,
        `${P}.multi-hash-non-empty`,
      ],
    },
    async (t) => {
      const sync = await synchronizer(t);
      // each rule judged on its own (a failure judges one requirement); the answer's rules only on a 200
      const check = async (hint: string) => {
        const x = await generate(t, { synchronizer: sync, partyHint: hint, publicKey: ed25519DerKey() });
        await t.judge(`${P}.ed25519-der-accepted`, () => t.expectStatus(x, 200, { requirement: `${P}.ed25519-der-accepted` }));
        const j = (x.json ?? {}) as { partyId?: unknown; publicKeyFingerprint?: unknown; topologyTransactions?: unknown; multiHash?: unknown };
        const on200 = (requirement: string, body: () => void) => t.judge(requirement, () => {
          if (x.status !== 200) t.skip(`the request was answered ${x.status}, not 200`);
          body();
        });
        await on200(`${P}.response-schema`, () => t.expect(typeof j.partyId === 'string' && typeof j.publicKeyFingerprint === 'string' && Array.isArray(j.topologyTransactions) && typeof j.multiHash === 'string',
          'the response lacks partyId, publicKeyFingerprint, topologyTransactions or multiHash', { requirement: `${P}.response-schema`, exchange: x }));
        await on200(`${P}.party-id-from-hint`, () => t.expect(typeof j.partyId === 'string' && j.partyId.includes(hint) && typeof j.publicKeyFingerprint === 'string' && j.partyId.includes(j.publicKeyFingerprint),
          `partyId ${String(j.partyId)} does not contain the hint ${hint} and the fingerprint`, { requirement: `${P}.party-id-from-hint`, exchange: x }));
        await on200(`${P}.topology-transactions-non-empty`, () => t.expect(Array.isArray(j.topologyTransactions) && j.topologyTransactions.length > 0, 'topologyTransactions is empty', { requirement: `${P}.topology-transactions-non-empty`, exchange: x }));
        await on200(`${P}.multi-hash-non-empty`, () => t.expect(typeof j.multiHash === 'string' && j.multiHash.length > 0, 'multiHash is empty', { requirement: `${P}.multi-hash-non-empty`, exchange: x }));
      };
      // one example outside the property, so that a rule the schema also encodes is reported under its own id
      await check(t.uniqueName('cc-ext'));
      // generating a topology changes no state: the cases run at once (at nightly depth, 100 topology requests one after
      // another were the run's longest chain)
      await t.judge(`${P}.ed25519-der-accepted`, () => t.property(partyHint(), check, { runs: t.scaledRuns(5), concurrent: true }));
    },
  );

  conformance(
    {
      id: 'ledger.generate-external-party-topology.listed-keys',
      title: 'accepts keys of every listed key spec in a listed format their data fits',
      api: 'ledger',
      operations: ['generateExternalPartyTopology'],
      requirements: [`${P}.listed-key-values-accepted`],
    },
    async (t) => {
      const sync = await synchronizer(t);
      // every listed combination once, besides the random draws
      for (const key of everyListedKey()) {
        t.expectStatus(await generate(t, { synchronizer: sync, partyHint: t.uniqueName('cc-key'), publicKey: key }), 200, { what: `a ${key.keySpec} key in ${key.format}` });
      }
      await t.property(fc.tuple(partyHint(), listedKey()), async ([hint, key]) => {
        t.expectStatus(await generate(t, { synchronizer: sync, partyHint: hint, publicKey: key }), 200, { what: `a ${key.keySpec} key in ${key.format}` });
        // generating a topology changes no state: the cases run at once (each a topology-speed request on a participant)
      }, { runs: t.scaledRuns(10), concurrent: true });
    },
  );

  conformance(
    {
      id: 'ledger.generate-external-party-topology.thresholds',
      title: 'accepts a confirmationThreshold of 0 or none, rejects a negative one with a 4xx (400 as FACTS.md gives) and one above the confirmers with 400',
      api: 'ledger',
      operations: ['generateExternalPartyTopology'],
      requirements: [`${P}.zero-threshold-defaults`, `${P}.negative-threshold-rejected`, `${P}.threshold-above-confirmers-rejected`, BAD_REQUEST],
    },
    async (t) => {
      const sync = await synchronizer(t);
      const base = { synchronizer: sync, partyHint: t.uniqueName('cc-ext'), publicKey: ed25519DerKey() };
      await t.judge(`${P}.zero-threshold-defaults`, async () => {
        t.expectStatus(await generate(t, { ...base, confirmationThreshold: 0 }), 200, { requirement: `${P}.zero-threshold-defaults` });
        t.expectStatus(await generate(t, base), 200, { requirement: `${P}.zero-threshold-defaults` });
      });
      const seen: Array<{ x: Exchange; what: string }> = [];
      await t.judge(`${P}.negative-threshold-rejected`, () => t.property(invalidNegativeThreshold(), async (n) => {
        const x = await generate(t, { ...base, confirmationThreshold: n });
        expectRejected(t, x, { requirement: `${P}.negative-threshold-rejected`, what: `confirmationThreshold ${n}` });
        seen.push({ x, what: `confirmationThreshold ${n}` });
      }, { runs: t.scaledRuns(3), requirement: `${P}.negative-threshold-rejected` }));
      await judgeBadRequests(t, BAD_REQUEST, seen);
      // only the local participant confirms: any threshold above 1 exceeds the confirmers
      await t.judge(`${P}.threshold-above-confirmers-rejected`, async () => {
        t.expectStatus(await generate(t, { ...base, confirmationThreshold: 2 }), 400, { requirement: `${P}.threshold-above-confirmers-rejected` });
      });
    },
  );

  conformance(
    {
      id: 'ledger.generate-external-party-topology.defaults',
      title: 'generates for an absent localParticipantObservationOnly what it generates for false, and for a threshold of 0 or none what it generates for a threshold of all the confirmers (and not of fewer)',
      api: 'ledger',
      operations: ['generateExternalPartyTopology'],
      requirements: [`${P}.observation-only-default`, `${P}.zero-threshold-defaults`],
    },
    async (t) => {
      // The transactions' encoding is not specified, but the same request must give the same transactions when the
      // target is deterministic; then a default and its explicit value must give the same transactions too.
      const sync = await synchronizer(t);
      const base = { synchronizer: sync, partyHint: t.uniqueName('cc-ext'), publicKey: ed25519DerKey() };
      const txs = async (json: Record<string, unknown>, requirement: string, what: string) => {
        const x = await generate(t, json);
        t.expectStatus(x, 200, { requirement, what });
        return { x, txs: JSON.stringify((x.json as { topologyTransactions?: unknown } | undefined)?.topologyTransactions ?? null) };
      };
      const a = await txs(base, `${P}.observation-only-default`, 'a request without the optional fields');
      const again = await txs(base, `${P}.observation-only-default`, 'the same request again');
      if (a.txs !== again.txs) t.skip('the same request generated different topology transactions: this target does not generate deterministically, so defaults cannot be compared');
      await t.judge(`${P}.observation-only-default`, async () => {
        const explicitFalse = await txs({ ...base, localParticipantObservationOnly: false }, `${P}.observation-only-default`, 'localParticipantObservationOnly false');
        t.expect(explicitFalse.txs === a.txs, 'localParticipantObservationOnly false generated other topology transactions than leaving the flag out: the default is not false', { requirement: `${P}.observation-only-default`, exchange: explicitFalse.x });
      });
      await t.judge(`${P}.zero-threshold-defaults`, async () => {
        const zero = await txs({ ...base, confirmationThreshold: 0 }, `${P}.zero-threshold-defaults`, 'confirmationThreshold 0');
        t.expect(zero.txs === a.txs, 'confirmationThreshold 0 generated other topology transactions than leaving the threshold out', { requirement: `${P}.zero-threshold-defaults`, exchange: zero.x });
        // "default all available confirmers": only the local participant confirms here, so leaving the threshold out
        // asks for the same threshold as naming 1
        const one = await txs({ ...base, confirmationThreshold: 1 }, `${P}.zero-threshold-defaults`, 'confirmationThreshold 1 (the one confirmer)');
        t.expect(one.txs === a.txs, 'with the local participant the only confirmer, confirmationThreshold 1 generated other topology transactions than leaving the threshold out: the default is not all available confirmers', { requirement: `${P}.zero-threshold-defaults`, exchange: one.x });
      });
      // with another participant confirming too, the default is 2: the same as naming 2, not as naming 1
      const uid = await otherParticipantUid(t);
      if (typeof uid !== 'string') {
        t.note(`the default threshold was compared with one confirmer only: ${uid.why}`);
        return;
      }
      await t.judge(`${P}.zero-threshold-defaults`, async () => {
        const two = { ...base, otherConfirmingParticipantUids: [uid] };
        const dflt = await txs(two, `${P}.zero-threshold-defaults`, 'another participant confirming, no threshold');
        const all = await txs({ ...two, confirmationThreshold: 2 }, `${P}.zero-threshold-defaults`, 'another participant confirming, confirmationThreshold 2');
        const one = await txs({ ...two, confirmationThreshold: 1 }, `${P}.zero-threshold-defaults`, 'another participant confirming, confirmationThreshold 1');
        t.expect(all.txs === dflt.txs, 'with two confirmers, confirmationThreshold 2 generated other topology transactions than leaving the threshold out: the default is not all available confirmers', { requirement: `${P}.zero-threshold-defaults`, exchange: all.x });
        t.expect(one.txs !== dflt.txs, 'with two confirmers, confirmationThreshold 1 generated the same topology transactions as leaving the threshold out: the default is not all available confirmers, or the threshold is ignored', { requirement: `${P}.zero-threshold-defaults`, exchange: one.x });
      });
    },
  );

  conformance(
    {
      id: 'ledger.generate-external-party-topology.observation-only',
      title: 'accepts localParticipantObservationOnly true, generates other topology transactions than for false, and counts the observing participant as no confirmer (default and highest threshold)',
      api: 'ledger',
      operations: ['generateExternalPartyTopology'],
      requirements: [`${P}.observation-only-applied`, `${P}.zero-threshold-defaults`, `${P}.threshold-above-confirmers-rejected`],
    },
    async (t) => {
      // Black-box, the flag shows only in the generated transactions: the local participant's permission (observation
      // instead of confirmation) is inside the PartyToParticipant mapping of a serialized, versioned protobuf message,
      // whose schema neither SPEC.md nor FACTS.md gives. Decoding it would assert the implementation's field numbers,
      // so the check judges what the specification fixes: the same request with true and with false generates other
      // transactions. Another participant confirms (an observing-only party needs a confirmer) with an explicit
      // threshold of 1, so the flag is the only difference.
      const uid = await otherParticipantUid(t);
      if (typeof uid !== 'string') t.skip(`${uid.why}: a party the local participant only observes needs another participant to confirm`);
      const base = { synchronizer: await synchronizer(t), partyHint: t.uniqueName('cc-ext'), publicKey: ed25519DerKey(), otherConfirmingParticipantUids: [uid], confirmationThreshold: 1 };
      const txs = async (observationOnly: boolean, what: string) => {
        const x = await generate(t, { ...base, localParticipantObservationOnly: observationOnly });
        t.expectStatus(x, 200, { requirement: `${P}.observation-only-applied`, what });
        return { x, txs: JSON.stringify((x.json as { topologyTransactions?: unknown } | undefined)?.topologyTransactions ?? null) };
      };
      const confirming = await txs(false, 'localParticipantObservationOnly false');
      const again = await txs(false, 'the same request again');
      if (confirming.txs !== again.txs) t.skip('the same request generated different topology transactions: this target does not generate deterministically, so no difference can be laid to the flag');
      const observing = await txs(true, 'localParticipantObservationOnly true');
      t.expect(observing.txs !== confirming.txs, 'localParticipantObservationOnly true generated the same topology transactions as false: the local participant still confirms', { requirement: `${P}.observation-only-applied`, exchange: observing.x });
      // an observing local participant is no confirmer: the one other participant is all the available confirmers, so
      // leaving the threshold out asks for 1, and 2 is above the confirmers
      await t.judge(`${P}.zero-threshold-defaults`, async () => {
        const x = await generate(t, { synchronizer: base.synchronizer, partyHint: base.partyHint, publicKey: base.publicKey, otherConfirmingParticipantUids: base.otherConfirmingParticipantUids, localParticipantObservationOnly: true });
        t.expectStatus(x, 200, { requirement: `${P}.zero-threshold-defaults`, what: 'localParticipantObservationOnly true, another participant confirming, no threshold' });
        const dflt = JSON.stringify((x.json as { topologyTransactions?: unknown } | undefined)?.topologyTransactions ?? null);
        t.expect(dflt === observing.txs, 'with the local participant only observing and one other participant confirming, leaving the threshold out generated other topology transactions than confirmationThreshold 1: the observing participant is counted as a confirmer', { requirement: `${P}.zero-threshold-defaults`, exchange: x });
      });
      await t.judge(`${P}.threshold-above-confirmers-rejected`, async () => {
        t.expectStatus(await generate(t, { ...base, localParticipantObservationOnly: true, confirmationThreshold: 2 }), 400, { requirement: `${P}.threshold-above-confirmers-rejected`, what: 'localParticipantObservationOnly true, one other participant confirming, confirmationThreshold 2' });
      });
    },
  );

  conformance(
    {
      id: 'ledger.generate-external-party-topology.invalid',
      title: 'rejects empty key data (a 4xx, 400 as FACTS.md gives), unlisted key values, an empty hint, an unknown synchronizer and a participant named twice with 400',
      api: 'ledger',
      operations: ['generateExternalPartyTopology'],
      requirements: [
        BAD_REQUEST,
        `${P}.empty-key-data-rejected`,
        `${P}.unknown-key-value-rejected`,
        `${P}.empty-party-hint-rejected`,
        `${P}.unknown-synchronizer-rejected`,
        `${P}.duplicate-participants-rejected`,
      ],
    },
    async (t) => {
      const sync = await synchronizer(t);
      const base = { synchronizer: sync, partyHint: t.uniqueName('cc-ext'), publicKey: ed25519DerKey() };
      const [empty] = fc.sample(invalidEmptyKeyData(), { seed: t.seed, numRuns: 1 });
      // each rule judged on its own: one accepted invalid request leaves the others judged
      const rejected = (requirement: string, json: Record<string, unknown>) =>
        t.judge(requirement, async () => t.expectStatus(await generate(t, json), 400, { requirement }));
      await judgeRejection(t, await generate(t, { ...base, publicKey: empty }), { requirement: `${P}.empty-key-data-rejected`, badRequest: BAD_REQUEST, what: 'empty keyData' });
      await t.judge(`${P}.unknown-key-value-rejected`, () => t.property(invalidKeyEnum(), async (key) => {
        t.expectStatus(await generate(t, { ...base, publicKey: key }), 400, { requirement: `${P}.unknown-key-value-rejected` });
      }, { runs: t.scaledRuns(4), requirement: `${P}.unknown-key-value-rejected` }));
      // the enums' UNSPECIFIED values are not among the listed ones (FACTS.md): each once
      await t.judge(`${P}.unknown-key-value-rejected`, async () => {
        for (const key of [{ ...ed25519DerKey(), format: 'CRYPTO_KEY_FORMAT_UNSPECIFIED' }, { ...ed25519DerKey(), keySpec: 'SIGNING_KEY_SPEC_UNSPECIFIED' }]) {
          t.expectStatus(await generate(t, { ...base, publicKey: key }), 400, { requirement: `${P}.unknown-key-value-rejected`, what: `format ${key.format}, keySpec ${key.keySpec}` });
        }
      });
      await rejected(`${P}.empty-party-hint-rejected`, { ...base, partyHint: '' });
      await rejected(`${P}.unknown-synchronizer-rejected`, { ...base, synchronizer: `cc-unknown-sync::1220${'cd'.repeat(32)}` });
      // a participant the target knows, named twice: a made-up one could be refused for being unknown instead
      const uid = await otherParticipantUid(t);
      if (typeof uid !== 'string') t.notObserved(`${P}.duplicate-participants-rejected`, uid.why);
      else await rejected(`${P}.duplicate-participants-rejected`, { ...base, otherConfirmingParticipantUids: [uid], observingParticipantUids: [uid] });
    },
  );
});
