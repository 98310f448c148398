import { registerDerivedFaults } from '../derived-faults.js';

registerDerivedFaults('registry', ['required-removed', 'wrong-type']);
