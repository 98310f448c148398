/**
 * GET /v0/entry/all for users whose token is valid but who have nothing to list: a user the validator has not
 * onboarded (one the participant does not know; the target's configured notOnboardedUser, for example a ledger user
 * without a primary party) and a deactivated user (the configured deactivatedUser). SPEC.md documents a 404 for the
 * endpoint and denies a deactivated user the ledger API; FACTS.md gives 401 or 403 for the token of a deactivated or
 * unknown user. Any of the three is accepted; a 200 listing or a 5xx is not.
 */
import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import { AuthUnavailable } from '../../../harness/transport/auth.js';
import type { Exchange } from '../../../harness/transport/http.js';
import { notBusy } from '../../v0-http-checks.js';

const NOT_ONBOARDED = 'validator.list-owned-ans-entries.not-onboarded-refused';
const DEACTIVATED = 'validator.list-owned-ans-entries.deactivated-user-refused';
const REFUSALS = [401, 403, 404];

/** the role's token where the validator target has one, else the reason there is none */
async function roleAuth(t: CheckContext, role: string): Promise<{ role: string } | string> {
  const tokens = t.clientFor('validator').tokens;
  if (tokens.kind === 'none') return `targets.validator.auth is "none": configure a token for role "${role}"`;
  try {
    await tokens.tokenFor(role);
    return { role };
  } catch (e) {
    if (e instanceof AuthUnavailable) return `no token for role "${role}": ${e.message}`;
    throw e;
  }
}

/** judges one refused user's answer: 401, 403 or 404, and no entries */
async function judgeRefused(t: CheckContext, requirement: string, x: Exchange, who: string): Promise<void> {
  notBusy(t, x);
  await t.judge(requirement, () => {
    const entries = (x.json as { entries?: unknown } | undefined)?.entries;
    t.expect(REFUSALS.includes(x.status), `GET /v0/entry/all with the token of ${who} answered ${x.status}, not 404 (not onboarded), 401 or 403${Array.isArray(entries) ? ` (a listing of ${entries.length} entries)` : ''}`, { requirement, exchange: x });
  });
}

describe('GET /v0/entry/all: users with nothing to list', () => {
  conformance(
    {
      id: 'validator.list-owned-ans-entries.not-onboarded-user',
      title: 'answers the token of a user the validator has not onboarded with 404 (or 401, 403), listing nothing',
      api: 'validator',
      operations: ['listOwnedAnsEntries'],
      requirements: [NOT_ONBOARDED],
    },
    async (t) => {
      const tokens = t.clientFor('validator').tokens;
      const skipped: string[] = [];
      let judged = 0;
      // a user the participant does not know: a fresh id, where tokens can be minted for any user
      if (tokens.canMintForUsers) {
        const user = t.uniqueName('cc-unknown-user');
        await judgeRefused(t, NOT_ONBOARDED, await t.call('listOwnedAnsEntries', { auth: { user } }), `a user the participant does not know (${user})`);
        judged++;
      } else skipped.push(`tokens for a user the participant does not know need auth.kind "hs256" (this target uses "${tokens.kind}")`);
      const configured = await roleAuth(t, 'notOnboardedUser');
      if (typeof configured === 'string') skipped.push(configured);
      else {
        const user = tokens.userOf('notOnboardedUser');
        await judgeRefused(t, NOT_ONBOARDED, await t.call('listOwnedAnsEntries', { auth: configured }), `the configured notOnboardedUser${user !== undefined ? ` (${user})` : ''}`);
        judged++;
      }
      if (judged === 0) t.skip(`no token of a user the validator has not onboarded: ${skipped.join('; ')}`);
      for (const s of skipped) t.note(`not sent: ${s}`);
    },
  );

  conformance(
    {
      id: 'validator.list-owned-ans-entries.deactivated-user',
      title: 'refuses the token of a deactivated user with 401 or 403 (or 404), listing nothing',
      api: 'validator',
      operations: ['listOwnedAnsEntries'],
      requirements: [DEACTIVATED],
    },
    async (t) => {
      const configured = await roleAuth(t, 'deactivatedUser');
      if (typeof configured === 'string') return t.skip(`no token of a deactivated user: ${configured} (a ledger user with isDeactivated set, onboarded on the validator before)`);
      const user = t.clientFor('validator').tokens.userOf('deactivatedUser');
      await judgeRefused(t, DEACTIVATED, await t.call('listOwnedAnsEntries', { auth: configured }), `the configured deactivatedUser${user !== undefined ? ` (${user})` : ''}`);
    },
  );
});
