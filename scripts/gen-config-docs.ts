/**
 * Writes docs/configuration.md from harness/config.schema.json (every setting: type, default, description), the
 * defaults of harness/config.ts, its CONFORMANCE_* environment variables and the CLI's flags, so the page cannot drift
 * from what the loader accepts. `npm run docs:config` writes it; `--check` only says whether it is current (exit 1 if
 * not). test/docs/config-docs.test.ts fails when it is out of date.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { DEFAULT_RUN, ENV_VARS } from '../harness/config.js';
import { PACKAGE_ROOT } from '../harness/paths.js';

type Schema = {
  type?: string | string[];
  description?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  oneOf?: Schema[];
  $ref?: string;
  $defs?: Record<string, Schema>;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  pattern?: string;
  default?: unknown;
  required?: string[];
  'x-secret'?: boolean;
};

export const CONFIG_DOCS = 'docs/configuration.md';
const SCHEMA_FILE = 'harness/config.schema.json';
const APIS = ['ledger', 'scan', 'validator', 'registry'] as const;

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
/** a description as table text: no HTML read into `<reportsDir>` */
const prose = (s: string) => cell(s.replace(/</g, '&lt;').replace(/>/g, '&gt;'));
const sentence = (s: string) => (s === '' ? '' : `${s[0]!.toUpperCase()}${s.slice(1)}${s.endsWith('.') ? '' : '.'}`);
const code = (s: string) => `\`${s}\``;

function resolve(root: Schema, node: Schema): Schema {
  if (node.$ref === undefined) return node;
  const name = /^#\/\$defs\/(.+)$/.exec(node.$ref)?.[1];
  const target = name !== undefined ? root.$defs?.[name] : undefined;
  if (target === undefined) throw new Error(`${SCHEMA_FILE}: cannot resolve ${node.$ref}`);
  return target;
}

function range(n: Schema): string {
  if (n.minimum !== undefined && n.maximum !== undefined) return ` ${n.minimum} to ${n.maximum}`;
  if (n.exclusiveMinimum !== undefined && n.maximum !== undefined) return ` above ${n.exclusiveMinimum}, at most ${n.maximum}`;
  if (n.minimum !== undefined) return ` from ${n.minimum}`;
  if (n.exclusiveMinimum !== undefined) return ` above ${n.exclusiveMinimum}`;
  if (n.maximum !== undefined) return ` at most ${n.maximum}`;
  return '';
}

/** A setting's type as a reader wants it: "integer 1 to 256", "URL", "`3.4` \| `3.5`", "list of string", "secret". */
export function typeOf(n: Schema): string {
  let t: string;
  if (n.const !== undefined) t = code(String(n.const));
  else if (n.enum !== undefined) t = n.enum.map((v) => code(String(v))).join(' or ');
  else if (Array.isArray(n.type)) t = n.type.join(' or ');
  else if (n.type === 'string' && n.pattern !== undefined && /https\?:/.test(n.pattern)) t = 'URL (http or https)';
  else if (n.type === 'string' && n.pattern === '^\\d+(\\.\\d+){0,2}$') t = 'version (`1`, `1.2` or `1.2.3`)';
  else if (n.type === 'integer' || n.type === 'number') t = `${n.type}${range(n)}`;
  else if (n.type === 'array') t = `list of ${n.items !== undefined ? typeOf(n.items) : 'values'}`;
  else if (n.type === 'object' && typeof n.additionalProperties === 'object' && n.properties === undefined) t = `map of name to ${typeOf(n.additionalProperties)}`;
  else t = n.type ?? 'any';
  return n['x-secret'] === true ? `${t}, secret` : t;
}

function defaultText(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return code(value);
  if (typeof value === 'number' && value >= 1024 * 1024 && value % (1024 * 1024) === 0) return `${code(String(value))} (${value / (1024 * 1024)} MiB)`;
  if (typeof value === 'number' && value >= 1024 && value % 1024 === 0) return `${code(String(value))} (${value / 1024} KiB)`;
  if (Array.isArray(value)) return value.length === 0 ? code('[]') : code(`[${value.join(', ')}]`);
  return code(JSON.stringify(value));
}

interface Row {
  setting: string;
  type: string;
  default: string;
  flag: string;
  description: string;
}

