import { describe, expect, it } from 'vitest';
import { failedOperator, failedRunMessage, operatorNamedIn } from './runFailure';

const failed = (message: string | undefined, outdated = false) =>
  ({ status: 'failed', message, outdated }) as const;

describe('operatorNamedIn', () => {
  it('reads the operator a failure names as the engine writes it', () => {
    expect(operatorNamedIn('operator "p1": syntax error at line 1 of its code: Unexpected token')).toBe('p1');
    expect(operatorNamedIn('operator "src" cannot read its input file /w/missing.jsonl: no such file')).toBe(
      'src',
    );
    expect(operatorNamedIn('operator "p1" failed; operator "p1" again')).toBe('p1');
  });

  it('marks nothing when a message names no operator, two of them, or something that is no id', () => {
    expect(operatorNamedIn('the run ran out of memory')).toBeUndefined();
    expect(operatorNamedIn('edge "e1" from operator "a" to operator "b" is wrong')).toBeUndefined();
    expect(operatorNamedIn('operator "a b" is no id')).toBeUndefined();
    expect(operatorNamedIn('cooperator "p1"')).toBeUndefined();
  });
});

describe('the last run failure', () => {
  it('is the failed run’s message in full, with the operator it names', () => {
    const text = `operator "p1": ${'x'.repeat(300)}`;
    expect(failedRunMessage(failed(text))).toBe(text);
    expect(failedOperator(failed(text))).toBe('p1');
  });

  it('is nothing once the job has changed since, or for a run that did not fail', () => {
    expect(failedRunMessage(failed('operator "p1": boom', true))).toBeUndefined();
    expect(failedOperator(failed('operator "p1": boom', true))).toBeUndefined();
    expect(failedRunMessage({ status: 'finished', message: 'done', outdated: false })).toBeUndefined();
  });

  it('says so when the engine gave no reason', () => {
    expect(failedRunMessage(failed(undefined))).toBe('the engine gave no reason');
  });
});
