/**
 * The mutator of `npm run mutation`: finds the mutation points of a handler file with the TypeScript compiler API and
 * writes the file back as a mutant schema (every mutant compiled in, one switched on at run time by CC_MUTANT), as
 * Stryker does, so the project is built once for all of them.
 *
 * Mutation points leave out the code that plants faults: a file named *fault*.ts is never mutated, nor an operator one
 * of whose operands asks for a fault (`ctx.faults.has(X)`, `f(F.x)` where `f` is a fault helper, `this.fault(...)`,
 * `faults.empty`), nor anything inside a branch a fault check guards, nor the arguments of a call to a fault function
 * (`installValidatorHttpFaults(app, ctx.faults)`, `registerFaults({...})`).
 */
import { createHash } from 'node:crypto';
import ts from 'typescript';

export type Operator =
  | 'equality' // === <-> !==, == <-> !=
  | 'boundary' // < <-> <=, > <-> >=
  | 'logical' // && <-> ||
  | 'boolean' // true <-> false
  | 'filter-removed' // xs.filter(f) -> xs
  | 'order-removed' // xs.sort(f), xs.reverse(), toSorted, toReversed -> xs
  | 'slice-removed' // xs.slice(a, b) -> xs
  | 'slice-bound' // xs.slice(a) -> xs.slice(a + 1), xs.slice(a, b) -> xs.slice(a, b - 1) (expressions; literals are 'number')
  | 'array-emptied' // [a, b] -> []
  | 'list-emptied' // an array-typed returned value or property value -> []
  | 'number' // n -> n + 1, n -> n - 1
  | 'length' // xs.length -> xs.length + 1, xs.length - 1
  | 'condition'; // if (c) / c ? a : b -> true, false

export const OPERATORS: readonly Operator[] = ['equality', 'boundary', 'logical', 'boolean', 'filter-removed', 'order-removed', 'slice-removed', 'slice-bound', 'array-emptied', 'list-emptied', 'number', 'length', 'condition'];

export interface Mutant {
  /** 1-based, unique over one mutation run */
  id: number;
  /** the file, relative to the project root, with forward slashes */
  file: string;
  line: number;
  column: number;
  operator: Operator;
  original: string;
  mutated: string;
  /** stable over edits elsewhere in the file: file, enclosing function, operator, a hash of the texts, occurrence */
  key: string;
  /** the replaced range of the file's text */
  start: number;
  end: number;
  /** written before the schema's choice: `name: ` where the range is a shorthand property `{ name }` */
  prefix?: string;
}

/** A file's text parsed, with a type checker when one is at hand (for 'list-emptied'). */
export interface SourceInput {
  file: string;
  text: string;
  sourceFile?: ts.SourceFile;
  checker?: ts.TypeChecker;
}

const FAULT_NAME = /fault/i;

/** true for the files that plant faults, which are never mutated */
export const isFaultFile = (file: string): boolean => FAULT_NAME.test(file.split('/').pop() ?? '');

const strip = (e: ts.Expression): ts.Expression => {
  let x = e;
  while (ts.isParenthesizedExpression(x) || ts.isNonNullExpression(x) || ts.isAsExpression(x) || ts.isSatisfiesExpression(x)) x = x.expression;
  return x;
};

/** The names that stand for fault state in a file: fault imports, names saying "fault", helpers and flags built from them. */
function faultNames(sf: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier) || !FAULT_NAME.test(st.moduleSpecifier.text)) continue;
    const c = st.importClause;
    if (c === undefined) continue;
    if (c.name !== undefined) names.add(c.name.text);
    const b = c.namedBindings;
    if (b !== undefined && ts.isNamespaceImport(b)) names.add(b.name.text);
    if (b !== undefined && ts.isNamedImports(b)) for (const e of b.elements) names.add(e.name.text);
  }
  // helpers (`const f = (n) => faults?.has(n) === true`) and flags (`const empty = ctx.faults.has(X)`), to a fixpoint
  const decls: (ts.VariableDeclaration | ts.PropertyAssignment)[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer !== undefined) decls.push(n);
    // options built from fault checks (`{ unverified: ctx.faults.has(EF.unverified) }`): `o.unverified` is a fault check
    if (ts.isPropertyAssignment(n) && ts.isIdentifier(n.name)) decls.push(n);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  for (let changed = true; changed; ) {
    changed = false;
    for (const d of decls) {
      const name = (d.name as ts.Identifier).text;
      if (names.has(name)) continue;
      const init = strip(d.initializer!);
      const fn = ts.isArrowFunction(init) || ts.isFunctionExpression(init);
      const flag = ts.isVariableDeclaration(d) ? isFaultCheck(init, names) : isPureFaultCheck(init, names);
      if ((fn && mentionsFault(init, names) && ts.isVariableDeclaration(d)) || (!fn && flag)) {
        names.add(name);
        changed = true;
      }
    }
  }
  return names;
}

