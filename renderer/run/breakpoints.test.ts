import { describe, expect, it } from 'vitest';
import {
  addBreakpoint,
  breaksOnOperator,
  describeBreakpoint,
  draftProblem,
  parseRow,
  removeBreakpoint,
  toggleOperatorBreakpoint,
} from './breakpoints';

describe('breakpoints', () => {
  it('numbers breakpoints after the highest number in use', () => {
    let list = addBreakpoint([], { type: 'operator', operator: 'owners' });
    list = addBreakpoint(list, { type: 'condition', expression: ' r.owner === "o7" ' });
    expect(list).toEqual([
      { id: 'bp1', type: 'operator', operator: 'owners' },
      { id: 'bp2', type: 'condition', expression: 'r.owner === "o7"' },
    ]);
    list = removeBreakpoint(list, 'bp1');
    list = addBreakpoint(list, { type: 'stateKey', operator: 'owners', key: 'o7' });
    expect(list.map((bp) => bp.id)).toEqual(['bp2', 'bp3']);
    expect(list[1]).toEqual({ id: 'bp3', type: 'stateKey', operator: 'owners', key: 'o7' });
  });

  it('leaves the operator out of a condition or key breakpoint for any operator', () => {
    expect(addBreakpoint([], { type: 'stateKey', operator: '', key: 'k' })[0]).toEqual({
      id: 'bp1',
      type: 'stateKey',
      key: 'k',
    });
  });

  it('refuses drafts with nothing to stop on', () => {
    expect(draftProblem({ type: 'operator', operator: '' })).toMatch(/operator/);
    expect(draftProblem({ type: 'condition', expression: '  ' })).toMatch(/condition/);
    expect(draftProblem({ type: 'stateKey', key: '' })).toMatch(/state key/);
    expect(draftProblem({ type: 'condition', expression: 'true' })).toBeUndefined();
  });

  it("toggles an operator breakpoint (the canvas's Break on this operator), leaving the others", () => {
    const condition = addBreakpoint([], { type: 'condition', operator: 'owners', expression: 'r.x' });
    const on = toggleOperatorBreakpoint(condition, 'owners');
    expect(on).toEqual([...condition, { id: 'bp2', type: 'operator', operator: 'owners' }]);
    expect(breaksOnOperator(on, 'owners')).toBe(true);
    expect(breaksOnOperator(on, 'out')).toBe(false);
    // Off again: every operator breakpoint on it goes (one may have come from the form too).
    const twice = addBreakpoint(on, { type: 'operator', operator: 'owners' });
    expect(toggleOperatorBreakpoint(twice, 'owners')).toEqual(condition);
  });

  it('describes each kind', () => {
    expect(describeBreakpoint({ id: 'bp1', type: 'operator', operator: 'owners' })).toBe(
      'every record at owners',
    );
    expect(describeBreakpoint({ id: 'bp1', type: 'condition', expression: 'r.x > 1' })).toBe(
      'any operator: r.x > 1',
    );
    expect(describeBreakpoint({ id: 'bp1', type: 'stateKey', operator: 'owners', key: 'o7' })).toBe(
      'owners: state key o7',
    );
    expect(describeBreakpoint({ id: 'bp1', type: 'timer', operator: 'timeouts', key: 'o7' })).toBe(
      'timeouts: a timer of key o7 fires',
    );
    expect(describeBreakpoint({ id: 'bp1', type: 'timer' })).toBe('any operator: a timer fires');
    expect(describeBreakpoint({ id: 'bp1', type: 'watermark', operator: 'windows' })).toBe(
      'windows: a watermark arrives',
    );
  });

  it('makes timer breakpoints for any key unless one is written, and watermark breakpoints', () => {
    let list = addBreakpoint([], { type: 'timer', operator: 'timeouts', key: ' o7 ' });
    list = addBreakpoint(list, { type: 'timer', operator: '', key: '' });
    list = addBreakpoint(list, { type: 'watermark', operator: 'windows' });
    expect(list).toEqual([
      { id: 'bp1', type: 'timer', operator: 'timeouts', key: 'o7' },
      { id: 'bp2', type: 'timer' },
      { id: 'bp3', type: 'watermark', operator: 'windows' },
    ]);
    expect(draftProblem({ type: 'timer', operator: '' })).toBeUndefined();
    expect(draftProblem({ type: 'watermark' })).toBeUndefined();
  });

  it('makes row breakpoints from table/key (the key may hold slashes), refusing text that is no row', () => {
    let list = addBreakpoint([], { type: 'row', operator: 'tx', row: ' accounts/a7 ' });
    list = addBreakpoint(list, { type: 'row', operator: '', row: 'paths/a/b' });
    expect(list).toEqual([
      { id: 'bp1', type: 'row', operator: 'tx', table: 'accounts', key: 'a7' },
      { id: 'bp2', type: 'row', table: 'paths', key: 'a/b' },
    ]);
    expect(describeBreakpoint(list[0]!)).toBe('tx: a transaction touches row accounts/a7');
    expect(parseRow('accounts/7')).toEqual({ table: 'accounts', key: '7' });
    for (const wrong of ['a7', '/a7', 'accounts/', '  ']) {
      expect(draftProblem({ type: 'row', row: wrong })).toMatch(/table\/key/);
    }
    expect(draftProblem({ type: 'row', row: 'accounts/a7' })).toBeUndefined();
  });
});
