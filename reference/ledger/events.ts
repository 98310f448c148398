/**
 * Event formats (filtersByParty / filtersForAnyParty with cumulative template, interface and wildcard filters), their
 * authorization, and the JSON encoding of created, archived, exercised and reassignment events.
 */
import { elementObject, oneOf, optArray, optBool, optObject, reqObject, reqString, isObject, type Obj } from './body.js';
import { err } from './errors.js';
import type { Caller } from './access.js';
import { isParty } from './ids.js';
import type { AssignEvent, ContractSnapshot, ExerciseNode, UnassignEvent } from './state.js';

export interface IdentifierFilter {
  kind: 'wildcard' | 'template' | 'interface';
  /** template or interface id for the non-wildcard kinds */
  id?: string;
  includeCreatedEventBlob: boolean;
  includeInterfaceView?: boolean;
}

export interface EventFormat {
  byParty: Map<string, IdentifierFilter[]>;
  anyParty?: IdentifierFilter[];
  verbose: boolean;
}

const WILDCARD: IdentifierFilter = { kind: 'wildcard', includeCreatedEventBlob: false };

function decodeIdentifierFilter(v: unknown, path: string): IdentifierFilter {
  const cf = elementObject(v, path);
  if (!isObject(cf.identifierFilter)) return WILDCARD;
  const [name, payload] = oneOf(cf.identifierFilter, `${path}.identifierFilter`, ['Empty', 'WildcardFilter', 'TemplateFilter', 'InterfaceFilter']);
  const p = `${path}.identifierFilter.${name}`;
  switch (name) {
    case 'WildcardFilter': {
      const value = optObject(payload, 'value', p) ?? {};
      return { kind: 'wildcard', includeCreatedEventBlob: optBool(value, 'includeCreatedEventBlob', `${p}.value`) ?? false };
    }
    case 'TemplateFilter': {
      const value = reqObject(payload, 'value', p);
      return {
        kind: 'template',
        id: reqString(value, 'templateId', `${p}.value`),
        includeCreatedEventBlob: optBool(value, 'includeCreatedEventBlob', `${p}.value`) ?? false,
      };
    }
    case 'InterfaceFilter': {
      const value = reqObject(payload, 'value', p);
      return {
        kind: 'interface',
        id: reqString(value, 'interfaceId', `${p}.value`),
        includeInterfaceView: optBool(value, 'includeInterfaceView', `${p}.value`) ?? false,
        includeCreatedEventBlob: optBool(value, 'includeCreatedEventBlob', `${p}.value`) ?? false,
      };
    }
    default:
      // The Empty variant widens nothing beyond the default wildcard.
      return WILDCARD;
  }
}

/** Filters: a list of cumulative filters; with none, a single wildcard filter without the blob flag applies. */
function decodeFilters(v: unknown, path: string): IdentifierFilter[] {
  const filters = (optArray(elementObject(v, path), 'cumulative', path) ?? []).map((f, i) => decodeIdentifierFilter(f, `${path}.cumulative[${i}]`));
  return filters.length === 0 ? [WILDCARD] : filters;
}

export function decodeEventFormat(o: Obj, path: string): EventFormat {
  const byParty = new Map<string, IdentifierFilter[]>();
  const fbp = optObject(o, 'filtersByParty', path) ?? {};
  for (const [party, f] of Object.entries(fbp)) byParty.set(party, decodeFilters(f, `${path}.filtersByParty.${party}`));
  const any = o.filtersForAnyParty;
  return {
    byParty,
    anyParty: any === undefined || any === null ? undefined : decodeFilters(any, `${path}.filtersForAnyParty`),
    verbose: optBool(o, 'verbose', path) ?? false,
  };
}

/** A wildcard format for the given parties (the defaults behind the deprecated requestingParties). */
export function wildcardFormat(parties: string[]): EventFormat {
  return { byParty: new Map(parties.map((p) => [p, [WILDCARD]])), verbose: true };
}