const isFaultName = (n: ts.Node, names: Set<string>): boolean =>
  (ts.isIdentifier(n) || ts.isPrivateIdentifier(n)) && (FAULT_NAME.test(n.text) || names.has(n.text));

/** Whether any name in the subtree stands for fault state. */
function mentionsFault(node: ts.Node, names: Set<string>): boolean {
  if (isFaultName(node, names)) return true;
  return ts.forEachChild(node, (c) => (mentionsFault(c, names) ? true : undefined)) === true;
}

/** The expression's value is a fault's: a call of a fault function, a fault flag, a property of the fault state. */
function isFaultCheck(e: ts.Expression, names: Set<string>): boolean {
  const x = strip(e);
  if (ts.isPrefixUnaryExpression(x) && x.operator === ts.SyntaxKind.ExclamationToken) return isFaultCheck(x.operand, names);
  if (ts.isBinaryExpression(x)) {
    const k = x.operatorToken.kind;
    if (k === ts.SyntaxKind.AmpersandAmpersandToken || k === ts.SyntaxKind.BarBarToken || k === ts.SyntaxKind.QuestionQuestionToken) return isFaultCheck(x.left, names) || isFaultCheck(x.right, names);
    if (k === ts.SyntaxKind.EqualsEqualsEqualsToken || k === ts.SyntaxKind.ExclamationEqualsEqualsToken) return isFaultCheck(x.left, names) || isFaultCheck(x.right, names);
    return false;
  }
  if (ts.isCallExpression(x)) return mentionsFault(x.expression, names);
  if (ts.isPropertyAccessExpression(x) || ts.isElementAccessExpression(x)) return mentionsFault(x, names);
  if (ts.isIdentifier(x)) return names.has(x.text) || FAULT_NAME.test(x.text);
  return false;
}

/** A fault check alone (a call of a fault function, possibly negated), not combined with other conditions. */
function isPureFaultCheck(e: ts.Expression, names: Set<string>): boolean {
  const x = strip(e);
  if (ts.isPrefixUnaryExpression(x) && x.operator === ts.SyntaxKind.ExclamationToken) return isPureFaultCheck(x.operand, names);
  return ts.isCallExpression(x) && mentionsFault(x.expression, names);
}

/** Whether a fault check decides anything in the subtree (not merely the fault state passed on as an argument). */
function containsFaultCheck(node: ts.Node, names: Set<string>): boolean {
  if (ts.isCallExpression(node) && mentionsFault(node.expression, names)) return true;
  if ((ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) && mentionsFault(node, names) && !(ts.isCallExpression(node.parent) && node.parent.arguments.includes(node as ts.Expression))) return true;
  if (ts.isIdentifier(node) && names.has(node.text) && !FAULT_NAME.test(node.text) && !(ts.isCallExpression(node.parent) && node.parent.arguments.includes(node)) && !ts.isVariableDeclaration(node.parent) && !ts.isImportSpecifier(node.parent)) return true;
  return ts.forEachChild(node, (c) => (containsFaultCheck(c, names) ? true : undefined)) === true;
}

/** The conjuncts of `a && b && c` (or the disjuncts of ||). */
function flatten(e: ts.Expression, op: ts.SyntaxKind): ts.Expression[] {
  const x = strip(e);
  return ts.isBinaryExpression(x) && x.operatorToken.kind === op ? [...flatten(x.left, op), ...flatten(x.right, op)] : [x];
}
const negated = (e: ts.Expression): boolean => {
  const x = strip(e);
  return ts.isPrefixUnaryExpression(x) && x.operator === ts.SyntaxKind.ExclamationToken;
};
/** the branch taken when `c` is true is a fault's: a conjunct of c is a fault check (not negated) */
const guardsWhenTrue = (c: ts.Expression, names: Set<string>) => flatten(c, ts.SyntaxKind.AmpersandAmpersandToken).some((x) => !negated(x) && isFaultCheck(x, names));
/** the branch taken when `c` is false is a fault's: c is `!fault`, or a disjunct of c is */
const guardsWhenFalse = (c: ts.Expression, names: Set<string>) => flatten(c, ts.SyntaxKind.BarBarToken).some((x) => negated(x) && isFaultCheck((strip(x) as ts.PrefixUnaryExpression).operand, names));

