/**
 * YAML documents the suite reads on every run (the OpenAPI documents, the requirement catalogue), parsed once and kept
 * as JSON keyed by their content hash: the main process and every worker read them at start, and JSON parses about a
 * hundred times faster than YAML. The cache is filled on first use (node_modules/.cache/canton-conformance); an edited
 * file has another hash, so it is parsed again. A cache that cannot be written is skipped, never an error.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseYaml } from './lazy-yaml.js';
import { PACKAGE_ROOT } from '../paths.js';

const CACHE_DIR = join(PACKAGE_ROOT, 'node_modules', '.cache', 'canton-conformance');

/** The parsed content of a YAML file (a plain JSON value: the specs and catalogue hold nothing else). */
export function readYamlCached(file: string): unknown {
  const text = readFileSync(file, 'utf8');
  const cached = join(CACHE_DIR, `${createHash('sha256').update(text).digest('hex').slice(0, 32)}.json`);
  try {
    return JSON.parse(readFileSync(cached, 'utf8'));
  } catch {
    // not cached yet (or unreadable): parsed below
  }
  // yaml is loaded only on a cache miss (its import costs every worker tens of milliseconds at start)
  const value = parseYaml(text);
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    const tmp = `${cached}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    writeFileSync(tmp, JSON.stringify(value));
    renameSync(tmp, cached);
  } catch {
    // a read-only install: parsed every time
  }
  return value;
}
