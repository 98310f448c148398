import { registerDerivedFaults } from '../derived-faults.js';

registerDerivedFaults('validator', ['required-removed', 'out-of-range', 'non-integer']);
