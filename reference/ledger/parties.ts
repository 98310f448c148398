/** Party management setup endpoints: allocate (POST /v2/parties), list, and the participant id. */
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../types.js';
import { optObject, optString, optStringMap, type Obj } from './body.js';
import { CantonError, err } from './errors.js';
import { route } from './http.js';
import { isPartyHint, isUserId } from './ids.js';
import { validateAnnotations } from './annotations.js';
import type { LedgerState, PartyDetails } from './state.js';
import { CF } from './faults-cross.js';

function encodeParty(p: PartyDetails): Obj {
  return {
    party: p.party,
    isLocal: true,
    localMetadata: { resourceVersion: p.resourceVersion, annotations: { ...p.annotations } },
    identityProviderId: p.identityProviderId,
  };
}

/** Registers a party hosted on this participant. */
export function addParty(state: LedgerState, party: string, identityProviderId = '', annotations: Record<string, string> = {}): PartyDetails {
  const details = { party, identityProviderId, annotations, resourceVersion: state.nextResourceVersion() };
  state.parties.set(party, details);
  return details;
}

export function partyRoutes(app: FastifyInstance, ctx: ReferenceContext, state: LedgerState): void {
  route(app, ctx, 'POST', '/v2/parties', async (c) => {
    const body = await c.json({});
    // the real field is partyIdHint: anything else (partyHint) is an unknown field, ignored like any other
    const hint = optString(body, 'partyIdHint') ?? '';
    const metadata = optObject(body, 'localMetadata') ?? {};
    const annotations = optStringMap(metadata, 'annotations', 'localMetadata') ?? {};
    const idp = optString(body, 'identityProviderId') ?? '';
    // the planted fault guesses the first synchronizer for an allocation that names none
    const synchronizerId = optString(body, 'synchronizerId') ?? (ctx.faults.has(CF.allocateGuess) ? (state.world.synchronizers[0] as string) : '');
    const userId = optString(body, 'userId') ?? '';
    (await c.caller()).requireIdpAdmin(idp);
    if (hint !== '' && !isPartyHint(hint)) throw err.invalidField('party_id_hint', `Invalid party hint ${JSON.stringify(hint.slice(0, 200))}`);
    if ((optString(metadata, 'resourceVersion', 'localMetadata') ?? '') !== '') throw err.invalidArgument('local_metadata.resource_version must be empty');
    validateAnnotations(annotations, 'create');
    if (!state.identityProviders.has(idp)) throw err.invalidArgument(`Provided identity_provider_id ${idp.slice(0, 200)} has not been found.`);
    if (synchronizerId !== '' && !state.world.synchronizers.includes(synchronizerId)) {
      throw err.invalidArgument(`Synchronizer ${synchronizerId.slice(0, 200)} is unknown or not connected`);
    }
    // FACTS.md: connected to two or more synchronizers, a participant cannot tell where to allocate without one named
    if (synchronizerId === '' && state.world.synchronizers.length > 1) {
      throw new CantonError('PARTY_ALLOCATION_CANNOT_DETERMINE_SYNCHRONIZER', 'INVALID_ARGUMENT', 'Cannot determine the synchronizer to allocate the party on: the participant is connected to several; name one in synchronizerId');
    }
    const user = userId === '' ? undefined : state.world.users.get(userId);
    if (userId !== '' && (!isUserId(userId) || user === undefined)) {
      throw err.notFound('USER_NOT_FOUND', `getting user failed for unknown user "${userId.slice(0, 200)}"`, [['USER_ID', userId]]);
    }
    const party = `${hint === '' ? `party-${state.nextSeq()}` : hint}::${state.world.namespace}`;
    if (state.parties.has(party)) throw err.alreadyExists('PARTY_ALREADY_EXISTS', `Party already exists: ${party}`, [['PARTY', party]]);
    const details = addParty(state, party, idp, annotations);
    // Allocating for a user grants it the right to act as the new party.
    if (user !== undefined) user.rights.push({ kind: 'CanActAs', party });
    return ctx.faults.has(CF.allocate) ? {} : { partyDetails: encodeParty(details) };
  });

  route(app, ctx, 'GET', '/v2/parties', async (c) => {
    const caller = await c.caller();
    caller.requireIdpAdmin(caller.user.identityProviderId);
    const all = [...state.parties.values()].filter((p) => caller.isAdmin || p.identityProviderId === caller.user.identityProviderId);
    return { partyDetails: all.sort((a, b) => (a.party < b.party ? -1 : 1)).map(encodeParty), nextPageToken: '' };
  });

  route(app, ctx, 'GET', '/v2/parties/participant-id', async (c) => {
    await c.caller();
    return { participantId: state.world.participantId };
  });
}
