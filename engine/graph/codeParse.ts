// What the validator knows about an operator's `params.code` before it runs: whether it parses,
// what the sandbox would refuse, which functions it defines, which ports it emits to and whether
// it uses keyed state. One parse (acorn) answers all of these, so they cannot disagree.
//
// The runtime (engine/sandbox/userCode.ts) runs the code as the body of a strict-mode function,
// so it is parsed the same way: acorn's "commonjs" source type makes the top level a function
// scope (`return` and `new.target` allowed, top-level `await` not), and `strict` adds the rules
// of 'use strict'. Positions are in the user's own text: nothing is wrapped around it here.
//
// Pure: this module runs in the browser too, and parsing never evaluates anything (the
// designer's Content-Security-Policy forbids eval, and a parse needs none).
import { type AnyNode, getLineInfo, type Node, type Options, parse } from 'acorn';

/** 1-based line and column in the operator's code (columns count UTF-16 code units). */
export interface CodePosition {
  readonly line: number;
  readonly column: number;
}

export interface CodeFault extends CodePosition {
  /** `syntax`: the code does not parse; `forbidden`: it parses but the sandbox refuses it. */
  readonly kind: 'syntax' | 'forbidden';
  /** The parser's own message, or why the sandbox refuses, without the operator or position. */
  readonly reason: string;
}

export interface EmittedPorts {
  /** The ports named as string literals in `emit(record, "port")` calls, plus "out". */
  readonly ports: ReadonlySet<string>;
  /** True when some emit names its port with an expression, so any port may be used. */
  readonly dynamic: boolean;
}

export interface CodeFacts {
  /** Each thing wrong with the code, in the order of the text. Empty for good code. */
  readonly faults: readonly CodeFault[];
  /** What the code's syntax tree says; undefined when the code does not parse, or is too deep to read. */
  readonly tree?: {
    /** Names the code binds at its top level: declarations, and assignments outside functions. */
    readonly defines: ReadonlySet<string>;
    readonly ports: EmittedPorts;
    /** Calls `.state.value(`, `.state.map(` or `.state.list(`, reads `.timers`, or defines onTimer. */
    readonly usesKeyedState: boolean;
  };
}

const PARSE_OPTIONS: Options = {
  ecmaVersion: 'latest',
  sourceType: 'commonjs',
  strict: true,
  allowHashBang: false,
};

const NO_AUTHORITY = 'no ambient authority: only ctx and standard JavaScript built-ins';

// The sandbox's refusals, worded as engine/sandbox/userCodeError.ts's explainDenial words them
// at run time (codeParse.test.ts holds the two to the same words).
export const DENIALS = {
  require: `code may not use require (${NO_AUTHORITY})`,
  importStatement: `code may not use import (${NO_AUTHORITY})`,
  importText: `code may not use import (${NO_AUTHORITY}); the sandbox refuses the text "import(" even in a string or comment`,
  evalText:
    'code may not call eval(...) directly; the sandbox refuses the text "eval(" even in a string or comment',
  htmlComment:
    'code may not contain "<!--" or "-->", even in a string or comment (write "a-- > 0", not "a-->0")',
} as const;

