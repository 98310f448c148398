/**
 * Planted faults of the fields Splice always sends in a 200 answer (FACTS.md, "Scan and validator"): `entries`,
 * `validator_licenses` and the fields of the exercised events in events_by_id.
 */
import type { FastifyInstance } from 'fastify';
import { installBodyFaults, isObj, type BodyFault } from '../body-faults.js';
import { registerFaults, type FaultSet } from '../faults.js';

export const SWF = {
  entriesMissing: 'scan-list-ans-entries-entries-missing-when-empty',
  licensesMissing: 'scan-licenses-list-missing-on-last-page',
  exercisedFields: 'scan-get-event-exercised-acting-parties-missing',
} as const;

registerFaults([
  { name: SWF.entriesMissing, requirement: 'scan.list-ans-entries.response-schema', description: 'GET /v0/ans-entries answers {} instead of {entries: []} when nothing matches' },
  {
    name: SWF.licensesMissing,
    requirement: 'scan.list-validator-licenses.response-schema',
    description: 'the last page of GET /v0/admin/validator/licenses leaves validator_licenses out',
  },
  {
    name: SWF.exercisedFields,
    requirement: 'scan.events.tree-event-shape',
    description: 'GET /v0/events/{update_id} leaves acting_parties out of every exercised event in events_by_id',
  },
]);

const RULES: BodyFault[] = [
  {
    fault: SWF.entriesMissing,
    method: 'GET',
    path: /\/v0\/ans-entries$/,
    apply: (b) => (Array.isArray(b.entries) && b.entries.length === 0 ? {} : b),
  },
  {
    fault: SWF.licensesMissing,
    method: 'GET',
    path: /\/v0\/admin\/validator\/licenses$/,
    apply: ({ validator_licenses: list, ...rest }) => (rest.next_page_token === undefined || rest.next_page_token === null ? rest : { validator_licenses: list, ...rest }),
  },
  {
    fault: SWF.exercisedFields,
    method: 'GET',
    path: /\/v0\/events\/.+$/,
    apply: (b) => {
      const events = isObj(b.update) ? b.update.events_by_id : undefined;
      if (isObj(events)) for (const e of Object.values(events)) if (isObj(e) && e.event_type === 'exercised_event') delete e.acting_parties;
      return b;
    },
  },
];

export function installScanBodyFaults(app: FastifyInstance, faults: FaultSet): void {
  installBodyFaults(app, faults, RULES);
}