/** A name for the function around `node`, stable over edits elsewhere: `validatorRoutes > get /v0/entry/all`. */
function enclosingName(node: ts.Node): string {
  const parts: string[] = [];
  for (let n: ts.Node | undefined = node.parent; n !== undefined; n = n.parent) {
    if (!ts.isFunctionLike(n)) continue;
    const p = n.parent;
    let name: string | undefined;
    if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isFunctionExpression(n)) && n.name !== undefined) name = n.name.getText();
    else if (p !== undefined && ts.isVariableDeclaration(p)) name = p.name.getText();
    else if (p !== undefined && ts.isPropertyAssignment(p)) name = p.name.getText();
    else if (p !== undefined && ts.isCallExpression(p)) {
      const callee = ts.isPropertyAccessExpression(p.expression) ? p.expression.name.text : p.expression.getText().slice(0, 40);
      const first = p.arguments[0];
      name = first !== undefined && ts.isStringLiteralLike(first) ? `${callee} ${first.text}` : `${callee}()`;
    }
    parts.unshift(name ?? 'fn');
  }
  return parts.join(' > ') || '(module)';
}

interface Point {
  node: ts.Node;
  operator: Operator;
  mutated: string;
}

const isArrayish = (checker: ts.TypeChecker, t: ts.Type): boolean => {
  const tt = checker.getNonNullableType(t);
  if (tt.isUnion()) return tt.types.length > 0 && tt.types.every((u) => isArrayish(checker, u));
  const c = checker as ts.TypeChecker & { isArrayType?: (t: ts.Type) => boolean; isTupleType?: (t: ts.Type) => boolean };
  if (c.isArrayType !== undefined) return c.isArrayType(tt) || (c.isTupleType?.(tt) ?? false);
  return /\[\]$/.test(checker.typeToString(tt));
};

/** An optional chain's inner link (`a?.b` in `a?.b.c`): it cannot be parenthesized without changing the chain. */
const chainLink = (n: ts.Node): boolean =>
  (n.flags & ts.NodeFlags.OptionalChain) !== 0 && (n.parent.flags & ts.NodeFlags.OptionalChain) !== 0 && (n.parent as { expression?: ts.Node }).expression === n;

const inType = (n: ts.Node): boolean => {
  for (let p: ts.Node | undefined = n.parent; p !== undefined; p = p.parent) {
    if (ts.isTypeNode(p) && !ts.isExpressionWithTypeArguments(p)) return true;
    if (ts.isBlock(p) || ts.isSourceFile(p)) return false;
  }
  return false;
};

const isAssignTarget = (n: ts.Node): boolean => {
  const p = n.parent;
  if (ts.isBinaryExpression(p) && p.left === n && p.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && p.operatorToken.kind <= ts.SyntaxKind.LastAssignment) return true;
  if ((ts.isPrefixUnaryExpression(p) || ts.isPostfixUnaryExpression(p)) && (p.operator === ts.SyntaxKind.PlusPlusToken || p.operator === ts.SyntaxKind.MinusMinusToken)) return true;
  return ts.isDeleteExpression(p);
};

