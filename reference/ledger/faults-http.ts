/** Planted faults of the ledger's HTTP layer: how errors the HTTP framework raises itself are answered. */
import { registerFaults, type FaultSet } from '../faults.js';

export const HF = {
  mediaTypeServerError: 'ledger-unparsable-content-type-server-error',
  noContentTypeServerError: 'ledger-json-without-content-type-server-error',
} as const;

registerFaults([
  {
    name: HF.mediaTypeServerError,
    requirement: 'ledger.http.no-server-error',
    description: 'a request whose Content-Type header is no media type (such as "/") is answered 500 INTERNAL, not a 4xx',
  },
  {
    name: HF.noContentTypeServerError,
    requirement: 'ledger.http.no-server-error',
    description: 'a JSON body sent without a Content-Type header is answered 500 INTERNAL',
  },
]);

/** Whether a planted fault turns this error of the HTTP framework into a 500. */
export const frameworkErrorFaulty = (faults: FaultSet | undefined, e: Error): boolean =>
  faults?.has(HF.mediaTypeServerError) === true && (e as { code?: unknown }).code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE';
