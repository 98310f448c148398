import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

/** The package root, so the suite works from any working directory. */
export const PACKAGE_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SPECS_DIR = join(PACKAGE_ROOT, 'specs');
