/**
 * Whether an official client can read an answer: the answer is checked, at run time, against the TypeScript type the
 * client itself declares for it (the type its method returns, read from the client's published declaration files
 * through the TypeScript compiler), not against any type this project wrote.
 *
 * The official clients do not validate what they receive (openapi-fetch hands over the parsed JSON), so a wrong shape
 * surfaces later, in the application that uses the client. This check finds it at the call: a required field missing,
 * a value of the wrong JSON type, a string outside the enum the client declares, a union none of whose members fits.
 *
 * Two readings follow FACTS.md rather than the generated types, because real servers answer so and the clients cope:
 * an optional field may be JSON null (real participants and Splice nodes send unset optional fields as null, where the
 * generated types say `?: T`), and extra fields are allowed (no response schema is closed). A free-form object
 * (`Record<string, never>`, the generator's rendering of an object schema without properties) takes any object.
 */
import ts from 'typescript';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
/** the virtual module that names the types; it lives beside this file so that module resolution finds node_modules */
const VIRTUAL = join(HERE, '__client-shapes__.ts');

export interface ClientShapes {
  /** the problems of `value` read as the type named `name` (empty: the client can read it) */
  problems(name: string, value: unknown): string[];
  /** the type as the compiler prints it */
  describe(name: string): string;
}

/**
 * Builds the checker for named types. `header` holds the imports and declarations the type expressions need;
 * `types` maps a name to a type expression (for example `Awaited<ReturnType<typeof ledger.get<'/v2/version'>>>`).
 * Throws when an expression does not compile: a path the client does not know, a method it does not have.
 */
export function clientShapes(header: string, types: Record<string, string>): ClientShapes {
  const names = Object.keys(types);
  const source = `${header}\n${names.map((n, i) => `export type T${i} = ${types[n]};`).join('\n')}\n`;
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    // the clients' declaration files import their own modules without extensions ('./generated-clients/scan'), which
    // NodeNext does not resolve (their types would silently become any): read them as their authors compile them
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
  };
  const host = ts.createCompilerHost(options, true);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, lang, ...rest) => (file === VIRTUAL ? ts.createSourceFile(file, source, lang, true) : getSourceFile(file, lang, ...rest));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (file) => file === VIRTUAL || fileExists(file);
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => (file === VIRTUAL ? source : readFile(file));
  const program = ts.createProgram({ rootNames: [VIRTUAL], options, host });
  const sf = program.getSourceFile(VIRTUAL)!;
  const errors = [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)];
  if (errors.length > 0) {
    throw new Error(`the client types do not compile:\n${errors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n')}\n--- source ---\n${source}`);
  }
  const checker = program.getTypeChecker();
  const byName = new Map<string, ts.Type>();
  for (const st of sf.statements) {
    if (ts.isTypeAliasDeclaration(st) && /^T\d+$/.test(st.name.text)) byName.set(names[Number(st.name.text.slice(1))]!, checker.getTypeAtLocation(st.name));
  }
  // a type the compiler could not resolve reads as any: a check against it would pass whatever came
  const opaque = [...byName].filter(([, t]) => t.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)).map(([n]) => n);
  if (opaque.length > 0) throw new Error(`client types that resolve to any or unknown (nothing could fail against them): ${opaque.join(', ')}`);
  const typeOf = (name: string) => {
    const t = byName.get(name);
    if (t === undefined) throw new Error(`no client type named ${name}`);
    return t;
  };
  return {
    problems: (name, value) => {
      const out: string[] = [];
      check(checker, typeOf(name), value, '$', out, 0);
      // the ledger client's types intersect its 3.4 and 3.5 documents: one fault is found once per side
      return [...new Set(out)];
    },
    describe: (name) => checker.typeToString(typeOf(name), undefined, ts.TypeFormatFlags.NoTruncation),
  };
}

