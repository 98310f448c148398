/**
 * Integer query parameters written in another notation than decimal digits: an exponent (1e1, 1e3) or hexadecimal
 * (0x10) spells a number a lenient decoder reads (10, 1000, 16), but it is not an integer as a query parameter writes
 * one, and FACTS.md has a malformed query parameter refused (400 text/plain). Each is refused with a 4xx (a SHOULD,
 * FACTS.md's alone). Digits with blanks around them are not sent: a form-encoded plus sign reads as a blank, and a
 * decoder that trims is not wrong by any sentence.
 */
import { describe } from 'vitest';
import { conformance, type CheckContext } from '../../../harness/conformance.js';
import { excerpt, expectRejected, notBusy } from '../../rejections.js';

const REQUIREMENT = 'scan.errors.integer-query-decimal-only';

/** numbers written with an exponent or in hexadecimal; 10 and 16 are page sizes every scan accepts in decimal */
const NOT_DECIMAL = ['1e1', '0x10', '1e3'] as const;

/** the parameter of each listing, with a decimal value it accepts (the control) */
const PARAMETERS = [
  { op: 'listAnsEntries', name: 'page_size', decimal: '10' },
  { op: 'listValidatorLicenses', name: 'limit', decimal: '10' },
] as const;

async function judgeParameter(t: CheckContext, p: (typeof PARAMETERS)[number]): Promise<void> {
  // the control: the decimal form is accepted, so that a rejection below can only be about the notation
  const control = await t.call(p.op, { query: { [p.name]: p.decimal } });
  notBusy(t, control);
  if (control.status < 200 || control.status >= 300) t.skip(`${p.op} with ${p.name}=${p.decimal} answered ${control.status}, so no rejection could be laid to the notation: ${excerpt(control)}`);
  for (const text of NOT_DECIMAL) {
    const x = await t.call(p.op, { query: { [p.name]: text } });
    expectRejected(t, x, { requirement: REQUIREMENT, what: `${p.op} with ${p.name}=${text} (not decimal digits)` });
  }
}

describe('Scan integer query parameters', () => {
  conformance(
    {
      id: 'scan.http.integer-query-decimal-only',
      title: 'refuses page_size and limit written with an exponent (1e1, 1e3) or in hexadecimal (0x10) with a 4xx',
      api: 'scan',
      operations: PARAMETERS.map((p) => p.op),
      requirements: [REQUIREMENT],
    },
    async (t) => {
      for (const p of PARAMETERS) await judgeParameter(t, p);
    },
  );
});
