import { registerDerivedFaults } from '../derived-faults.js';

registerDerivedFaults('scan', ['required-removed', 'wrong-type', 'out-of-range', 'enum', 'non-integer'], ['wrong-type', 'non-integer']);