// SES rejects these texts anywhere in the source, strings and comments included, before it
// parses (ses/src/transforms.js); the patterns are SES's own.
const TEXT_REFUSALS: readonly { readonly pattern: RegExp; readonly reason: string }[] = [
  { pattern: /(^|[^.]|\.\.\.)\bimport(?=\s*(?:\(|\/[/*]))/, reason: DENIALS.importText },
  { pattern: /(^|[^.])\beval(?=\s*\()/, reason: DENIALS.evalText },
  { pattern: /()(?:<!--|-->)/, reason: DENIALS.htmlComment },
];

const cache = new Map<string, CodeFacts>();
// The designer asks about every operator on every edit; only the edited code is new. The limit
// keeps a long session's memory bounded.
const CACHE_LIMIT = 2000;

/** Parses an operator's code (never runs it). Results are cached by the code text. */
export function readCode(code: string): CodeFacts {
  let facts = cache.get(code);
  if (facts === undefined) {
    facts = analyse(code);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(code, facts);
  }
  return facts;
}

function positionAt(code: string, offset: number): CodePosition {
  const { line, column } = getLineInfo(code, Math.min(Math.max(offset, 0), code.length));
  return { line, column: column + 1 };
}

function analyse(code: string): CodeFacts {
  const faults: { offset: number; fault: CodeFault }[] = [];
  const fault = (offset: number, kind: CodeFault['kind'], reason: string) =>
    faults.push({ offset, fault: { kind, reason, ...positionAt(code, offset) } });

  let program: AnyNode | undefined;
  try {
    program = parse(code, PARSE_OPTIONS);
  } catch (error) {
    const parseFault = describeParseError(code, error);
    if (parseFault !== undefined) fault(parseFault.offset, parseFault.kind, parseFault.reason);
  }
  const importRefused = faults.some((f) => f.fault.reason === DENIALS.importStatement);
  for (const { pattern, reason } of TEXT_REFUSALS) {
    if (importRefused && reason === DENIALS.importText) continue;
    const match = pattern.exec(code);
    if (match !== null) fault(match.index + match[1]!.length, 'forbidden', reason);
  }
  if (program === undefined) return { faults: sorted(faults) };

  let facts: TreeFacts;
  try {
    facts = readTree(program);
  } catch (error) {
    // A tree too deep to read (a destructuring pattern nested thousands deep, which acorn and V8
    // both parse): what it defines and emits is not known, as for code that does not parse.
    if (error instanceof RangeError) return { faults: sorted(faults) };
    throw error;
  }
  if (facts.requireAt !== undefined) fault(facts.requireAt, 'forbidden', DENIALS.require);
  return {
    faults: sorted(faults),
    tree: { defines: facts.defines, ports: facts.ports, usesKeyedState: facts.usesKeyedState },
  };
}

function sorted(faults: { offset: number; fault: CodeFault }[]): CodeFault[] {
  return faults.sort((a, b) => a.offset - b.offset).map((f) => f.fault);
}

const WORD = /[A-Za-z]+/y;

/** The fault a parse error is, or undefined when the parser could not tell (it ran out of stack). */
function describeParseError(
  code: string,
  error: unknown,
): { offset: number; kind: CodeFault['kind']; reason: string } | undefined {
  if (!(error instanceof SyntaxError)) throw error;
  // Code nested a few hundred brackets deep can exhaust acorn's stack before V8's: that is no
  // syntax error, only something this reading cannot know.
  if (error.message.startsWith('Not enough stack space')) return undefined;
  const { pos, raisedAt } = error as SyntaxError & { pos?: unknown; raisedAt?: unknown };
  const offset = typeof pos === 'number' ? pos : 0;
  WORD.lastIndex = offset;
  const word = WORD.exec(code)?.[0];
  if (word === 'import') return { offset, kind: 'forbidden', reason: DENIALS.importStatement };
  if (word === 'export') {
    const reason =
      'export is not allowed in operator code: define the function at the top level, without export';
    return { offset, kind: 'syntax', reason };
  }
  // acorn ends its messages with " (line:column)"; the problem says where in its own words.
  const reason = error.message.replace(/ \(\d+:\d+\)$/, '');
  if (reason !== 'Unexpected token') return { offset, kind: 'syntax', reason };
  const written = code.trimEnd().length;
  if (offset >= written) {
    // At the end of what the user wrote, not on the blank line an editor leaves after it.
    return { offset: written, kind: 'syntax', reason: 'Unexpected end of code (is a bracket not closed?)' };
  }
  // acorn raises "Unexpected token" having read the token: name it, as V8 would.
  const token = code.slice(offset, typeof raisedAt === 'number' ? raisedAt : offset);
  const named = token !== '' && token.length <= 40 && !/[\n\r\u2028\u2029]/.test(token);
  return { offset, kind: 'syntax', reason: named ? `Unexpected token '${token}'` : reason };
}

// ---------------------------------------------------------------------------------------------
// Reading the tree

interface TreeFacts {
  readonly defines: Set<string>;
  readonly ports: EmittedPorts;
  readonly usesKeyedState: boolean;
  /** Offset of the first `require(...)` call, unless the code declares its own `require`. */
  readonly requireAt?: number;
}

type Tree = Node & Record<string, unknown>;

const isNode = (value: unknown): value is Tree =>
  typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';

const isFunction = (node: Tree): boolean =>
  node.type === 'FunctionDeclaration' ||
  node.type === 'FunctionExpression' ||
  node.type === 'ArrowFunctionExpression';

/** `x.name` (or `x?.name`) with a plain, non-computed property. */
function propertyName(node: unknown): string | undefined {
  if (!isNode(node) || node.type !== 'MemberExpression' || node.computed) return undefined;
  const property = node.property as Tree;
  return property.type === 'Identifier' ? (property.name as string) : undefined;
}

function patternNames(pattern: unknown, out: Set<string>): void {
  if (!isNode(pattern)) return;
  switch (pattern.type) {
    case 'Identifier':
      out.add(pattern.name as string);
      break;
    case 'ObjectPattern':
      for (const p of pattern.properties as Tree[])
        patternNames(p.type === 'RestElement' ? p.argument : p.value, out);
      break;
    case 'ArrayPattern':
      for (const element of pattern.elements as unknown[]) patternNames(element, out);
      break;
    case 'RestElement':
      patternNames(pattern.argument, out);
      break;
    case 'AssignmentPattern':
      patternNames(pattern.left, out);
      break;
  }
}

function staticString(node: unknown): string | undefined {
  if (!isNode(node)) return undefined;
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'TemplateLiteral' && (node.expressions as unknown[]).length === 0) {
    const cooked = ((node.quasis as Tree[])[0]!.value as { cooked?: string | null }).cooked;
    return typeof cooked === 'string' ? cooked : undefined;
  }
  return undefined;
}

function readTree(program: AnyNode): TreeFacts {
  const defines = new Set<string>();
  const declared = new Set<string>();
  const ports = new Set(['out']);
  let dynamic = false;
  let usesKeyedState = false;
  let requireAt: number | undefined;

  // The port an `emit(record, port)` call names, when it names one with a literal.
  const emitCall = (call: Tree): void => {
    const args = call.arguments as Tree[];
    if (args.some((arg) => arg.type === 'SpreadElement')) dynamic = true;
    else if (args.length >= 2) {
      const port = staticString(args[1]);
      if (port === undefined) dynamic = true;
      else ports.add(port);
    }
  };

  // The walk keeps its own stack of nodes still to read rather than recursing: code nested
  // thousands deep, which acorn and V8 both parse, must not exhaust the call stack here.
  // `depth` counts the functions around a node: top-level bindings are those at depth 0.
  const pending: { node: Tree; parent: Tree | undefined; depth: number }[] = [];
  const visit = (node: Tree, parent: Tree | undefined, depth: number): void => {
    pending.push({ node, parent, depth });
  };
  const read = (node: Tree, parent: Tree | undefined, depth: number): void => {
    switch (node.type) {
      case 'FunctionDeclaration':
      case 'ClassDeclaration':
        if (depth === 0 && parent?.type === 'Program' && isNode(node.id)) defines.add(node.id.name as string);
        if (isNode(node.id)) declared.add(node.id.name as string);
        break;
      case 'VariableDeclaration': {
        // `var` anywhere outside a function is hoisted to the top; let and const only at it.
        const top = depth === 0 && (parent?.type === 'Program' || node.kind === 'var');
        for (const declarator of node.declarations as Tree[]) {
          patternNames(declarator.id, declared);
          if (top) patternNames(declarator.id, defines);
        }
        break;
      }
      case 'AssignmentExpression': {
        const left = node.left as Tree;
        if (depth === 0 && node.operator === '=' && left.type === 'Identifier')
          defines.add(left.name as string);
        break;
      }
      case 'CallExpression': {
        const callee = node.callee as Tree;
        if (callee.type === 'Identifier' && callee.name === 'require')
          requireAt = Math.min(requireAt ?? callee.start, callee.start);
        if ((callee.type === 'Identifier' && callee.name === 'emit') || propertyName(callee) === 'emit') {
          emitCall(node);
          // The callee is read: it is not `emit` passed around.
          if (callee.type === 'MemberExpression') visit(callee.object as Tree, callee, depth);
          for (const arg of node.arguments as Tree[]) visit(arg, node, depth);
          return;
        }
        const method = propertyName(callee);
        if (
          (method === 'value' || method === 'map' || method === 'list') &&
          propertyName(callee.object) === 'state'
        )
          usesKeyedState = true;
        break;
      }
      case 'MemberExpression': {
        const property = node.property as Tree;
        // `ctx.timers` however it is then used: called through, kept in a variable, passed on.
        if ((node.computed ? staticString(property) : property.name) === 'timers') usesKeyedState = true;
        if (node.computed) {
          if (staticString(property) === 'emit') dynamic = true;
        } else {
          // `x.emit` read as a value, not called: emit is passed around.
          if (property.name === 'emit') dynamic = true;
          visit(node.object as Tree, node, depth);
          return;
        }
        break;
      }
      case 'Property': {
        if (node.computed) break;
        const key = node.key as Tree;
        const value = node.value as Tree;
        // `const { timers } = ctx`, `function process(r, { timers })`.
        if (parent?.type === 'ObjectPattern' && key.type === 'Identifier' && key.name === 'timers')
          usesKeyedState = true;
        if (parent?.type === 'ObjectPattern' && key.type === 'Identifier' && key.name === 'emit') {
          // `const { emit } = ctx` is read where it is called; `{ emit: send }` renames it.
          if (node.shorthand) {
            if (value.type === 'AssignmentPattern') visit(value.right as Tree, value, depth);
          } else {
            dynamic = true;
            visit(value, node, depth);
          }
          return;
        }
        // A key is a name, not a use; in `{ emit }` the value is a use of emit.
        visit(value, node, depth);
        return;
      }
      case 'MethodDefinition':
      case 'PropertyDefinition':
        if (!node.computed) {
          if (isNode(node.value)) visit(node.value, node, depth);
          return;
        }
        break;
      case 'Identifier':
        if (node.name === 'emit' && !isDeclarationOfEmit(node, parent)) dynamic = true;
        return;
    }
    const inner = isFunction(node) ? depth + 1 : depth;
    if (isFunction(node)) for (const param of node.params as Tree[]) patternNames(param, declared);
    const children: Tree[] = [];
    for (const key in node) {
      if (key === 'type' || key === 'start' || key === 'end') continue;
      const value = node[key];
      if (Array.isArray(value)) {
        for (const child of value) if (isNode(child)) children.push(child);
      } else if (isNode(value)) children.push(value);
    }
    // Last child first onto the stack, so nodes are read in source order (ports in the order
    // the code names them).
    for (let i = children.length - 1; i >= 0; i--) visit(children[i]!, node, inner);
  };
  visit(program as unknown as Tree, undefined, 0);
  for (let next = pending.pop(); next !== undefined; next = pending.pop())
    read(next.node, next.parent, next.depth);

  return {
    defines,
    ports: { ports, dynamic },
    // An onTimer is there for timers, which only keyed input has.
    usesKeyedState: usesKeyedState || defines.has('onTimer'),
    ...(requireAt === undefined || declared.has('require') ? {} : { requireAt }),
  };
}

// `function emit() {}` is the user's own function, called like ctx.emit.
function isDeclarationOfEmit(node: Tree, parent: Tree | undefined): boolean {
  return (
    (parent?.type === 'FunctionDeclaration' || parent?.type === 'FunctionExpression') && parent.id === node
  );
}
