// The job-file validator under a few thousand random and mutated job texts a run (made by
// test/fuzzedJobTexts.ts: the example jobs broken in every way, and random texts). Whatever it
// is given, validateJobText must return, within a bound, either a job or a non-empty list of
// problems of the documented shape, and give the same answer twice. The seed is printed;
// PIPEWRIGHT_FUZZ_SEED=N replays a run and PIPEWRIGHT_FUZZ_RUNS=N changes how many texts it tries.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXAMPLES, jobTexts } from '../../../test/fuzzedJobTexts.js';
import { fuzzSettings } from '../../../test/tier.js';
import type { Problem } from '../problem.js';
import { PROBLEM_CODES } from './problemCodes.js';
import { validateJob, validateJobText } from './validateJob.js';

// A fixed seed and a few hundred inputs in `npm test`, a random seed and thousands in the soak tier.
const { seed: SEED, runs: RUNS } = fuzzSettings(3000, 300);
/** Generating stops after this, however many texts were tried (a few thousand take ~20 s). */
const TIME_LIMIT_MS = 45_000;
/** Far beyond what one validation takes (milliseconds): a hang or a blow-up, not slowness. */
const CALL_BOUND_MS = 10_000;

const isPosition = (n: unknown) => n === undefined || (Number.isInteger(n) && (n as number) >= 1);

/** What every answer must be, and the same the second time. True for a job. */
function checkAnswer(text: string): boolean {
  const started = performance.now();
  const answer = validateJobText(text);
  const ms = performance.now() - started;
  expect(ms, 'one validation stayed within its bound').toBeLessThan(CALL_BOUND_MS);

  expect(Object.keys(answer).sort()).toEqual(answer.job === undefined ? ['problems'] : ['job', 'problems']);
  const { job, problems } = answer;
  if (job !== undefined) {
    expect(problems).toEqual([]);
    // A valid job, written out with its defaults, is valid as it stands.
    expect(validateJob(JSON.parse(JSON.stringify(job)))).toEqual({ job, problems: [] });
  } else {
    expect(problems.length).toBeGreaterThan(0);
  }
  for (const problem of problems as Problem[]) {
    expect(PROBLEM_CODES).toContain(problem.code);
    expect(typeof problem.message).toBe('string');
    expect(problem.message.length).toBeGreaterThan(0);
    expect(problem.message, 'a problem is one line').not.toMatch(/[\r\n]/);
    // These jobs are small (8 operators, 10 edges at most): only an echoed value could make it long.
    expect(problem.message.length).toBeLessThan(2_000);
    expect(problem.path).toMatch(/^\$/);
    expect(Array.isArray(problem.ids) && problem.ids.every((id) => typeof id === 'string')).toBe(true);
    for (const n of [problem.line, problem.column, problem.codeLine, problem.codeColumn]) {
      expect(isPosition(n)).toBe(true);
    }
  }
  // The CLI's --json and the designer's protocol send problems as JSON.
  expect(() => JSON.stringify(problems)).not.toThrow();
  expect(validateJobText(text)).toEqual(answer);
  return job !== undefined;
}

/** A text as fast-check prints a counterexample: its start and length, not megabytes of it. */
function shown(text: string): { text: string; [fc.toStringMethod]: () => string } {
  return {
    text,
    [fc.toStringMethod]: () =>
      text.length <= 400
        ? JSON.stringify(text)
        : `${JSON.stringify(text.slice(0, 400))}… (${text.length} characters)`,
  };
}

describe('what the fuzz found', () => {
  it('long ids are quoted by their start, and not compared letter by letter for a suggestion', () => {
    // Two ids of n characters cost n × n in an edit distance: 6,000 took 1.5 s, 60,000 minutes.
    const long = (letter: string) => letter.repeat(5_000);
    const { problems } = validateJob({
      format: 'pipewright.job/1',
      name: 'long ids',
      operators: [{ id: long('a'), kind: 'map', params: { code: 'function map(r) { return r; }' } }],
      edges: [{ id: 'e', from: long('b'), to: long('a'), partition: 'forward' }],
    });
    expect(problems.map((p) => p.code)).toEqual([
      'invalid-value',
      'invalid-value',
      'unknown-operator',
      'invalid-value',
    ]);
    for (const problem of problems) expect(problem.message.length).toBeLessThan(300);
    expect(problems[2]!.message).toBe(
      `edge "e" comes from unknown operator "${'b'.repeat(100)}"… (5000 characters)`,
    );
  });

  it('code nested thousands of statements deep is answered, not a crash', () => {
    // acorn and V8 parse it; the validator's walk of its syntax tree ran out of stack.
    const code = `function process(r, ctx) { ${'if (r) '.repeat(3000)}ctx.emit(r); }`;
    const job = JSON.parse(EXAMPLES.find((text) => text.includes('"word-count"'))!);
    job.operators[2].params.code = code;
    const answer = validateJobText(JSON.stringify(job));
    expect(answer.problems).toEqual([]);
    expect(answer.job?.operators[2]?.params).toEqual({ code });
  });
});

describe('the job-file validator, fuzzed', () => {
  it('answers every random or mutated job text with a job or problems', () => {
    // Printed so that a failure seen in a log can be replayed: PIPEWRIGHT_FUZZ_SEED=<seed>.
    process.stdout.write(`validator fuzz: seed ${SEED}, up to ${RUNS} texts\n`);
    for (const text of EXAMPLES) expect(validateJobText(text).problems).toEqual([]);
    let tried = 0;
    let jobs = 0;
    fc.assert(
      fc.property(jobTexts.map(shown), ({ text }) => {
        tried++;
        if (checkAnswer(text)) jobs++;
      }),
      { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: false },
    );
    process.stdout.write(`validator fuzz: ${tried} texts, ${jobs} of them valid jobs\n`);
    // No "__proto__" key reached a prototype.
    expect(Object.keys(Object.prototype)).toEqual([]);
    expect(({} as Record<string, unknown>).id).toBeUndefined();
  }, 120_000);
});
