/** Planted faults of the fields a validator always sends in a 200 answer (FACTS.md: `entries` of ANS listings). */
import type { FastifyInstance } from 'fastify';
import { installBodyFaults, type BodyFault } from '../body-faults.js';
import { registerFaults, type FaultSet } from '../faults.js';

export const VWF = {
  proxyEntriesMissing: 'validator-scan-proxy-ans-entries-missing-when-empty',
} as const;

registerFaults([
  {
    name: VWF.proxyEntriesMissing,
    requirement: 'validator.list-scan-proxy-ans-entries.response-schema',
    description: 'GET /v0/scan-proxy/ans-entries answers {} instead of {entries: []} when nothing matches',
  },
]);

const RULES: BodyFault[] = [
  {
    fault: VWF.proxyEntriesMissing,
    method: 'GET',
    path: /\/v0\/scan-proxy\/ans-entries$/,
    apply: (b) => (Array.isArray(b.entries) && b.entries.length === 0 ? {} : b),
  },
];

export function installValidatorBodyFaults(app: FastifyInstance, faults: FaultSet): void {
  installBodyFaults(app, faults, RULES);
}
