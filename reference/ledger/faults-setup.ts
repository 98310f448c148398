/**
 * Planted faults of the set-up endpoints a real participant needs (the replacements of the deprecated transaction
 * endpoints, party allocation) and of the missing-field rule (FACTS.md: a 400, text/plain or JsCantonError).
 */
import { registerFaults } from '../faults.js';

export const SF = {
  submitSchema: 'ledger-submit-and-wait-for-transaction-answers-tree',
  updateSchema: 'ledger-get-update-by-offset-unwrapped',
  missingField: 'ledger-errors-missing-party-hint-accepted',
  submitFormatRequired: 'ledger-submit-and-wait-for-transaction-format-required',
} as const;

const r = (name: string, requirement: string, description: string) => ({ name, requirement, description });
registerFaults([
  r(SF.submitSchema, 'ledger.submit-and-wait-for-transaction.response-schema', 'POST /v2/commands/submit-and-wait-for-transaction answers {transactionTree} instead of {transaction}'),
  r(SF.updateSchema, 'ledger.get-update-by-offset.response-schema', 'POST /v2/updates/update-by-offset answers the transaction directly under update, without the Transaction kind key'),
  r(SF.submitFormatRequired, 'ledger.submit-and-wait-for-transaction.format-optional', 'POST /v2/commands/submit-and-wait-for-transaction refuses a submission without transactionFormat with 400 MISSING_FIELD'),
  r(SF.missingField, 'ledger.errors.missing-field-rejected', 'generate-topology without a partyHint (whose empty default is invalid) is answered 200 with a hint of its own'),
]);
