import { describe, expect, it } from 'vitest';
import { pipeline } from './jobFixtures.js';
import { validateJob } from './validateJob.js';

describe('format', () => {
  it('refuses a file without a format, and reports nothing else', () => {
    const { job: parsed, problems } = validateJob({ name: 'x', operators: 'nonsense', edges: [{}] });
    expect(parsed).toBeUndefined();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'format', path: '$.format' });
    expect(problems[0]!.message).toContain('not a Pipewright job file');
  });

  it('names an unsupported version of the format', () => {
    const { problems } = validateJob({ ...pipeline(), format: 'pipewright.job/2', operators: 7 });
    expect(problems).toEqual([
      {
        code: 'format',
        message: 'format pipewright.job/2 is not supported by this version (it reads pipewright.job/1)',
        path: '$.format',
        ids: [],
      },
    ]);
  });

  it('refuses another kind of file', () => {
    const { problems } = validateJob({ format: 'something/else' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'format', path: '$.format' });
    expect(problems[0]!.message).toContain('"something/else"');
  });

  it.each([[null], [[]], ['pipewright.job/1'], [42]])('refuses %j, which is not an object', (value) => {
    const { problems } = validateJob(value);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'format', path: '$' });
    expect(problems[0]!.message).toMatch(/^not a Pipewright job file/);
  });
});
