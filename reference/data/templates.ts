/** Package and template ids of the seeded Splice contracts (fixed, fictional package hashes). */
import { packageId } from './seed.js';

export const PACKAGES = {
  amulet: { name: 'splice-amulet', id: packageId('splice-amulet-0.1.14') },
  ans: { name: 'splice-amulet-name-service', id: packageId('splice-amulet-name-service-0.1.15') },
  wallet: { name: 'splice-wallet', id: packageId('splice-wallet-0.1.14') },
  tokenStandard: { name: 'splice-token-standard-impl', id: packageId('splice-token-standard-impl-0.1.5') },
} as const;

function t(pkg: { id: string }, moduleEntity: string): string {
  return `${pkg.id}:${moduleEntity}`;
}

export const TEMPLATES = {
  ansEntry: t(PACKAGES.ans, 'Splice.Ans:AnsEntry'),
  validatorLicense: t(PACKAGES.amulet, 'Splice.ValidatorLicense:ValidatorLicense'),
  openMiningRound: t(PACKAGES.amulet, 'Splice.Round:OpenMiningRound'),
  issuingMiningRound: t(PACKAGES.amulet, 'Splice.Round:IssuingMiningRound'),
  featuredAppRight: t(PACKAGES.amulet, 'Splice.Amulet:FeaturedAppRight'),
  amulet: t(PACKAGES.amulet, 'Splice.Amulet:Amulet'),
  amuletRules: t(PACKAGES.amulet, 'Splice.AmuletRules:AmuletRules'),
  externalPartyAmuletRules: t(PACKAGES.amulet, 'Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules'),
  transferInstruction: t(PACKAGES.amulet, 'Splice.AmuletTransferInstruction:AmuletTransferInstruction'),
  allocationInstruction: t(PACKAGES.tokenStandard, 'Splice.AmuletAllocationInstruction:AmuletAllocationInstruction'),
  subscriptionPayment: t(PACKAGES.wallet, 'Splice.Wallet.Subscriptions:SubscriptionIdleState'),
} as const;
