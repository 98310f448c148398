/**
 * judge agrees with run on every planted fault of the scan, validator and registry interfaces whose requirement the passive rules cover: the run,
 * recorded (run --record), fails the fault's requirement, and judge on the recording says "observed fail" on it; judge
 * never fails a requirement the run passes, and sees every failure a generic check of the run saw. See
 * passive-faults.ts for how the faults are batched.
 */
import { agreementSuite } from './passive-faults.js';

agreementSuite(['scan', 'validator', 'registry'], 25);
