/**
 * yaml, loaded on first use: most modules that can read YAML (a configuration file, a baseline, a served OpenAPI
 * document) are imported by the suite workers, which never parse any, and the package costs each thread about 80 ms to
 * load. The YAML the suite reads on every run goes through yaml-cache.ts instead.
 */
import { createRequire } from 'node:module';

type Yaml = typeof import('yaml');
let yaml: Yaml | undefined;

export function parseYaml(text: string, options?: import('yaml').ParseOptions & import('yaml').DocumentOptions & import('yaml').SchemaOptions & import('yaml').ToJSOptions): unknown {
  yaml ??= createRequire(import.meta.url)('yaml') as Yaml;
  return yaml.parse(text, options);
}
