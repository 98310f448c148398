import { registerDerivedFaults } from '../derived-faults.js';

registerDerivedFaults('scan', ['required-removed', 'wrong-type', 'out-of-range', 'enum', 'non-integer'], ['wrong-type', 'non-integer'], {
  // a wrong JSON type has no site on the operations SPEC.md describes but the removed activities listing's body
  'wrong-type': { scanVersion: '0.6.7' },
});
