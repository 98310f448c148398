/**
 * GET /docs/openapi, the participant's own OpenAPI document "for its running version" (FACTS.md), read against
 * SPEC.md's ledger operations by harness/judging/own-openapi.ts (method and path shape; set-up and traffic endpoints
 * left out).
 */
import { describe } from 'vitest';
import { conformance } from '../../../harness/conformance.js';
import { notServedAt, readOwnDocument, readOwnOperations } from '../../../harness/judging/own-openapi.js';
import { notBusy } from '../../rejections.js';

const SERVED = 'ledger.own-openapi.served';
const LISTS = 'ledger.own-openapi.lists-served-operations';
const OMITS = 'ledger.own-openapi.omits-unserved-operations';

describe('GET /docs/openapi', () => {
  conformance(
    {
      id: 'ledger.own-openapi.running-version',
      title: 'serves its own OpenAPI document, listing the operations its version serves and none it does not',
      api: 'ledger',
      operations: [],
      requirements: [SERVED, LISTS, OMITS],
    },
    async (t) => {
      // the reference needs no token for it; a participant may want one, so the configured one goes along
      const token = await t.client.token(undefined);
      const x = await t.client.raw({
        method: 'GET',
        path: '/docs/openapi',
        operationId: 'getOpenApiDocument (FACTS.md, not in SPEC.md)',
        headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' },
        ...(token !== undefined ? { token } : {}),
      });
      // a raw request, outside t.call: an overload or gateway answer decides nothing
      notBusy(t, x);
      const doc = readOwnDocument(x.status, x.text);
      await t.judge(SERVED, () => {
        if (typeof doc === 'string') t.fail(doc, { requirement: SERVED, exchange: x });
      });
      if (typeof doc === 'string') {
        for (const r of [LISTS, OMITS]) t.notObserved(r, `no document to read: ${doc}`);
        return;
      }
      const version = t.target.version;
      if (version === undefined) {
        for (const r of [LISTS, OMITS]) t.notObserved(r, "the target's version is not known, so neither is which operations it serves");
        return;
      }
      const reading = readOwnOperations(doc, version, t.schemas.operations('ledger'));
      t.note(`the document is OpenAPI ${String(doc.openapi)} with ${reading.listed} operations`);
      await t.judge(LISTS, () => {
        const { missing } = reading;
        t.expect(missing.length === 0, `a ${version} participant serves ${missing.map((o) => `${o.method} ${o.path} (${o.operationId})`).join(', ')}, which its document does not list`, { requirement: LISTS, exchange: x });
      });
      await t.judge(OMITS, () => {
        if (reading.unserved.length === 0) t.skip(`every ledger operation of SPEC.md is served at ${version}: none the document could list wrongly`);
        const kept = reading.listedUnserved;
        t.expect(kept.length === 0, `the document lists ${kept.map((o) => `${o.method} ${o.path} (${notServedAt(version, o)})`).join(', ')}`, { requirement: OMITS, exchange: x });
      });
    },
  );
});
