// Breakpoints as the user writes them: checked for what can be checked here (something to stop
// on), numbered bp1, bp2, … so the engine's hits and problems can name them. A timer breakpoint
// stops where a timer fires (of one key, when one is written); a watermark breakpoint where a
// watermark reaches the operator; a row breakpoint (`accounts/a7`: table, slash, key) after a
// step that ran a transaction touching that row of a transaction operator's table.
import type { Breakpoint } from '../../engine/protocol/protocol.js';

export type BreakpointDraft =
  | { readonly type: 'operator'; readonly operator: string }
  | { readonly type: 'condition'; readonly operator?: string; readonly expression: string }
  | { readonly type: 'stateKey'; readonly operator?: string; readonly key: string }
  | { readonly type: 'timer'; readonly operator?: string; readonly key?: string }
  | { readonly type: 'watermark'; readonly operator?: string }
  | { readonly type: 'row'; readonly operator?: string; readonly row: string };

/** "accounts/a7" as table "accounts" and key "a7" (the key may hold slashes, the table not). */
export function parseRow(text: string): { table: string; key: string } | undefined {
  const row = text.trim();
  const slash = row.indexOf('/');
  if (slash <= 0 || slash === row.length - 1) return undefined;
  return { table: row.slice(0, slash), key: row.slice(slash + 1) };
}

/** Why the draft cannot be added, or undefined when it can. The expression itself is the engine's to check. */
export function draftProblem(draft: BreakpointDraft): string | undefined {
  switch (draft.type) {
    case 'operator':
      return draft.operator === '' ? 'Choose the operator to stop at.' : undefined;
    case 'condition':
      return draft.expression.trim() === '' ? 'Write the condition, e.g. r.owner === "o7".' : undefined;
    case 'stateKey':
      return draft.key === '' ? 'Write the state key to stop at.' : undefined;
    case 'row':
      return parseRow(draft.row) === undefined ? 'Write the row as table/key, e.g. accounts/a7.' : undefined;
    case 'timer':
    case 'watermark':
      return undefined;
  }
}

function nextId(list: readonly Breakpoint[]): string {
  let max = 0;
  for (const bp of list) {
    const m = /^bp(\d+)$/.exec(bp.id);
    if (m !== null) max = Math.max(max, Number(m[1]));
  }
  return `bp${max + 1}`;
}

export function addBreakpoint(list: readonly Breakpoint[], draft: BreakpointDraft): Breakpoint[] {
  const id = nextId(list);
  const operator = draft.type !== 'operator' && draft.operator === '' ? undefined : draft.operator;
  let bp: Breakpoint;
  if (draft.type === 'operator') bp = { id, type: 'operator', operator: draft.operator };
  else if (draft.type === 'condition') {
    bp = {
      id,
      type: 'condition',
      expression: draft.expression.trim(),
      ...(operator === undefined ? {} : { operator }),
    };
  } else if (draft.type === 'stateKey') {
    bp = { id, type: 'stateKey', key: draft.key, ...(operator === undefined ? {} : { operator }) };
  } else if (draft.type === 'timer') {
    const key = draft.key?.trim() ?? '';
    bp = {
      id,
      type: 'timer',
      ...(operator === undefined ? {} : { operator }),
      ...(key === '' ? {} : { key }),
    };
  } else if (draft.type === 'row') {
    const row = parseRow(draft.row);
    if (row === undefined) throw new Error(`not a row (table/key): ${draft.row}`);
    bp = { id, type: 'row', ...(operator === undefined ? {} : { operator }), ...row };
  } else bp = { id, type: 'watermark', ...(operator === undefined ? {} : { operator }) };
  return [...list, bp];
}

export function removeBreakpoint(list: readonly Breakpoint[], id: string): Breakpoint[] {
  return list.filter((bp) => bp.id !== id);
}

/** Whether the list stops at every record of `operator` (an operator breakpoint on it). */
export function breaksOnOperator(list: readonly Breakpoint[], operator: string): boolean {
  return list.some((bp) => bp.type === 'operator' && bp.operator === operator);
}

/**
 * "Break on this operator" from the canvas: adds an operator breakpoint on it, or removes every
 * one there is (conditions and state keys on the operator stay).
 */
export function toggleOperatorBreakpoint(list: readonly Breakpoint[], operator: string): Breakpoint[] {
  if (!breaksOnOperator(list, operator)) return addBreakpoint(list, { type: 'operator', operator });
  return list.filter((bp) => bp.type !== 'operator' || bp.operator !== operator);
}

/** "owners: r.owner === "o7"", "any operator: state key o7", "operator events". */
export function describeBreakpoint(bp: Breakpoint): string {
  const where = bp.type === 'operator' ? bp.operator : (bp.operator ?? 'any operator');
  switch (bp.type) {
    case 'operator':
      return `every record at ${where}`;
    case 'condition':
      return `${where}: ${bp.expression}`;
    case 'stateKey':
      return `${where}: state key ${bp.key}`;
    case 'timer':
      return bp.key === undefined ? `${where}: a timer fires` : `${where}: a timer of key ${bp.key} fires`;
    case 'watermark':
      return `${where}: a watermark arrives`;
    case 'row':
      return `${where}: a transaction touches row ${bp.table}/${bp.key}`;
  }
}