/** Every mutation point of one file (ids left 0: the caller numbers them over the whole run). */
export function findMutants(input: SourceInput, operators: readonly Operator[] = OPERATORS): Mutant[] {
  if (isFaultFile(input.file)) return [];
  const sf = input.sourceFile ?? ts.createSourceFile(input.file, input.text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const text = sf.getFullText();
  const names = faultNames(sf);
  const want = new Set(operators);
  const points: Point[] = [];
  const add = (node: ts.Node, operator: Operator, mutated: string) => {
    if (want.has(operator) && !chainLink(node) && !inType(node)) points.push({ node, operator, mutated });
  };
  const src = (n: ts.Node) => n.getText(sf);
  /** the text of `n` with the operator token between left and right replaced */
  const withOperator = (b: ts.BinaryExpression, op: string) => text.slice(b.getStart(sf), b.operatorToken.getStart(sf)) + op + text.slice(b.operatorToken.getEnd(), b.getEnd());

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isInterfaceDeclaration(node) || ts.isEnumDeclaration(node) || ts.isModuleDeclaration(node) || ts.isDecorator(node)) return;
    if (ts.isTypeNode(node) && !ts.isExpressionWithTypeArguments(node)) return;
    // a call of a fault function: its arguments plant faults
    if (ts.isCallExpression(node) && mentionsFault(node.expression, names)) return;
    // branches a fault check guards
    if (ts.isIfStatement(node)) {
      const byTrue = guardsWhenTrue(node.expression, names);
      const byFalse = guardsWhenFalse(node.expression, names);
      if (!containsFaultCheck(node.expression, names)) add(node.expression, 'condition', 'true'), add(node.expression, 'condition', 'false');
      visit(node.expression);
      if (!byTrue) visit(node.thenStatement);
      if (node.elseStatement !== undefined && !byFalse) visit(node.elseStatement);
      return;
    }
    if (ts.isConditionalExpression(node)) {
      const byTrue = guardsWhenTrue(node.condition, names);
      const byFalse = guardsWhenFalse(node.condition, names);
      if (!containsFaultCheck(node.condition, names)) add(node.condition, 'condition', 'true'), add(node.condition, 'condition', 'false');
      visit(node.condition);
      if (!byTrue) visit(node.whenTrue);
      if (!byFalse) visit(node.whenFalse);
      return;
    }
    if (ts.isBinaryExpression(node)) {
      const k = node.operatorToken.kind;
      const faulty = isFaultCheck(node.left, names) || isFaultCheck(node.right, names) || containsFaultCheck(node.left, names) || containsFaultCheck(node.right, names);
      const flip: Partial<Record<ts.SyntaxKind, [string, Operator]>> = {
        [ts.SyntaxKind.EqualsEqualsEqualsToken]: ['!==', 'equality'],
        [ts.SyntaxKind.ExclamationEqualsEqualsToken]: ['===', 'equality'],
        [ts.SyntaxKind.EqualsEqualsToken]: ['!=', 'equality'],
        [ts.SyntaxKind.ExclamationEqualsToken]: ['==', 'equality'],
        [ts.SyntaxKind.LessThanToken]: ['<=', 'boundary'],
        [ts.SyntaxKind.LessThanEqualsToken]: ['<', 'boundary'],
        [ts.SyntaxKind.GreaterThanToken]: ['>=', 'boundary'],
        [ts.SyntaxKind.GreaterThanEqualsToken]: ['>', 'boundary'],
        [ts.SyntaxKind.AmpersandAmpersandToken]: ['||', 'logical'],
        [ts.SyntaxKind.BarBarToken]: ['&&', 'logical'],
      };
      const f = flip[k];
      if (f !== undefined && !faulty) add(node, f[1], withOperator(node, f[0]));
      // && / || with a fault check: the operator stays. The other operands matter with the fault off only where the
      // fault check does not decide alone then: `a && !fault(x)`, `fault(x) || a` (mutated); `a && fault(x)`,
      // `!fault(x) || a` (not: with the fault off the answer is the same whatever a is)
      if ((k === ts.SyntaxKind.AmpersandAmpersandToken || k === ts.SyntaxKind.BarBarToken) && faulty) {
        const and = k === ts.SyntaxKind.AmpersandAmpersandToken;
        const parts = flatten(node, k);
        const decidesAlone = parts.some((x) => isFaultCheck(x, names) && (and ? !negated(x) : negated(x)));
        if (!decidesAlone) for (const x of parts) if (!isFaultCheck(x, names) && !containsFaultCheck(x, names)) visit(x);
        return;
      }
    }
    if (node.kind === ts.SyntaxKind.TrueKeyword || node.kind === ts.SyntaxKind.FalseKeyword) {
      add(node, 'boolean', node.kind === ts.SyntaxKind.TrueKeyword ? 'false' : 'true');
    }
    if (ts.isNumericLiteral(node) && boundaryNumber(node)) {
      const v = Number(node.text);
      if (Number.isFinite(v) && Number.isSafeInteger(v)) {
        add(node, 'number', String(v + 1));
        if (v > 0) add(node, 'number', String(v - 1));
      }
    }
    if (ts.isPropertyAccessExpression(node) && node.name.text === 'length' && !isAssignTarget(node) && !(ts.isCallExpression(node.parent) && node.parent.expression === node)) {
      add(node, 'length', `${src(node)} + 1`);
      add(node, 'length', `${src(node)} - 1`);
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const m = node.expression.name.text;
      const receiver = src(node.expression.expression);
      if (m === 'filter') add(node, 'filter-removed', receiver);
      if (m === 'sort' || m === 'reverse' || m === 'toSorted' || m === 'toReversed') add(node, 'order-removed', receiver);
      if (m === 'slice' && node.arguments.length > 0) {
        add(node, 'slice-removed', receiver);
        node.arguments.forEach((a, i) => {
          if (ts.isNumericLiteral(a) || ts.isSpreadElement(a)) return;
          const shifted = i === 0 ? `(${src(a)}) + 1` : `(${src(a)}) - 1`;
          add(a, 'slice-bound', shifted);
        });
      }
    }
    if (ts.isArrayLiteralExpression(node) && node.elements.length > 0 && !isDestructuring(node) && !node.elements.some((e) => containsFaultCheck(e, names))) {
      add(node, 'array-emptied', '[]');
    }
    if (input.checker !== undefined && ts.isExpression(node) && !ts.isArrayLiteralExpression(strip(node)) && listPosition(node) && !containsFaultCheck(node, names)) {
      let arrayish = false;
      try {
        arrayish = isArrayish(input.checker, input.checker.getTypeAtLocation(node));
      } catch {
        arrayish = false;
      }
      if (arrayish) add(node, 'list-emptied', '[]');
    }
    // `{ entries }`: replaced as `entries: (...)`
    if (input.checker !== undefined && ts.isShorthandPropertyAssignment(node) && node.objectAssignmentInitializer === undefined) {
      let arrayish = false;
      try {
        arrayish = isArrayish(input.checker, input.checker.getTypeAtLocation(node.name));
      } catch {
        arrayish = false;
      }
      if (arrayish) add(node.name, 'list-emptied', '[]');
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);

  // `[a, b] as const`: the assertion needs a literal, so the whole assertion is replaced
  const range = (n: ts.Node): [number, number] => {
    const p = n.parent;
    if (p !== undefined && (ts.isAsExpression(p) || ts.isSatisfiesExpression(p)) && p.expression === n) return [p.getStart(sf), p.getEnd()];
    return [n.getStart(sf), n.getEnd()];
  };
  const seen = new Map<string, number>();
  const out: Mutant[] = [];
  for (const p of points) {
    const [start, end] = range(p.node);
    const original = text.slice(start, end);
    if (original === p.mutated) continue;
    const fn = enclosingName(p.node);
    const hash = createHash('sha256').update(`${original}\0${p.mutated}`).digest('hex').slice(0, 10);
    const base = `${input.file}#${fn}#${p.operator}#${hash}`;
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    const { line, character } = sf.getLineAndCharacterOfPosition(p.node.getStart(sf));
    const shorthand = ts.isShorthandPropertyAssignment(p.node.parent) && p.node.parent.name === p.node;
    out.push({ id: 0, file: input.file, line: line + 1, column: character + 1, operator: p.operator, original, mutated: p.mutated, key: `${base}#${n}`, start, end, ...(shorthand ? { prefix: `${original}: ` } : {}) });
  }
  return out;
}

