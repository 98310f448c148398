// One of the run's group files (harness/run-groups.ts): loads the suite files planned for group 3.
import { loadGroup } from './load.js';

await loadGroup(3);
