import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';
import type { Exchange } from '../../../harness/transport/http.js';
import { FixtureError, createSubmitter, routeNotServed, submitCommands, templateFixture } from '../../../harness/fixtures/ledger.js';
import { createCommand, eventsOf, readTransaction } from '../shared.js';

type Obj = Record<string, unknown>;

const R = 'ledger.event-format.include-flags-default-off';

/** The module and entity part of a template or interface id, whichever reference form it uses. */
const qualified = (id: string) => id.slice(id.indexOf(':'));

describe('POST /v2/updates/transaction-by-offset: include flags left out', () => {
  conformance(
    {
      id: 'ledger.get-transaction-by-offset.include-flags-default-off',
      title: 'reads a filter that leaves out includeCreatedEventBlob (and an InterfaceFilter that leaves out includeInterfaceView) as asking for no blob (no view)',
      api: 'ledger',
      operations: ['getTransactionByOffset', 'getUpdateByOffset', 'submitAndWaitForTransaction'],
      requirements: [R],
    },
    async (t) => {
      const tmpl = templateFixture(t);
      const s = await createSubmitter(t);
      const c = await submitCommands(t, s, [createCommand(tmpl, s.party)]);
      if (c.x.status === 404 && routeNotServed(c.x)) t.skip('no submission endpoint is served: no transaction to look up');
      const cid = c.created[0];
      if (c.x.status !== 200 || c.offset === undefined || cid === undefined) throw new FixtureError(`setup: the create answered ${c.x.status}: ${c.x.text.slice(0, 300)}`);
      const offset = c.offset;
      // a rule about event formats, not the endpoint: read through update-by-offset where transaction-by-offset is gone
      const lookup = async (identifierFilter: Obj): Promise<{ x: Exchange; ev: Obj | undefined }> => {
        const filters = { cumulative: [{ identifierFilter }] };
        const { x } = await readTransaction(t, offset, { eventFormat: { filtersByParty: { [s.party]: filters }, verbose: true }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' }, { user: s.userId });
        return { x, ev: x.status === 200 ? eventsOf(x).find((e) => e.kind === 'CreatedEvent' && e.event.contractId === cid)?.event : undefined };
      };
      // createdEventBlob is optional: absent, null and "" all mean no blob
      const noBlob = (ev: Obj, x: Exchange, what: string) =>
        t.expect(!ev.createdEventBlob, `${what} selected the created event with a createdEventBlob, as if the left-out flag were true`, { requirement: R, exchange: x });
      let judged = 0;
      const wildcard = await lookup({ WildcardFilter: { value: {} } });
      if (wildcard.ev !== undefined) {
        judged++;
        await t.judge(R, () => noBlob(wildcard.ev!, wildcard.x, 'a WildcardFilter without includeCreatedEventBlob'));
      }
      // the template by its package-name reference: the fixture's when it is one, else built from the event's packageName
      const tid = tmpl.templateId;
      const pkgName = wildcard.ev?.packageName;
      const byName = tid.startsWith('#') ? tid : typeof pkgName === 'string' && pkgName !== '' ? `#${pkgName}${qualified(tid)}` : undefined;
      if (byName !== undefined) {
        const template = await lookup({ TemplateFilter: { value: { templateId: byName } } });
        if (template.ev !== undefined) {
          judged++;
          await t.judge(R, () => noBlob(template.ev!, template.x, `a TemplateFilter on ${byName} without includeCreatedEventBlob`));
        }
      }
      const interfaceId = t.fixture<string>('interfaceId');
      if (interfaceId !== undefined) {
        const iface = await lookup({ InterfaceFilter: { value: { interfaceId } } });
        if (iface.ev !== undefined) {
          judged++;
          const ev = iface.ev;
          await t.judge(R, () => {
            noBlob(ev, iface.x, `an InterfaceFilter on ${interfaceId} without includeCreatedEventBlob`);
            const views = Array.isArray(ev.interfaceViews) ? (ev.interfaceViews as { interfaceId?: unknown }[]) : [];
            t.expect(!views.some((v) => typeof v?.interfaceId === 'string' && qualified(v.interfaceId) === qualified(interfaceId)),
              `an InterfaceFilter on ${interfaceId} without includeInterfaceView selected the created event with a view of the interface: ${JSON.stringify(ev.interfaceViews).slice(0, 300)}`, { requirement: R, exchange: iface.x });
          });
        }
      }
      // a filter that selects nothing is another rule's failure (ledger.event-format.*): nothing to judge here
      if (judged === 0) t.notObserved(R, 'no filter without its include flags selected the created event the check submitted');
    },
  );
});
