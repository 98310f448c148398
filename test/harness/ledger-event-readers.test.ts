import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../harness/transport/http.js';
import { eventOf, eventsOf, treeEventsOf, unwrapEvent, wrapperProblems } from '../../suites/ledger/shared.js';

// The event readers of the ledger checks (suites/ledger/shared.ts) against the wire forms of FACTS.md and against the
// recorded bodies of real participants in ../shared/wire-samples/ (read from there, never copied).
const SAMPLES = resolve(import.meta.dirname, '../../../shared/wire-samples');
const exchange = (json: unknown) => ({ status: 200, json }) as unknown as Exchange;

describe('ledger event readers', () => {
  // the samples sit beside the project (shared/wire-samples), as on CI; a clone elsewhere skips this one test
  it.skipIf(!existsSync(SAMPLES))('read every event of the recorded transactions directly under its kind key, with no wrapper problem', () => {
    const bodies = JSON.parse(readFileSync(resolve(SAMPLES, 'ledger.get-update.transactions.json'), 'utf8')) as { update: { Transaction: { value: { events: unknown[] } } } }[];
    let n = 0;
    for (const b of bodies) {
      const tx = b.update.Transaction.value;
      const evs = eventsOf(exchange({ transaction: tx }));
      expect(evs).toHaveLength(tx.events.length);
      for (const e of evs) {
        expect(e.form).toBe('direct');
        expect(e.keys).toHaveLength(1);
        expect(typeof e.event.contractId).toBe('string');
      }
      expect(wrapperProblems(evs, 'transaction')).toEqual([]);
      n += evs.length;
    }
    expect(n).toBeGreaterThan(0);
  });

  it('read tree events under value and reassignment events in their two forms, and name a wrong wrapper', () => {
    const created = { contractId: '1', offset: 3 };
    const tree = exchange({ transactionTree: { eventsById: { '0': { CreatedTreeEvent: { value: created } }, '1': { ExercisedTreeEvent: { value: { contractId: '1' } } } } } });
    expect(treeEventsOf(tree).map((e) => [e.kind, e.form, e.event.contractId])).toEqual([['CreatedTreeEvent', 'value', '1'], ['ExercisedTreeEvent', 'value', '1']]);
    expect(wrapperProblems(treeEventsOf(tree), 'tree')).toEqual([]);
    const flatTree = exchange({ transactionTree: { eventsById: { '0': { CreatedTreeEvent: created } } } });
    expect(treeEventsOf(flatTree)[0]?.event).toEqual(created);
    expect(wrapperProblems(treeEventsOf(flatTree), 'tree')).toHaveLength(1);

    const assign = { source: 'a', target: 'b', reassignmentId: 'r', submitter: 'p', reassignmentCounter: 1, createdEvent: created };
    const unassign = { reassignmentId: 'r', contractId: '1', assignmentExclusivity: null };
    const real = exchange({ reassignment: { events: [{ JsAssignmentEvent: assign }, { JsUnassignedEvent: { value: unassign } }] } });
    expect(eventOf(eventsOf(real), 'JsAssignmentEvent')).toEqual(assign);
    expect(eventOf(eventsOf(real), 'JsUnassignedEvent')).toEqual(unassign);
    expect(wrapperProblems(eventsOf(real), 'reassignment')).toEqual([]);
    const flat = exchange({ reassignment: { events: [{ JsUnassignedEvent: unassign }] } });
    expect(eventOf(eventsOf(flat), 'JsUnassignedEvent')).toEqual(unassign);
    expect(wrapperProblems(eventsOf(flat), 'reassignment')[0]).toContain('not as {"JsUnassignedEvent": {"value": {...}}}');
    // a kind FACTS.md does not name is left alone outside a tree
    expect(wrapperProblems(eventsOf(exchange({ transaction: { events: [{ SomeNewEvent: { value: {} } }] } })), 'transaction')).toEqual([]);
    expect(unwrapEvent(null)).toBeUndefined();
    expect(unwrapEvent({})).toBeUndefined();
  });
});
