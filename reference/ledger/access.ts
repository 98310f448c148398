/**
 * Authorization of an authenticated user by its rights, as a participant checks claims derived from them.
 */
import type { UserRecord } from '../world.js';
import { err, type CantonError } from './errors.js';
import { F } from './faults-users.js';
import { PF } from './faults-rights.js';

export class Caller {
  /** `fault` tells whether a planted fault is switched on (faults-rights.ts). */
  constructor(readonly user: UserRecord, private readonly fault: (name: string) => boolean = () => false) {}

  get id(): string {
    return this.user.id;
  }
  private has(kind: string, party?: string): boolean {
    return this.user.rights.some((r) => r.kind === kind && (party === undefined || ('party' in r && r.party === party)));
  }
  get isAdmin(): boolean {
    return this.has('ParticipantAdmin');
  }
  get isIdpAdmin(): boolean {
    return this.has('IdentityProviderAdmin');
  }
  canActAs(party: string): boolean {
    return this.has('CanActAs', party) || (this.fault(PF.actAsAnyParty) && this.has('CanActAs'));
  }
  /** CanActAs implies reading as the party. */
  canReadAs(party: string): boolean {
    return (this.has('CanReadAs', party) && !this.fault(PF.readAsIgnored))
      || this.canActAs(party)
      || (this.has('CanReadAsAnyParty') && !this.fault(PF.anyPartyIgnored))
      || (this.has('CanExecuteAs', party) && this.fault(PF.executeAsReads));
  }
  get canReadAsAnyParty(): boolean {
    return this.has('CanReadAsAnyParty');
  }
  /** planted fault (filters-for-any-party-unchecked): a read for any party needs no right */
  get anyPartyUnchecked(): boolean {
    return this.fault(PF.anyPartyUnchecked);
  }

  requireAdmin(): void {
    if (!this.isAdmin) throw this.adminRefusal('Claims do not authorize the use of administrative services.');
  }
  /** PERMISSION_DENIED (403); under a planted fault, a 404 that hides the resource instead */
  private adminRefusal(cause: string): CantonError {
    return this.fault(F.adminRefusalAs404) ? err.notFound('USER_NOT_FOUND', cause) : err.permissionDenied(cause);
  }
  /** ParticipantAdmin, or IdentityProviderAdmin of the given identity provider (the caller's own). */
  administers(identityProviderId: string): boolean {
    return this.isAdmin || (this.isIdpAdmin && (identityProviderId === this.user.identityProviderId || this.fault(PF.idpAdminAnyProvider)));
  }
  /** the planted fault under which an identity provider admin reaches the users of every identity provider */
  get reachesEveryProvider(): boolean {
    return this.isIdpAdmin && this.fault(PF.idpAdminAnyProvider);
  }
  requireIdpAdmin(identityProviderId: string): void {
    if (this.administers(identityProviderId)) return;
    throw this.adminRefusal('Claims do not authorize the use of identity provider administrative services.');
  }
  requireActAs(party: string): void {
    if (!this.canActAs(party)) throw err.permissionDenied(`Claims do not authorize to act as party '${party}'`);
    if (this.fault(PF.actAsNeedsReadAs) && !this.has('CanReadAs', party)) throw err.permissionDenied(`Claims do not authorize to read data for party '${party}'`);
  }
  requireReadAs(party: string): void {
    if (!this.canReadAs(party)) throw err.permissionDenied(`Claims do not authorize to read data for party '${party}'`);
  }
}
