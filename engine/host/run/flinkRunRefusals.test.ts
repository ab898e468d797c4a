// What Run on Flink… refuses before anything is built or submitted: each one line saying why.
import { writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { hostSessionPerTest } from '../../../test/hostSession.js';

const session = hostSessionPerTest('pipewright-flink-refusals-');

const job = (extra: object = {}) => ({
  format: 'pipewright.job/1',
  name: 'refused',
  operators: [
    { id: 'in', kind: 'source.jsonl', parallelism: 1, params: { path: 'in.jsonl' } },
    { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
  ],
  edges: [{ id: 'e1', from: 'in', to: 'out', partition: 'forward' }],
  ...extra,
});

const params = (text: object, extra: object = {}) => ({
  text: JSON.stringify(text),
  path: join(session.dir, 'refused.job.json'),
  mode: 'run',
  previewSinks: false,
  trusted: true,
  flink: { cluster: 'http://127.0.0.1:1' },
  ...extra,
});

it('refuses what a run on Flink cannot take, naming it, and sends nothing to a cluster', async () => {
  await writeFile(join(session.dir, 'in.jsonl'), '{"a":1}\n');
  const refused = (extra: object, text: object = job()) => session.failure('run.start', params(text, extra));
  const outside = job({
    operators: [
      { id: 'in', kind: 'source.jsonl', parallelism: 1, params: { path: '/etc/hostname' } },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
    ],
  });
  expect(await refused({ trusted: false }, outside)).toBe(
    'run.start: the job is not trusted, and on Flink it would read /etc/hostname outside its folder (operator "in"): trust it before running it there',
  );
  expect(await refused({ mode: 'debug' })).toBe(
    'run.start: a run on Flink runs in mode "run"; the debugger steps local runs only',
  );
  expect(await refused({ previewSinks: true })).toBe(
    'run.start: a run on Flink writes its sinks; turn preview off to run on Flink',
  );
  expect(await refused({ restore: 'latest' })).toBe(
    'run.start: a run on Flink cannot restart from a local checkpoint yet; run it from the beginning',
  );
  expect(await refused({ flink: { cluster: 'localhost:8081' } })).toBe(
    `run.start: params.flink.cluster must be the cluster's REST address, http://HOST:PORT (got "localhost:8081")`,
  );
  expect(await refused({ flink: { cluster: 'http://h:8081', parallelism: 0 } })).toBe(
    'run.start: params.parallelism must be an integer from 1 to 32768',
  );
  expect(await refused({ flink: { cluster: 'http://h:8081', fromSavepoint: 'sp/savepoint-1' } })).toBe(
    'run.start: params.flink.fromSavepoint must be an absolute path or a URI (got "sp/savepoint-1")',
  );
  // A hash and a rebalance edge into one operator: Flink keys a stream, not an operator.
  const mixed = job({
    operators: [
      { id: 'in', kind: 'source.jsonl', parallelism: 1, params: { path: 'in.jsonl' } },
      {
        id: 'p',
        kind: 'process',
        parallelism: 1,
        params: { code: 'function process(r, ctx) { ctx.emit(r); }' },
      },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
    ],
    edges: [
      { id: 'e1', from: 'in', to: 'p', partition: 'hash', key: 'a' },
      { id: 'e2', from: 'in', to: 'p', partition: 'rebalance' },
      { id: 'e3', from: 'p', to: 'out', partition: 'forward' },
    ],
  });
  expect(await refused({}, mixed)).toMatch(
    /^run\.start: the job cannot run on Flink yet: operator "p": its inputs mix hash edges with edge "e2" \(rebalance\), which Flink cannot key as one stream \(\$\.operators\[1\]\)$/,
  );
  const missing = job({
    operators: [
      { id: 'in', kind: 'source.jsonl', parallelism: 1, params: { path: 'gone.jsonl' } },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
    ],
  });
  expect(await refused({}, missing)).toBe(
    'run.start: operator "in": input file gone.jsonl not found next to the job file ($.operators[0].params.path)',
  );
  // None of them started a run.
  expect(session.eventsOf('run.status')).toEqual([]);
});

/** A port nothing listens on: one just given up. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

it('fails the run with the one line of a cluster that does not answer', async () => {
  await writeFile(join(session.dir, 'in.jsonl'), '{"a":1}\n');
  const cluster = `http://127.0.0.1:${await closedPort()}`;
  const info = await session.result('run.start', params(job(), { flink: { cluster } }) as never);
  const last = await session.ended(info.runId);
  expect(last.status).toBe('failed');
  expect(last.message).toBe(`the Flink cluster at ${cluster} does not answer (ECONNREFUSED)`);
});
