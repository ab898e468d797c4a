// What the checks read in an operator's user code. Every one of them asks the same parse
// (codeParse.ts's readCode, acorn, cached by the code text), never a scan of its own, so they
// cannot disagree: the code is parsed, never run, and what the runtime would refuse is found
// before a run and pointed at where the user wrote it.
import { type CodeFault, type EmittedPorts, readCode } from '../codeParse.js';
import { type KindDescriptor, requiredFunctions } from '../kinds/kindDescriptor.js';
import type { Finding } from './finding.js';
import { quote } from './valueWords.js';

export type { EmittedPorts } from '../codeParse.js';

const UNKNOWN_PORTS: EmittedPorts = { ports: new Set(['out']), dynamic: true };

/**
 * The output ports user code emits to, found by reading `ctx.emit(record, "port")` and
 * `tx.emit(...)` calls in its syntax tree. When the code passes `emit` around or names a port
 * with an expression, `dynamic` is true: the port cannot be known before the code runs. The
 * same holds while the code does not parse.
 */
export function scanEmittedPorts(code: string): EmittedPorts {
  return readCode(code).tree?.ports ?? UNKNOWN_PORTS;
}

/** The ports an operator may emit to: its kind's own, and those its code names; undefined while the code does not parse. */
export function operatorPorts(kind: KindDescriptor, code: string | undefined): EmittedPorts | undefined {
  const fixed = new Set(['out', ...kind.ports.outputs]);
  if (kind.userCode === undefined) return { ports: fixed, dynamic: false };
  const scanned = code === undefined ? undefined : readCode(code).tree?.ports;
  return scanned && { ports: new Set([...fixed, ...scanned.ports]), dynamic: scanned.dynamic };
}

/** Whether the code reaches for keyed state or timers (false for code that does not parse). */
export function usesKeyedState(code: string): boolean {
  return readCode(code).tree?.usesKeyedState === true;
}

export interface CodeOwner {
  readonly index: number;
  readonly id: string;
}

function faultFinding(op: CodeOwner, fault: CodeFault): Finding {
  const where = `line ${fault.line}, column ${fault.column} of its code`;
  const label = `operator ${quote(op.id)}`;
  return {
    code: fault.kind === 'syntax' ? 'syntax-error' : 'forbidden-in-code',
    message:
      fault.kind === 'syntax'
        ? `${label}: syntax error at ${where}: ${fault.reason}`
        : `${label}: ${where}: ${fault.reason}`,
    path: ['operators', op.index, 'params', 'code'],
    ids: [op.id],
    codeLine: fault.line,
    codeColumn: fault.column,
  };
}

/** What is wrong with an operator's code: its faults, then each function it fails to define. */
export function codeFindings(op: CodeOwner, kind: KindDescriptor, code: string): Finding[] {
  const facts = readCode(code);
  const findings = facts.faults.map((fault) => faultFinding(op, fault));
  // Code that does not parse defines nothing anyone can know of: the syntax error says enough.
  if (facts.tree === undefined) return findings;
  for (const name of requiredFunctions(kind)) {
    if (!facts.tree.defines.has(name)) {
      findings.push({
        code: 'missing-function',
        message: `operator ${quote(op.id)}: params.code must define a function named ${name}`,
        path: ['operators', op.index, 'params', 'code'],
        ids: [op.id],
      });
    }
  }
  return findings;
}