const show = (v: unknown) => {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 80 ? `${s.slice(0, 77)}...` : s;
};

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Appends to `out` why `value` (at `path`) is not of type `t`. */
function check(checker: ts.TypeChecker, t: ts.Type, value: unknown, path: string, out: string[], depth: number): void {
  if (depth > 200) return;
  const f = t.flags;
  if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return;
  if (f & ts.TypeFlags.Never) {
    out.push(`${path}: no value is allowed here, got ${show(value)}`);
    return;
  }
  if (t.isUnion()) {
    let best: string[] | undefined;
    for (const member of t.types) {
      const sub: string[] = [];
      check(checker, member, value, path, sub, depth + 1);
      if (sub.length === 0) return;
      // the closest member: never the undefined or null one for a value that is neither
      const absent = member.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void | ts.TypeFlags.Null);
      if (absent && value !== undefined && value !== null) continue;
      if (best === undefined || sub.length < best.length) best = sub;
    }
    out.push(`${path}: ${show(value)} fits none of ${checker.typeToString(t)}${best !== undefined && best.length > 0 ? ` (closest: ${best[0]})` : ''}`);
    return;
  }
  if (t.isIntersection()) {
    for (const member of t.types) check(checker, member, value, path, out, depth + 1);
    return;
  }
  if (t.isStringLiteral()) {
    if (value !== t.value) out.push(`${path}: expected ${JSON.stringify(t.value)}, got ${show(value)}`);
    return;
  }
  if (t.isNumberLiteral()) {
    if (value !== t.value) out.push(`${path}: expected ${t.value}, got ${show(value)}`);
    return;
  }
  if (f & ts.TypeFlags.BooleanLiteral) {
    const expected = (t as unknown as { intrinsicName: string }).intrinsicName === 'true';
    if (value !== expected) out.push(`${path}: expected ${expected}, got ${show(value)}`);
    return;
  }
  if (f & ts.TypeFlags.StringLike) {
    if (typeof value !== 'string') out.push(`${path}: expected a string, got ${show(value)}`);
    return;
  }
  if (f & ts.TypeFlags.NumberLike) {
    if (typeof value !== 'number') out.push(`${path}: expected a number, got ${show(value)}`);
    return;
  }
  if (f & ts.TypeFlags.BooleanLike) {
    if (typeof value !== 'boolean') out.push(`${path}: expected a boolean, got ${show(value)}`);
    return;
  }
  if (f & ts.TypeFlags.Null) {
    if (value !== null) out.push(`${path}: expected null, got ${show(value)}`);
    return;
  }
  if (f & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)) {
    if (value !== undefined) out.push(`${path}: expected no value, got ${show(value)}`);
    return;
  }
  if (!(f & ts.TypeFlags.Object)) return; // bigint, symbol, type parameters: not JSON; nothing to judge
  if (checker.isTupleType(t)) {
    const elems = checker.getTypeArguments(t as ts.TypeReference);
    if (!Array.isArray(value)) {
      out.push(`${path}: expected a list of ${elems.length}, got ${show(value)}`);
      return;
    }
    if (value.length !== elems.length) out.push(`${path}: expected ${elems.length} elements, got ${value.length}`);
    elems.forEach((e, i) => check(checker, e, value[i], `${path}[${i}]`, out, depth + 1));
    return;
  }
  if (checker.isArrayType(t)) {
    if (!Array.isArray(value)) {
      out.push(`${path}: expected a list, got ${show(value)}`);
      return;
    }
    const elem = checker.getTypeArguments(t as ts.TypeReference)[0]!;
    value.forEach((e, i) => check(checker, elem, e, `${path}[${i}]`, out, depth + 1));
    return;
  }
  if (t.getCallSignatures().length > 0) {
    out.push(`${path}: the client expects a function here`);
    return;
  }
  if (!isPlainObject(value)) {
    out.push(`${path}: expected an object, got ${show(value)}`);
    return;
  }
  const declared = new Set<string>();
  for (const prop of checker.getPropertiesOfType(t)) {
    const name = prop.getName();
    declared.add(name);
    const optional = (prop.flags & ts.SymbolFlags.Optional) !== 0;
    const v = value[name];
    if (v === undefined) {
      if (!optional) out.push(`${path}.${name}: required, missing`);
      continue;
    }
    // FACTS.md: real servers send unset optional fields as JSON null
    if (v === null && optional) continue;
    check(checker, checker.getTypeOfSymbol(prop), v, `${path}.${name}`, out, depth + 1);
  }
  for (const info of checker.getIndexInfosOfType(t)) {
    if (!(info.keyType.flags & ts.TypeFlags.String)) continue;
    // Record<string, never>: the generator's free-form object; Record<string, unknown>: anything
    if (info.type.flags & (ts.TypeFlags.Never | ts.TypeFlags.Any | ts.TypeFlags.Unknown)) continue;
    for (const [k, v] of Object.entries(value)) if (!declared.has(k)) check(checker, info.type, v, `${path}[${JSON.stringify(k)}]`, out, depth + 1);
  }
}