/**
 * A numeric literal that draws a boundary: an operand of a comparison or of + / -, a bound of slice/substring/at, an
 * index, a limit (a constant in capitals, a property or parameter named min/max/limit/size/length/page). Status codes
 * and seeded amounts are left alone: changing them is not an off-by-one, and there are hundreds.
 */
function boundaryNumber(n: ts.NumericLiteral): boolean {
  let e: ts.Node = n;
  while (ts.isPrefixUnaryExpression(e.parent) || ts.isParenthesizedExpression(e.parent)) e = e.parent;
  const p = e.parent;
  if (ts.isBinaryExpression(p)) {
    const k = p.operatorToken.kind;
    return k === ts.SyntaxKind.LessThanToken || k === ts.SyntaxKind.LessThanEqualsToken || k === ts.SyntaxKind.GreaterThanToken || k === ts.SyntaxKind.GreaterThanEqualsToken
      || k === ts.SyntaxKind.PlusToken || k === ts.SyntaxKind.MinusToken || k === ts.SyntaxKind.EqualsEqualsEqualsToken || k === ts.SyntaxKind.ExclamationEqualsEqualsToken;
  }
  if (ts.isElementAccessExpression(p) && p.argumentExpression === e) return true;
  if (ts.isCallExpression(p) && ts.isPropertyAccessExpression(p.expression) && /^(slice|substring|at|splice)$/.test(p.expression.name.text)) return true;
  const LIMIT = /min|max|limit|size|length|page/i;
  if (ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) return /^[A-Z][A-Z0-9_]+$/.test(p.name.text) || LIMIT.test(p.name.text);
  if (ts.isPropertyAssignment(p) && p.initializer === e) return LIMIT.test(p.name.getText());
  if (ts.isParameter(p) && ts.isIdentifier(p.name)) return LIMIT.test(p.name.text);
  return false;
}