/** The rows of an object's settings, nested objects with fixed properties flattened (run.alsoValidateAgainst.ledger). */
function rows(root: Schema, node: Schema, prefix: string, defaults: Record<string, unknown>, flagOf: (key: string) => string): Row[] {
  const out: Row[] = [];
  for (const [key, raw] of Object.entries(node.properties ?? {})) {
    const n = resolve(root, raw);
    const path = `${prefix}.${key}`;
    const children = Object.entries(n.properties ?? {});
    // an object whose properties are alike and undescribed (one per interface) reads better as one row
    const plain = children.length > 0 && children.every(([, c]) => c.description === undefined && typeOf(c) === typeOf(children[0]![1]));
    const type = n.type !== 'object' || children.length === 0 ? typeOf(n) : plain ? `object: ${children.map(([k]) => code(k)).join(', ')}, each a ${typeOf(children[0]![1])}` : 'object';
    // a description beside a $ref (what this use of a shared definition is for) comes first
    out.push({ setting: path, type, default: defaultText(n.default ?? defaults[key]), flag: flagOf(key), description: raw.description ?? n.description ?? '' });
    if (n.type === 'object' && children.length > 0 && !plain) out.push(...rows(root, n, path, {}, () => ''));
  }
  return out;
}

function table(list: Row[], withFlag: boolean): string {
  const head = withFlag ? '| setting | type | default | flag | description |\n|---|---|---|---|---|\n' : '| setting | type | default | description |\n|---|---|---|---|\n';
  return (
    head +
    list
      .map((r) => (withFlag ? [code(r.setting), cell(r.type), cell(r.default), cell(r.flag), prose(r.description)] : [code(r.setting), cell(r.type), cell(r.default), prose(r.description)]))
      .map((cells) => `| ${cells.join(' | ')} |`)
      .join('\n') +
    '\n'
  );
}

/** The long flag of a command whose value lands in the setting `key` (commander's attribute name), or ''. */
function flagFinder(cmd: Command | undefined, aliases: Record<string, string> = {}): (key: string) => string {
  return (key) => {
    const attr = aliases[key] ?? key;
    const opt = cmd?.options.find((o) => o.attributeName() === attr && o.long !== undefined);
    return opt?.long !== undefined ? code(opt.long) : '';
  };
}

/** The setting an environment variable sets, by the flag it stands for. */
function settingOfFlag(flag: string, run: Command | undefined, runSettings: Set<string>): string {
  if (flag === '--config') return 'the configuration file to read';
  const url = /^--(ledger|scan|validator|registry)-url$/.exec(flag);
  if (url !== null) return code(`targets.${url[1]}.url`);
  const attr = run?.options.find((o) => o.long === flag)?.attributeName();
  return attr !== undefined && runSettings.has(attr) ? code(`run.${attr}`) : '';
}

/**
 * The other environment variables the shipped code reads, each listed only where the code names it (so the page never
 * documents one the code has stopped reading).
 */