const IDENTIFIER = /^(#[a-zA-Z0-9_\-.]+|[a-zA-Z0-9\-_]{1,64}):[A-Za-z0-9_.]+:[A-Za-z0-9_.]+$/;
export const isIdentifier = (s: string) => IDENTIFIER.test(s);

/** Checks party and identifier syntax and that the caller may read as the requested parties. */
export function validateEventFormat(ef: EventFormat, caller: Caller): void {
  if (ef.byParty.size === 0 && ef.anyParty === undefined) {
    throw err.invalidArgument('filtersByParty and filtersForAnyParty cannot be empty at the same time');
  }
  for (const [party, filters] of ef.byParty) {
    if (!isParty(party)) throw err.invalidField('filters_by_party', `Invalid party ${JSON.stringify(party.slice(0, 200))}`);
    validateFilters(filters);
  }
  if (ef.anyParty !== undefined) validateFilters(ef.anyParty);
  // The participant administrator may read as anyone here (the brief of this server); others need read rights.
  if (caller.isAdmin) return;
  for (const party of ef.byParty.keys()) caller.requireReadAs(party);
  if (ef.anyParty !== undefined && !caller.canReadAsAnyParty && !caller.anyPartyUnchecked) {
    throw err.permissionDenied('Claims do not authorize to read data for any party');
  }
}

function validateFilters(filters: IdentifierFilter[]): void {
  for (const f of filters) {
    if (f.id !== undefined && !isIdentifier(f.id)) {
      throw err.invalidField(f.kind === 'template' ? 'template_id' : 'interface_id', `Invalid identifier ${JSON.stringify(f.id.slice(0, 200))}`);
    }
  }
}

/** A template reference matches by package name (`#name:Module:Entity`) or by package id (deprecated form). */
export function templateMatches(ref: string, templateId: string, packageName: string): boolean {
  const i = ref.indexOf(':');
  const j = templateId.indexOf(':');
  if (ref.slice(i) !== templateId.slice(j)) return false;
  const pkg = ref.slice(0, i);
  return pkg.startsWith('#') ? pkg.slice(1) === packageName : pkg === templateId.slice(0, j);
}

/**
 * Interfaces the templates of this ledger implement, by qualified template name: the interface's qualified name (in
 * the template's package) and its view of a create argument.
 */
const IMPLEMENTS: Record<string, { iface: string; view: (arg: Obj) => Obj }[]> = {
  'Iou:Iou': [{ iface: 'Iou:Asset', view: (a) => ({ owner: a.owner, amount: a.amount }) }],
};

/** The interfaces contract `c`'s template implements, package-id qualified, with their views of the contract. */
export function implementedInterfaces(c: ContractSnapshot): { interfaceId: string; view: Obj }[] {
  const pkg = packageIdOf(c.templateId);
  return (IMPLEMENTS[c.templateId.slice(pkg.length + 1)] ?? []).map((i) => ({ interfaceId: `${pkg}:${i.iface}`, view: i.view(c.createArgument) }));
}

function matchFilters(filters: IdentifierFilter[], c: ContractSnapshot): { blob: boolean; views: string[] } | undefined {
  let matched = false;
  let blob = false;
  const views: string[] = [];
  for (const f of filters) {
    const iface = f.kind === 'interface' ? implementedInterfaces(c).find((i) => templateMatches(f.id as string, i.interfaceId, c.packageName)) : undefined;
    const ok = f.kind === 'wildcard' || (f.kind === 'template' && templateMatches(f.id as string, c.templateId, c.packageName)) || iface !== undefined;
    if (ok) {
      matched = true;
      blob ||= f.includeCreatedEventBlob;
      if (iface !== undefined && f.includeInterfaceView === true && !views.includes(iface.interfaceId)) views.push(iface.interfaceId);
    }
  }
  return matched ? { blob, views } : undefined;
}

export interface Visibility {
  witnesses: string[];
  includeBlob: boolean;
  /** package-id qualified interfaces whose views the created event carries */
  views?: string[];
}

/**
 * Whether an event on contract `c` whose parties (stakeholders or informees) are `parties` passes the format, and
 * as whom: a listed party sees it when its filter matches; a matching any-party filter shows it to all its parties.
 */
export function visibility(ef: EventFormat, parties: string[], c: ContractSnapshot): Visibility | undefined {
  const witnesses = new Set<string>();
  const views = new Set<string>();
  let includeBlob = false;
  for (const p of parties) {
    const filters = ef.byParty.get(p);
    const m = filters === undefined ? undefined : matchFilters(filters, c);
    if (m !== undefined) {
      witnesses.add(p);
      includeBlob ||= m.blob;
      for (const i of m.views) views.add(i);
    }
  }
  if (ef.anyParty !== undefined) {
    const m = matchFilters(ef.anyParty, c);
    if (m !== undefined) {
      for (const p of parties) witnesses.add(p);
      includeBlob ||= m.blob;
      for (const i of m.views) views.add(i);
    }
  }
  return witnesses.size === 0 ? undefined : { witnesses: [...witnesses], includeBlob, views: [...views] };
}

export const stakeholders = (c: ContractSnapshot) => [...new Set([...c.signatories, ...c.observers])];

/** Informees of an exercise: actors and signatories, plus observers when it consumes the contract. */
export const exerciseInformees = (n: ExerciseNode) =>
  [...new Set([...n.actingParties, ...n.contract.signatories, ...(n.consuming ? n.contract.observers : [])])];

/** The package id part of a package-id qualified template id. */
export const packageIdOf = (templateId: string) => templateId.slice(0, templateId.indexOf(':'));

/**
 * The trace context of an update as a participant sends it: FACTS.md, an unset field is JSON null (this reference
 * never has a tracestate).
 */
export const traceContext = (traceparent: string): Obj => ({ traceparent, tracestate: null });

export function createdEvent(c: ContractSnapshot, offset: number, nodeId: number, v: Visibility, acsDelta: boolean): Obj {
  return {
    offset,
    nodeId,
    contractId: c.contractId,
    templateId: c.templateId,
    // FACTS.md and the recorded wire: no key is JSON null, its hash the empty string
    contractKey: null,
    contractKeyHash: '',
    createArgument: c.createArgument,
    createdEventBlob: v.includeBlob ? c.createdEventBlob : '',
    interfaceViews: implementedInterfaces(c)
      .filter((i) => v.views?.includes(i.interfaceId) === true)
      .map((i) => ({ interfaceId: i.interfaceId, viewStatus: { code: 0, message: '', details: [] }, viewValue: i.view, implementationPackageId: packageIdOf(c.templateId) })),
    witnessParties: v.witnesses,
    signatories: c.signatories,
    observers: c.observers,
    createdAt: c.createdAt,
    packageName: c.packageName,
    representativePackageId: packageIdOf(c.templateId),
    acsDelta,
  };
}

export function archivedEvent(c: ContractSnapshot, offset: number, nodeId: number, v: Visibility): Obj {
  return {
    offset,
    nodeId,
    contractId: c.contractId,
    templateId: c.templateId,
    witnessParties: v.witnesses,
    packageName: c.packageName,
    implementedInterfaces: [],
  };
}

export function exercisedEvent(n: ExerciseNode, offset: number, v: Visibility, acsDelta: boolean): Obj {
  return {
    offset,
    nodeId: n.nodeId,
    contractId: n.contract.contractId,
    templateId: n.contract.templateId,
    // a choice not exercised through an interface: JSON null (FACTS.md)
    interfaceId: null,
    choice: n.choice,
    choiceArgument: n.choiceArgument,
    actingParties: n.actingParties,
    consuming: n.consuming,
    witnessParties: v.witnesses,
    lastDescendantNodeId: n.lastDescendantNodeId,
    exerciseResult: n.exerciseResult,
    packageName: n.contract.packageName,
    implementedInterfaces: [],
    acsDelta,
  };
}

/** FACTS.md: a reassignment's unassign event comes under `value` below its kind key (an assign event does not). */
export function unassignedEvent(e: UnassignEvent, offset: number, v: Visibility): Obj {
  return { JsUnassignedEvent: { value: unassignedEventValue(e, offset, v) } };
}

function unassignedEventValue(e: UnassignEvent, offset: number, v: Visibility): Obj {
  return {
    reassignmentId: e.reassignmentId,
    contractId: e.contract.contractId,
    templateId: e.contract.templateId,
    source: e.source,
    target: e.target,
    submitter: e.submitter,
    reassignmentCounter: e.reassignmentCounter,
    // FACTS.md: seen as null on real participants; this reference sets no exclusivity deadline on the wire
    assignmentExclusivity: null,
    witnessParties: v.witnesses,
    packageName: e.contract.packageName,
    offset,
    nodeId: e.nodeId,
  };
}

export function assignmentEvent(e: AssignEvent, offset: number, v: Visibility): Obj {
  return {
    JsAssignmentEvent: {
      source: e.source,
      target: e.target,
      reassignmentId: e.reassignmentId,
      submitter: e.submitter,
      reassignmentCounter: e.reassignmentCounter,
      createdEvent: createdEvent(e.contract, offset, e.nodeId, v, true),
    },
  };
}
