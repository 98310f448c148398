/**
 * separateCases (suites/rejections.ts): the cases of a multi-case check are decided one by one. A case whose answer
 * can decide nothing ends that case alone, noted; the check ends in error only when no case was decided.
 */
import { describe, expect, it } from 'vitest';
import type { CheckContext } from '../../harness/conformance.js';
import { NoDecidingAnswer, TargetOverloaded } from '../../harness/transport/http.js';
import { separateCases } from '../../suites/rejections.js';

function context(): { t: CheckContext; notes: string[] } {
  const notes: string[] = [];
  return { t: { note: (s: string) => notes.push(s) } as unknown as CheckContext, notes };
}

describe('separateCases', () => {
  it('goes on to the next case after one that cannot be decided, and notes it', async () => {
    const { t, notes } = context();
    const cases = separateCases(t);
    const ran: string[] = [];
    await cases.run('a', async () => void ran.push('a'));
    await cases.run('b', async () => {
      ran.push('b');
      throw new NoDecidingAnswer('b answered 403, a refusal of the caller');
    });
    await cases.run('c', async () => void ran.push('c'));
    expect(ran).toEqual(['a', 'b', 'c']);
    expect(() => cases.done()).not.toThrow();
    expect(notes).toEqual(['not decided: b: b answered 403, a refusal of the caller']);
  });

  it('ends the check in error when no case was decided', async () => {
    const { t } = context();
    const cases = separateCases(t);
    await cases.run('a', async () => {
      throw new TargetOverloaded('a answered 503');
    });
    await cases.run('b', async () => {
      throw new NoDecidingAnswer('b answered 401');
    });
    expect(() => cases.done()).toThrow(/a answered 503/);
  });

  it('lets any other error (a failure, a harness error) end the check at once', async () => {
    const { t } = context();
    const cases = separateCases(t);
    await expect(cases.run('a', async () => {
      throw new Error('harness broke');
    })).rejects.toThrow(/harness broke/);
  });
});
