import { describe, expect, it } from 'vitest';
import { edge, expectNames, job, only, sink, source } from './jobFixtures.js';
import { validateJob } from './validateJob.js';

const CODE = 'function keys(r) { return [["accounts", r.from]]; }\nfunction transact(r, tx) { tx.emit(r); }';

const tx = (params: Record<string, unknown>) => ({ id: 'transfers', kind: 'transaction', params });

describe('transaction rules', () => {
  it('a transaction with tables and both functions is valid', () => {
    const { problems } = validateJob(
      job(
        [source('s'), tx({ tables: ['accounts', 'holdings'], code: CODE }), sink('o')],
        [edge('e1', 's', 'transfers'), edge('e2', 'transfers', 'o')],
      ),
    );
    expect(problems).toEqual([]);
  });

  it('a transaction without tables names the operator', () => {
    const problem = only(validateJob(job([tx({ tables: [], code: CODE })])).problems, 'invalid-value');
    expect(problem).toMatchObject({ path: '$.operators[0].params.tables', ids: ['transfers'] });
    expectNames(problem, 'transfers');
    const missing = only(validateJob(job([tx({ code: CODE })])).problems, 'required');
    expect(missing).toMatchObject({ path: '$.operators[0].params.tables', ids: ['transfers'] });
  });

  it('a feedback edge into a transaction is a problem naming the edge and the operator', () => {
    const { problems } = validateJob(
      job(
        [
          source('s'),
          tx({ tables: ['accounts'], code: CODE }),
          { id: 'again', kind: 'process', params: { code: 'function process(r, ctx) { ctx.emit(r); }' } },
        ],
        [
          edge('e1', 's', 'transfers'),
          edge('e2', 'transfers', 'again'),
          edge('back', 'again', 'transfers', { partition: 'hash', key: 'from', feedback: true }),
        ],
      ),
    );
    expect(problems).toEqual([
      {
        code: 'invalid-value',
        message:
          'edge "back": a feedback edge cannot lead into transaction operator "transfers"; its serial order is made from its regular inputs only',
        path: '$.edges[2].feedback',
        ids: ['back', 'transfers'],
      },
    ]);
  });

  it('a table named twice is a problem at the second name', () => {
    const { problems } = validateJob(job([tx({ tables: ['accounts', 'holdings', 'accounts'], code: CODE })]));
    expect(problems).toEqual([
      {
        code: 'invalid-value',
        message:
          'operator "transfers": table "accounts" is named twice in params.tables (tables[0] and tables[2])',
        path: '$.operators[0].params.tables[2]',
        ids: ['transfers'],
      },
    ]);
  });

  it.each([
    ['keys', 'function transact(r, tx) {}'],
    ['transact', 'function keys(r) { return []; }'],
  ])('code lacking %s names the operator and the function', (name, code) => {
    const { problems } = validateJob(job([tx({ tables: ['accounts'], code })]));
    expect(problems).toEqual([
      {
        code: 'missing-function',
        message: `operator "transfers": params.code must define a function named ${name}`,
        path: '$.operators[0].params.code',
        ids: ['transfers'],
      },
    ]);
  });

  it('code lacking both functions gets a problem for each, keys first', () => {
    const { problems } = validateJob(job([tx({ tables: ['accounts'], code: 'function process(r) {}' })]));
    expect(problems.map((p) => p.message)).toEqual([
      'operator "transfers": params.code must define a function named keys',
      'operator "transfers": params.code must define a function named transact',
    ]);
  });

  it('an edge may leave from port "aborted", and from every port tx.emit names', () => {
    const code = `${CODE}\nfunction audit(r, tx) { tx.emit(r, 'large'); }`;
    const { problems } = validateJob(
      job(
        [source('s'), tx({ tables: ['accounts'], code }), sink('o'), sink('rejected'), sink('big')],
        [
          edge('e1', 's', 'transfers'),
          edge('e2', 'transfers', 'o'),
          edge('e3', 'transfers', 'rejected', { fromPort: 'aborted' }),
          edge('e4', 'transfers', 'big', { fromPort: 'large' }),
        ],
      ),
    );
    expect(problems).toEqual([]);
  });

  it('an edge from a port the code never emits to names it, and the ports there are', () => {
    const code = `${CODE.replace('tx.emit(r)', "tx.emit(r, 'large')")}`;
    const { problems } = validateJob(
      job(
        [source('s'), tx({ tables: ['accounts'], code }), sink('o')],
        [edge('e1', 's', 'transfers'), edge('e2', 'transfers', 'o', { fromPort: 'lage' })],
      ),
    );
    expect(only(problems, 'unknown-port').message).toBe(
      'edge "e2" comes from port "lage" of operator "transfers", but its code never emits to it (it emits to "out", "aborted", "large"); did you mean "large"?',
    );
  });
});
