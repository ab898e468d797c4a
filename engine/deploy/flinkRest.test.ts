import { describe, expect, it } from 'vitest';
import { userMessageOf } from './flinkRest.js';

describe('userMessageOf', () => {
  it("finds the user's line as the last cause of the trace a cluster keeps", () => {
    const trace = [
      'org.apache.flink.runtime.execution.SuppressRestartsException: Unrecoverable failure. This suppresses job restarts. Please check the stack trace for the root cause.',
      '\tat org.apache.flink.runtime.taskmanager.Task.doRun(Task.java:777)',
      'Caused by: java.lang.RuntimeException: the worker of "count" failed',
      '\tat dev.pipewright.flink.JsOperator.flush(JsOperator.java:120)',
      'Caused by: dev.pipewright.flink.UserError: operator "count" (subtask 1 of 2) failed: RangeError: no stream',
      '\t... 12 more',
    ].join('\n');
    expect(userMessageOf(trace)).toBe('operator "count" (subtask 1 of 2) failed: RangeError: no stream');
  });

  it('takes the first line, without its class, when nothing caused it', () => {
    expect(userMessageOf('java.io.IOException: disk full\n\tat x.y(Z.java:1)')).toBe('disk full');
  });
});
