import { registerDerivedFaults } from '../derived-faults.js';

registerDerivedFaults('ledger', ['required-removed', 'wrong-type', 'out-of-range', 'pattern', 'enum', 'non-integer'], ['wrong-type', 'non-integer']);
