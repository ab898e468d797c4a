// Breakpoints of a debug run: on an operator (any record it takes or makes), on a condition (a
// JavaScript expression over the record `r` and `ctx`, compiled and run in the same sandbox as
// user code), on a state key (any read or write of that key's state), on a timer firing (any,
// or one key's), on a watermark reaching an operator (also one that fired nothing, at the step
// that shows it), on a row of a transaction operator's
// table (a step that ran a transaction touching it). A condition that does not compile, one
// naming an operator the job lacks, or a row of a table no transaction operator has, is reported
// and left out; a condition that throws while it runs does not hit. A condition is user code: it
// runs through the session's ConditionCall, which marks it as a call into user code, so that a
// condition that never returns is stopped and named as operator code is (callMarker.ts).
import type { Plan } from '../graph/plan.js';
import type { Breakpoint, BreakpointProblem, StepView } from '../protocol/runProtocol.js';
import { compileUserCode, hardenForUser, UserCodeError } from '../sandbox/userCode.js';
import { jsonCopy } from './jsonCopy.js';
import { touchesRow } from './transactionView.js';

type Condition = (r: unknown, ctx: unknown) => unknown;

/** Runs a breakpoint's condition on the step's record, marked as a call into user code. */
export type ConditionCall = (breakpoint: string, view: StepView, condition: () => unknown) => unknown;

/** Unmarked: for a session without a call marker (tests driving it on their own thread). */
const unmarked: ConditionCall = (_breakpoint, _view, condition) => condition();

interface Armed {
  readonly id: string;
  /** Where it applies: the step's operator; a watermark breakpoint checks its own (see below). */
  readonly operator: string | undefined;
  hits(view: StepView, call: ConditionCall): boolean;
}

/** Whether a state key (as ctx.key shows it) is the one a breakpoint names. */
function sameKey(key: unknown, named: string): boolean {
  return typeof key === 'string' ? key === named : JSON.stringify(key) === named;
}

/** A step that hands a record to an operator's code, or has a source make one. */
export const takesRecords = (view: StepView) => view.kind === 'record' || view.kind === 'produce';

function compileCondition(id: string, expression: string): Condition {
  // The expression alone on its lines, so a trailing comment cannot swallow the parenthesis.
  const functions = compileUserCode({
    code: `function condition(r, ctx) {\n  return (\n${expression}\n  );\n}`,
    operatorId: `breakpoint ${id}`,
    functionNames: ['condition'],
    required: ['condition'],
  });
  return functions.condition as Condition;
}

/** The tables of the transaction operators a row breakpoint may name (one, when it names one). */
function rowProblem(breakpoint: Extract<Breakpoint, { type: 'row' }>, plan: Plan): string | undefined {
  const named = breakpoint.operator;
  const candidates = plan.operators.filter(
    (op) => op.operator.kind === 'transaction' && (named === undefined || op.id === named),
  );
  if (named !== undefined && candidates.length === 0) {
    return `operator "${named}" is no transaction operator: only transactions have rows`;
  }
  const tables = candidates.flatMap((op) => tablesOf(op.operator.params));
  if (tables.includes(breakpoint.table)) return undefined;
  const where = named === undefined ? 'no transaction operator of the job' : `operator "${named}"`;
  const known = tables.length === 0 ? '' : ` (tables: ${[...new Set(tables)].join(', ')})`;
  return `${where} has a table "${breakpoint.table}"${known}`;
}

function tablesOf(params: unknown): string[] {
  const tables = (params as { tables?: unknown } | undefined)?.tables;
  return Array.isArray(tables) ? tables.filter((t): t is string => typeof t === 'string') : [];
}

export class Breakpoints {
  private armed: Armed[] = [];

  /** Replaces the breakpoints; returns the problems of those left out. */
  set(list: readonly Breakpoint[], plan: Plan): BreakpointProblem[] {
    const problems: BreakpointProblem[] = [];
    const armed: Armed[] = [];
    for (const breakpoint of list) {
      const { id } = breakpoint;
      const operator = breakpoint.operator;
      if (operator !== undefined && !plan.byId.has(operator)) {
        problems.push({ id, message: `breakpoint "${id}": the job has no operator "${operator}"` });
        continue;
      }
      switch (breakpoint.type) {
        case 'operator':
          armed.push({ id, operator, hits: (view) => takesRecords(view) });
          break;
        case 'stateKey': {
          const key = breakpoint.key;
          armed.push({ id, operator, hits: (view) => view.state.some((access) => sameKey(access.key, key)) });
          break;
        }
        case 'timer': {
          const key = breakpoint.key;
          armed.push({
            id,
            operator,
            hits: (view) => view.kind === 'timer' && (key === undefined || sameKey(view.key, key)),
          });
          break;
        }
        case 'watermark':
          // Every watermark: a step of its own, or one that fired nothing, shown with the step
          // after it (which may be another operator's).
          armed.push({
            id,
            operator: undefined,
            hits: (view) =>
              (view.kind === 'watermark' && (operator === undefined || view.operator === operator)) ||
              (view.watermarks?.some((w) => operator === undefined || w.operator === operator) ?? false),
          });
          break;
        case 'row': {
          const { table, key } = breakpoint;
          const problem = rowProblem(breakpoint, plan);
          if (problem !== undefined) {
            problems.push({ id, message: `breakpoint "${id}": ${problem}` });
            continue;
          }
          armed.push({
            id,
            operator,
            hits: (view) => view.transactions?.some((tx) => touchesRow(tx, table, key)) ?? false,
          });
          break;
        }
        case 'condition': {
          let condition: Condition;
          try {
            condition = compileCondition(id, breakpoint.expression);
          } catch (error) {
            const reason = error instanceof UserCodeError ? error.reason : (error as Error).message;
            problems.push({ id, message: `breakpoint "${id}": the condition does not compile: ${reason}` });
            continue;
          }
          armed.push({
            id,
            operator,
            hits: (view, call) => {
              if (!takesRecords(view)) return false;
              const ctx = hardenForUser({
                key: jsonCopy(view.key),
                subtask: view.subtask,
                operator: view.operator,
              });
              const record = jsonCopy(view.record);
              try {
                return Boolean(call(id, view, () => condition(record, ctx)));
              } catch {
                return false;
              }
            },
          });
          break;
        }
      }
    }
    this.armed = armed;
    return problems;
  }

  /** The first breakpoint (in the order given) this step hits; `call` runs conditions. */
  hit(view: StepView, call: ConditionCall = unmarked): string | undefined {
    for (const breakpoint of this.armed) {
      if (breakpoint.operator !== undefined && breakpoint.operator !== view.operator) continue;
      if (breakpoint.hits(view, call)) return breakpoint.id;
    }
    return undefined;
  }
}
