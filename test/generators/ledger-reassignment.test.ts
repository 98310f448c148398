import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { schemaRegistry } from '../../harness/judging/schemas.js';
import { moves, reassignmentRequest } from '../../generators/ledger/reassignment.js';

describe('generators/ledger/reassignment', () => {
  it('builds requests that match SubmitAndWaitForReassignmentRequest', () => {
    for (const ms of fc.sample(moves(), { seed: 1, numRuns: 20 })) {
      for (const m of ms) {
        const req = reassignmentRequest(
          {
            commandId: 'c1',
            submitter: 'alice::1220ab',
            ...(m.omitUserId ? {} : { userId: 'alice_user' }),
            ...(m.omitOptional ? {} : { workflowId: 'w', submissionId: 's' }),
            command: { UnassignCommand: { value: { contractId: '00ab', source: 's1::1220ab', target: 's2::1220ab' } } },
          },
          m.withFormat ? { filtersByParty: { 'alice::1220ab': {} }, verbose: true } : undefined,
        );
        expect(schemaRegistry().validateComponent('ledger', 'SubmitAndWaitForReassignmentRequest', req)).toEqual([]);
      }
    }
  });
  it('gives the same values for the same seed', () => {
    expect(fc.sample(moves(), { seed: 9, numRuns: 10 })).toEqual(fc.sample(moves(), { seed: 9, numRuns: 10 }));
  });
});