function isDestructuring(n: ts.ArrayLiteralExpression): boolean {
  const p = n.parent;
  if (ts.isBinaryExpression(p) && p.left === n && p.operatorToken.kind === ts.SyntaxKind.EqualsToken) return true;
  if (ts.isForOfStatement(p) || ts.isForInStatement(p)) return p.initializer === n;
  return ts.isArrayLiteralExpression(p) && isDestructuring(p);
}

/** where a list is handed out: a returned value, an arrow's value, a property's value */
function listPosition(n: ts.Node): boolean {
  const p = n.parent;
  if (ts.isReturnStatement(p) && p.expression === n) return true;
  if (ts.isArrowFunction(p) && p.body === n) return true;
  return ts.isPropertyAssignment(p) && p.initializer === n;
}

/** Whether a file has a mutant schema's prelude (its mutants switch on CC_MUTANT). */
export const SCHEMA_MARK = '/* canton-conformance mutant schema */';

/**
 * The file's text with every mutant compiled in: each replaced range becomes
 * `(__ccMutant(7) ? (MUTATED) : __ccMutant(8) ? (MUTATED) : (ORIGINAL))`, nested where ranges nest. __ccMutant(id)
 * is true for the mutant CC_MUTANT names; with CC_MUTANT_COVERAGE set to a file, each id reached is appended to it.
 */
export function schemataSource(text: string, mutants: readonly Mutant[]): string {
  if (mutants.length === 0) return text;
  interface Range {
    start: number;
    end: number;
    mutants: Mutant[];
    children: Range[];
  }
  const byRange = new Map<string, Range>();
  for (const m of mutants) {
    const k = `${m.start}:${m.end}`;
    const r = byRange.get(k) ?? { start: m.start, end: m.end, mutants: [], children: [] };
    r.mutants.push(m);
    byRange.set(k, r);
  }
  const ranges = [...byRange.values()].sort((a, b) => a.start - b.start || b.end - a.end);
  const root: Range = { start: 0, end: text.length, mutants: [], children: [] };
  const stack: Range[] = [root];
  for (const r of ranges) {
    while (stack.length > 1 && r.start >= stack[stack.length - 1]!.end) stack.pop();
    const top = stack[stack.length - 1]!;
    if (r.end > top.end) throw new Error(`mutation ranges overlap at ${r.start}-${r.end}`);
    top.children.push(r);
    stack.push(r);
  }
  const emit = (r: Range): string => {
    let s = '';
    let pos = r.start;
    for (const c of r.children) {
      s += text.slice(pos, c.start) + emit(c);
      pos = c.end;
    }
    s += text.slice(pos, r.end);
    if (r.mutants.length === 0) return s;
    return `${r.mutants[0]!.prefix ?? ''}(${r.mutants.map((m) => `__ccMutant(${m.id}) ? (${m.mutated}) : `).join('')}(${s}))`;
  };
  const body = emit(root);
  // function declarations are hoisted: a module evaluated early through an import cycle still finds __ccMutant
  const prelude =
    `${SCHEMA_MARK} import { appendFileSync as __ccAppend } from 'node:fs'; ` +
    `var __ccActive: number | undefined, __ccCoverage: string | undefined, __ccSeen: Set<number> | undefined; ` +
    `function __ccMutant(id: number): boolean { ` +
    `if (__ccActive === undefined) { __ccActive = Number(process.env.CC_MUTANT ?? '0'); __ccCoverage = process.env.CC_MUTANT_COVERAGE || undefined; __ccSeen = new Set(); } ` +
    `if (__ccCoverage !== undefined && !__ccSeen!.has(id)) { __ccSeen!.add(id); try { __ccAppend(__ccCoverage, id + '\\n'); } catch {} } ` +
    `return id === __ccActive; }\n`;
  // after a shebang or a leading comment block it would still be valid: imports may come anywhere at the top level
  return prelude + body;
}
