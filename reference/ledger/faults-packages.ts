/** Planted faults of POST /v2/packages and its effect on package vetting. */
import { unzipSync } from 'fflate';
import { registerFaults } from '../faults.js';

export const PF = {
  queryRequired: 'ledger-upload-package-vet-flag-required',
  schema: 'ledger-upload-package-answers-list',
  archive: 'ledger-upload-package-non-archive-accepted',
  query: 'ledger-upload-package-bad-vet-flag-accepted',
  vetAll: 'ledger-upload-package-vets-nothing',
  sync: 'ledger-upload-package-vets-first-synchronizer-only',
  everySync: 'ledger-upload-package-vets-every-synchronizer',
  unknownSync: 'ledger-upload-package-unknown-synchronizer-accepted',
  serial: 'ledger-upload-package-topology-serial-unchanged',
  upgrade: 'ledger-upload-package-upgrade-unchecked',
  darsDiffer: 'ledger-upload-package-dars-accepts-non-archive',
  autodetect: 'ledger-upload-package-vets-everywhere-unnamed',
  manifestOptional: 'ledger-upload-package-zip-without-manifest-accepted',
  emptyAccepted: 'ledger-upload-package-empty-body-accepted',
  contentTypeRequired: 'ledger-upload-package-content-type-required',
  reuploadRefused: 'ledger-upload-package-same-package-refused-again',
  vetsWhenFalse: 'ledger-upload-package-vets-when-false',
} as const;

/** For the planted fault manifestOptional: whether a zip archive lacks META-INF/MANIFEST.MF (a body that is no zip does not). */
export function zipWithoutManifest(bytes: Uint8Array): boolean {
  try {
    return unzipSync(bytes, { filter: (f) => f.name === 'META-INF/MANIFEST.MF' })['META-INF/MANIFEST.MF'] === undefined;
  } catch {
    return false;
  }
}

const r = (name: string, requirement: string, description: string) => ({ name, requirement, description });
registerFaults([
  r(PF.darsDiffer, 'ledger.upload-package.same-as-dars-upload', 'POST /v2/dars accepts a body that is not a zip archive, which POST /v2/packages rejects'),
  r(PF.schema, 'ledger.upload-package.response-schema', 'a successful upload answers 200 with a JSON list instead of an object'),
  r(PF.archive, 'ledger.upload-package.invalid-archive-rejected', 'a body that is not a zip archive is accepted'),
  r(PF.queryRequired, 'ledger.upload-package.query-optional', 'an upload without vetAllPackages is refused with 400 (missing query parameter)'),
  r(PF.query, 'ledger.upload-package.invalid-query-rejected', 'a vetAllPackages value that is not a boolean counts as true'),
  r(PF.vetAll, 'ledger.upload-package.vet-all-packages', 'vetAllPackages true vets nothing (on the synchronizer named or any other)'),
  r(PF.sync, 'ledger.upload-package.synchronizer-targets-vetting', 'the packages are vetted on the first connected synchronizer, not the requested one'),
  r(PF.everySync, 'ledger.upload-package.synchronizer-only', 'an upload naming a synchronizerId vets the packages on every connected synchronizer'),
  r(PF.unknownSync, 'ledger.upload-package.unknown-synchronizer-rejected', 'an upload naming a synchronizer the participant is not connected to is accepted and vetted on the first connected one'),
  r(PF.serial, 'ledger.get-package-vetting.topology-serial-advances', 'vetting a new package leaves the record\'s topologySerial unchanged'),
  r(PF.autodetect, 'ledger.upload-package.synchronizer-required', 'a vetting upload naming no synchronizerId on a participant connected to several synchronizers is accepted and vets on every one'),
  r(PF.manifestOptional, 'ledger.upload-package.invalid-archive-rejected', 'a zip archive without META-INF/MANIFEST.MF (no DAR) is accepted'),
  r(PF.emptyAccepted, 'ledger.upload-package.invalid-archive-rejected', 'an upload with an empty body is accepted'),
  r(PF.contentTypeRequired, 'ledger.upload-package.no-content-type-accepted', 'an upload without a Content-Type header is refused with 400'),
  r(PF.reuploadRefused, 'ledger.upload-package.upgrade-check', 'a vetted upload of a package already vetted on the synchronizer is refused as reusing its own version'),
  r(PF.vetsWhenFalse, 'ledger.upload-package.no-vetting-when-false', 'an upload with vetAllPackages false vets the packages on every connected synchronizer'),
  r(PF.upgrade, 'ledger.upload-package.upgrade-check', 'a vetted upload that reuses the name and version of a package already vetted on the synchronizer, with another package id, is accepted'),
]);
