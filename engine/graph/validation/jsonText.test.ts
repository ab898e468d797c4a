import { describe, expect, it } from 'vitest';
import { pipeline } from './jobFixtures.js';
import { parseJobText } from './jsonText.js';
import { validateJobText } from './validateJob.js';

describe('malformed JSON', () => {
  it('gives one problem with the line and column of the fault', () => {
    const text = '{\n  "format": "pipewright.job/1",\n  "name": "x"\n  "operators": []\n}';
    const { value, problems } = parseJobText(text);
    expect(value).toBeUndefined();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'malformed-json', path: '$', ids: [], line: 4, column: 3 });
    expect(problems[0]!.message).toContain('line 4, column 3');
  });

  it.each([
    ['{"a": 1,}', 1, 9, 'trailing comma'],
    ['[1, 2,\n]', 2, 1, 'trailing comma'],
    ["{'a': 1}", 1, 2, 'property name'],
    ['{"a": "line\nbreak"}', 1, 12, 'line break'],
    ['{"a": tru}', 1, 7, 'expected a value'],
    ['{"a": 01}', 1, 8, 'start with 0'],
    ['{"a": "\\u12"}', 1, 12, 'four hex digits'],
    ['{"a": 1} {}', 1, 10, 'after the end'],
    ['{"a": "\\q"}', 1, 9, 'escape'],
    ['{"a": "open', 1, 12, 'ends inside a string (it opens at line 1, column 7)'],
    ['\r\n\r\n  }', 3, 3, 'expected a value'],
  ])('locates the fault in %j', (text, line, column, words) => {
    const { problems } = parseJobText(text);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'malformed-json', line, column });
    expect(problems[0]!.message).toContain(words);
  });

  it('says when the file is empty', () => {
    const { problems } = parseJobText('  \n');
    expect(problems[0]).toMatchObject({ code: 'malformed-json' });
    expect(problems[0]!.message).toContain('empty');
  });

  it('reads a file that starts with a byte order mark', () => {
    expect(parseJobText(`\uFEFF${JSON.stringify(pipeline())}`)).toEqual({ value: pipeline(), problems: [] });
  });

  it('validateJobText parses and validates', () => {
    expect(validateJobText('{').problems.map((p) => p.code)).toEqual(['malformed-json']);
    expect(validateJobText(JSON.stringify(pipeline())).job?.name).toBe('test');
    expect(validateJobText('{"format": "pipewright.job/1"}').problems.map((p) => p.code)).toEqual([
      'required',
      'required',
    ]);
  });
});
