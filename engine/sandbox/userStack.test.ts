// The stack text user code can see and pass on (throw, log, emit) names positions in the
// user's code only: no install paths, no engine or Node frames.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXECUTORS, runJob } from '../../test/executors.js';
import { fn, makeJob, sink } from '../../test/jobBuilders.js';
import { compileUserCode, describeUserThrow, ensureLockdown, hardenForUser } from './userCode.js';

ensureLockdown();

/** Text that would show where Pipewright or Node is installed, or their internals. */
function expectNoInstallPaths(text: string): void {
  for (const leak of ['file://', '/dist/', '/engine/', 'node_modules', 'node:internal', '.js:', '.ts:']) {
    expect(text).not.toContain(leak);
  }
}

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'pipewright-userstack-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('error.stack as user code reads it', () => {
  const host = hardenForUser({
    emit(_record: unknown, port?: unknown) {
      if (port !== undefined && typeof port !== 'string') throw new TypeError('port must be a string');
    },
  });

  it('lists only frames of the code, at its own lines, for a throw of a host callback', () => {
    const { process } = compileUserCode({
      code: 'function helper(ctx) {\n  ctx.emit({}, 5);\n}\nfunction process(r, ctx) {\n  try { helper(ctx); } catch (e) { return e.stack; }\n}',
      operatorId: 'owners',
      functionNames: ['process'],
      required: ['process'],
    });
    const stack = process({}, host) as string;
    expect(stack.split('\n')).toEqual([
      'TypeError: port must be a string',
      '    at helper (owners:2:7)',
      '    at process (owners:5:9)',
    ]);
  });

  it('keeps the line of an async throw and of an anonymous function', async () => {
    const { process } = compileUserCode({
      code: 'async function process(r) {\n  await null;\n  [1].forEach(() => { throw new RangeError("late"); });\n}',
      operatorId: 'op',
      functionNames: ['process'],
      required: ['process'],
    });
    const err = await (process({}) as Promise<unknown>).catch((e: unknown) => e);
    const stack = (err as Error).stack!;
    expectNoInstallPaths(stack);
    expect(stack.split('\n').slice(0, 3)).toEqual([
      'RangeError: late',
      '    at op:3:29',
      // Array.prototype.forEach is neither the user's code nor a position in it.
      '    at process (op:3:7)',
    ]);
    expect(describeUserThrow(err, 'op')).toMatchObject({ message: 'RangeError: late', line: 3, column: 29 });
  });

  it("user code cannot take over the stack format, its own or other operators'", () => {
    // SES lets code that holds a host error set a process-wide Error.prepareStackTrace through
    // its constructor; the format stays the engine's (and nothing is thrown at the attempt).
    class HostError extends Error {}
    const failing = hardenForUser({
      fail() {
        throw new HostError('host failure');
      },
    });
    const { process } = compileUserCode({
      code: 'function process(r, ctx) {\n  try { ctx.fail(); } catch (e) {\n    e.constructor.prepareStackTrace = (err, sites) => "taken: " + sites.map(String).join(" | ");\n    return new Error("probe").stack;\n  }\n}',
      operatorId: 'thief',
      functionNames: ['process'],
      required: ['process'],
    });
    expect(process({}, failing)).toBe('Error: probe\n    at process (thief:4:12)');
    const other = compileUserCode({
      code: 'function process() {\n  return new RangeError("other").stack;\n}',
      operatorId: 'other',
      functionNames: ['process'],
      required: ['process'],
    });
    expect(other.process!()).toBe('RangeError: other\n    at process (other:2:10)');
    expect(new Error('ours').stack).toMatch(/^Error: ours\n {4}at /);
  });

  it("an engine error that never passed user code keeps the engine's frames", () => {
    expect(new Error('ours').stack).toMatch(/\n {4}at .*userStack\.test\.ts:\d+:\d+/);
  });
});

// On both executors: on worker threads the engine runs from dist/, whose paths must not show either.
describe.each(EXECUTORS)('a run whose user code passes a stack on (%s)', (executor) => {
  // Each catches what ctx threw at it and hands its stack on: in a record and in a throw.
  const misuse = {
    port: 'ctx.emit(r, 5)',
    state: 'ctx.state.value(5)',
    timers: 'ctx.timers.eventTime("soon")',
  };

  for (const [name, call] of Object.entries(misuse)) {
    it(`${name}: the record and the message name user positions only`, async () => {
      const dir = await mkdtemp(join(root, `${name}-`));
      await writeFile(join(dir, 'in.jsonl'), '{"k":1}\n');
      const emitting = makeJob(
        `stack-${name}`,
        [
          { id: 'src', kind: 'source.jsonl', params: { path: 'in.jsonl' } },
          fn(
            'user',
            'process',
            `function process(r, ctx) {\n  try {\n    ${call};\n  } catch (e) {\n    ctx.emit({ stack: e.stack });\n    if (r.k === 2) throw new Error(e.stack);\n  }\n}`,
          ),
          sink('out', 'out.jsonl'),
        ],
        [
          { id: 'a', from: 'src', to: 'user', partition: 'hash', key: 'k' },
          { id: 'b', from: 'user', to: 'out', partition: 'forward' },
        ],
      );
      await runJob(executor, emitting, { jobDir: dir, stateDir: join(dir, 'state') });
      const record = JSON.parse(await readFile(join(dir, 'out.jsonl'), 'utf8')) as { stack: string };
      expectNoInstallPaths(record.stack);
      expect(record.stack).toMatch(/\n {4}at process \(user:3:\d+\)$/);

      await writeFile(join(dir, 'in.jsonl'), '{"k":2}\n');
      const error = await runJob(executor, emitting, { jobDir: dir, stateDir: join(dir, 'state2') }).then(
        () => new Error('expected the run to fail'),
        (e: unknown) => e as Error,
      );
      expect(error.message).toContain('operator "user"');
      expectNoInstallPaths(error.message);
    });
  }
});