const OTHER_ENV: Array<{ names: string[]; row: string }> = [
  { names: ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY'], row: '| `HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY` (or lower case) | the HTTP proxy of an address whose `proxy` setting is unset: HTTPS_PROXY for https addresses, HTTP_PROXY for http ones, none for the hosts NO_PROXY lists and for loopback |' },
  { names: ['CC_DEBUG'], row: '| `CC_DEBUG=timing` | a line on stderr at each step of a run, in milliseconds since the process started |' },
  { names: ['in-flight(,|$)'], row: "| `CC_DEBUG=in-flight` | a line on stderr at each change of the run's limit of requests in flight, with the answer that made it |" },
  { names: ['CC_NO_BUNDLE'], row: "| `CC_NO_BUNDLE=1` | load the CLI's TypeScript through tsx instead of the esbuild bundle built at install |" },
  { names: ['TMPDIR'], row: '| `TMPDIR` | where the embedded reference writes its DAR files; a missing or read-only one is exit 2 |' },
];

function shippedCode(): string {
  const parts: string[] = [];
  for (const dir of ['harness', 'bin', 'reference']) {
    for (const f of readdirSync(join(PACKAGE_ROOT, dir), { recursive: true }).map(String)) {
      if (/\.(ts|mts|mjs|js)$/.test(f)) parts.push(readFileSync(join(PACKAGE_ROOT, dir, f), 'utf8'));
    }
  }
  return parts.join('\n');
}

function otherEnv(): string {
  const code = shippedCode();
  return OTHER_ENV.filter((e) => e.names.some((n) => code.includes(n))).map((e) => e.row).join('\n');
}

export async function renderConfigurationDocs(): Promise<string> {
  const schema = JSON.parse(readFileSync(join(PACKAGE_ROOT, SCHEMA_FILE), 'utf8')) as Schema;
  const { commandLine } = await import('../harness/cli.js');
  const { program } = await commandLine({ out: () => undefined, err: () => undefined });
  const run = program.commands.find((c) => c.name() === 'run');
  const runSchema = schema.properties?.run ?? {};
  const runSettings = new Set(Object.keys(runSchema.properties ?? {}));
  const target = resolve(schema, { $ref: '#/$defs/target' });
  const auth = resolve(schema, { $ref: '#/$defs/auth' });

  const envRows = Object.entries(ENV_VARS)
    .map(([name, flag]) => `| ${code(name)} | ${code(flag)} | ${cell(settingOfFlag(flag, run, runSettings))} |`)
    .join('\n');

  const targetRows = rows(schema, target, 'targets.<api>', {}, () => '').filter((r) => !r.setting.endsWith('.auth'));
  const authKinds = (auth.oneOf ?? []).map((b) => {
    const kind = String(b.properties?.kind?.const);
    const settings = Object.entries(b.properties ?? {}).filter(([k]) => k !== 'kind');
    const list = settings.flatMap(([k, raw]) => {
      const n = resolve(schema, raw);
      const own: Row = { setting: `auth.${k}`, type: typeOf(n), default: defaultText(n.default), flag: '', description: `${(b.required ?? []).includes(k) ? 'required. ' : ''}${raw.description ?? n.description ?? ''}` };
      const value = typeof n.additionalProperties === 'object' ? n.additionalProperties : undefined;
      const nested = value?.properties !== undefined ? rows(schema, value, `auth.${k}.<role>`, {}, () => '') : n.properties !== undefined ? rows(schema, n, `auth.${k}`, {}, () => '') : [];
      if (value?.properties !== undefined) own.type = 'map of role to object';
      else if (n.properties !== undefined) own.type = 'object';
      return [own, ...nested];
    });
    return { kind, description: b.properties?.kind?.description ?? '', list };
  });

  const reference = schema.properties?.reference ?? {};
  const refFlags = flagFinder(run, { faults: 'fault', variant: 'referenceVariant' });
  const serve = program.commands.find((c) => c.name() === 'serve');
  const serveFlags = flagFinder(serve, { faults: 'fault', variant: 'referenceVariant' });
  const referenceRows = rows(schema, reference, 'reference', {}, (k) => refFlags(k) || (serveFlags(k) !== '' ? `${serveFlags(k)} (serve)` : ''));

  const runRows = rows(schema, runSchema, 'run', DEFAULT_RUN as unknown as Record<string, unknown>, flagFinder(run));

  return `# Configuration

<!-- generated by \`npm run docs:config\` (scripts/gen-config-docs.ts) from harness/config.schema.json and harness/config.ts: do not edit by hand -->

Settings come from three places, each overriding the one before: a configuration file (\`--config FILE\` or
\`CONFORMANCE_CONFIG\`), environment variables, then command-line flags. The file is YAML or JSON and is validated
against [\`harness/config.schema.json\`](../harness/config.schema.json): an unknown or invalid setting is named and the
CLI exits 2. [\`conformance.config.example.yaml\`](../conformance.config.example.yaml) shows every setting in use, and
[targets.md](targets.md) what a real participant or Splice node needs.

With no target URL configured at all, the suite runs against its embedded reference server (the \`reference\` section).

**Secrets.** Any string in the file may say \`\${NAME}\` to read the environment variable NAME; every value so read is
a secret (redacted in every report, log and console line), except in \`version\` and the \`run\` and \`reference\`
sections; in a \`url\`, \`tokenUrl\` or \`run.alsoValidateAgainst\` URL only what lands in its query or userinfo is.
Settings of type *secret* below are secrets however they are written. Credentials inside a URL
(\`http://user:password@host\`) are printed as \`http://<redacted>@host\` and not sent as Basic authentication.

## Environment variables

| variable | same as | sets |
|---|---|---|
${envRows}

An empty variable counts as unset. Besides these, the suite reads:

| variable | effect |
|---|---|
${otherEnv()}

## \`run\`: how the run goes

${table(runRows, true)}
## \`targets.<api>\`: the interfaces to check

\`<api>\` is \`${APIS.join('`, `')}\`. Leave an interface out to skip it.

${table(targetRows, false)}
### \`targets.<api>.auth\`

\`auth.kind\` chooses how requests are authenticated. Roles: the ledger uses \`admin\` (a user with ParticipantAdmin);
the validator uses \`user\` (the user whose ANS entries are listed) and optionally \`secondUser\`.

${authKinds.map((k) => `#### \`kind: ${k.kind}\`\n\n${sentence(k.description)}\n${k.list.length > 0 ? `\n${table(k.list, false)}` : ''}`).join('\n')}
## \`reference\`: the embedded reference server

${sentence(reference.description ?? '')}

${table(referenceRows, true)}`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = join(PACKAGE_ROOT, CONFIG_DOCS);
  const text = await renderConfigurationDocs();
  let current: string | undefined;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    current = undefined;
  }
  if (process.argv.includes('--check')) {
    process.stdout.write(current === text ? `${CONFIG_DOCS} is current\n` : `${CONFIG_DOCS} is out of date: run npm run docs:config\n`);
    process.exitCode = current === text ? 0 : 1;
  } else {
    writeFileSync(file, text);
    process.stdout.write(`${CONFIG_DOCS} written\n`);
  }
}
