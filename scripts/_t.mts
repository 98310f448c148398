import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
for (const f of ['specs/ledger.yaml', 'specs/requirements/ledger.yaml', 'specs/scan.yaml', 'specs/requirements/scan.yaml']) {
  const text = readFileSync(f, 'utf8');
  let t0 = performance.now(); const v = parse(text); const y = performance.now() - t0;
  const j = JSON.stringify(v); t0 = performance.now(); JSON.parse(j); const jp = performance.now() - t0;
  console.log(f, 'yaml', y.toFixed(1), 'json', jp.toFixed(1));
}
