/**
 * Planted faults of an event format's cumulative filters, applied to a JSON request body before its handler decodes it
 * (every event format of every endpoint: transaction and update lookups, submissions, reassignments).
 */
import { registerFaults, type FaultSet } from '../faults.js';

export const EFF = {
  flagsOn: 'ledger-event-format-left-out-include-flags-on',
  emptyIdWildcard: 'ledger-event-format-empty-filter-id-wildcard',
  anyPartyIdWildcard: 'ledger-event-format-any-party-empty-filter-id-wildcard',
  anyPartyTemplateWildcard: 'ledger-event-format-any-party-template-filter-matches-any-template',
} as const;

registerFaults([
  {
    name: EFF.flagsOn,
    requirement: 'ledger.event-format.include-flags-default-off',
    description: 'a filter that leaves out includeCreatedEventBlob (or, for an InterfaceFilter, includeInterfaceView) reads as one that sends it true',
  },
  {
    name: EFF.emptyIdWildcard,
    requirement: 'ledger.event-format.filter-id-required',
    description: 'a TemplateFilter or InterfaceFilter whose id is the empty string reads as a wildcard filter',
  },
  {
    name: EFF.anyPartyIdWildcard,
    requirement: 'ledger.event-format.filter-id-required',
    description: 'the filters of filtersForAnyParty go unchecked: a TemplateFilter or InterfaceFilter there whose id is the empty string reads as a wildcard filter',
  },
  {
    name: EFF.anyPartyTemplateWildcard,
    requirement: 'ledger.event-format.acs-delta-stakeholders',
    description: 'a TemplateFilter of filtersForAnyParty selects the contracts of every template, as a wildcard does',
  },
]);

type Json = Record<string, unknown>;
const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether any fault of this file is switched on. */
export const eventFormatFaulty = (faults: FaultSet): boolean => Object.values(EFF).some((f) => faults.has(f));

/** The request body with the switched-on faults applied to every cumulative filter in it (changed in place). */
export function withEventFormatFaults(body: Json, faults: FaultSet): Json {
  const visit = (v: unknown, depth: number, anyParty = false): void => {
    if (depth > 12) return;
    if (Array.isArray(v)) {
      for (const x of v) visit(x, depth + 1, anyParty);
      return;
    }
    if (!isJson(v)) return;
    const idf = v.identifierFilter;
    if (isJson(idf)) {
      for (const [kind, payload] of Object.entries(idf)) {
        const value = isJson(payload) ? payload.value : undefined;
        if (!isJson(value)) continue;
        if (faults.has(EFF.flagsOn) && kind !== 'Empty') {
          value.includeCreatedEventBlob ??= true;
          if (kind === 'InterfaceFilter') value.includeInterfaceView ??= true;
        }
        if (anyParty && kind === 'TemplateFilter' && faults.has(EFF.anyPartyTemplateWildcard)) {
          v.identifierFilter = { WildcardFilter: { value: { includeCreatedEventBlob: value.includeCreatedEventBlob ?? false } } };
          continue;
        }
        const id = kind === 'TemplateFilter' ? value.templateId : kind === 'InterfaceFilter' ? value.interfaceId : undefined;
        if ((faults.has(EFF.emptyIdWildcard) || (anyParty && faults.has(EFF.anyPartyIdWildcard))) && id === '') {
          v.identifierFilter = { WildcardFilter: { value: { includeCreatedEventBlob: value.includeCreatedEventBlob ?? false } } };
        }
      }
    }
    for (const [k, x] of Object.entries(v)) visit(x, depth + 1, anyParty || k === 'filtersForAnyParty');
  };
  visit(body, 0);
  return body;
}
