// `pipewright flink`: what it refuses before any JVM starts (issue 28): one line per kind, param
// or edge the runner cannot run yet, naming it; usage errors as the other commands say them. And
// the plan a cluster gets (a stand-in for its REST API): nothing in it of this checkout.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyExample, describeRun, removeTempDirs, repoRoot, runCli } from './cliHarness.js';

afterAll(removeTempDirs);

describe('pipewright flink, refused before it starts', () => {
  it('prints its own usage', async () => {
    const result = await runCli(['flink', '--help']);
    expect(result.code, describeRun(result)).toBe(0);
    expect(result.stdout).toMatch(
      /^Usage: pipewright flink JOB\.job\.json \[--cluster URL\] \[--parallelism N\]/,
    );
    const all = await runCli(['--help']);
    expect(all.stdout).toContain('pipewright flink JOB.job.json');
  });

  it('takes --parallelism as a whole number only, --cluster as an address, --savepoint-dir with it', async () => {
    const result = await runCli(['flink', 'x.job.json', '--parallelism', '0']);
    expect(result.code, describeRun(result)).toBe(2);
    expect(result.stderr).toContain(
      'pipewright: --parallelism takes a whole number of subtasks, 1 or more, not "0"',
    );
    const cluster = await runCli(['flink', 'x.job.json', '--cluster', 'localhost:8081']);
    expect(cluster.code, describeRun(cluster)).toBe(2);
    expect(cluster.stderr).toContain(
      `pipewright: --cluster takes the cluster's REST address, as http://HOST:PORT, not "localhost:8081"`,
    );
    const savepoints = await runCli(['flink', 'x.job.json', '--savepoint-dir', 'sp']);
    expect(savepoints.code, describeRun(savepoints)).toBe(2);
    expect(savepoints.stderr).toContain(
      'pipewright: --savepoint-dir is for a run on a cluster (--cluster URL)',
    );
  });

  it('says in one line that a cluster does not answer', async () => {
    const copy = await copyExample('word-count');
    // A port nothing listens on: one taken from the system, then let go.
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    const result = await runCli(['flink', copy.jobPath, '--cluster', `http://127.0.0.1:${port}`, '--quiet'], {
      timeoutMs: 600_000,
      idleMs: 600_000,
    });
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stderr.trim()).toBe(
      `pipewright: the Flink cluster at http://127.0.0.1:${port} does not answer (ECONNREFUSED)`,
    );
  });

  it("sends a cluster a plan naming the jar's worker and node from the PATH, nothing of this checkout", async () => {
    const copy = await copyExample('word-count');
    // A stand-in for a cluster's REST API: it takes the jar, keeps the run's arguments, refuses to run.
    let runBody: { entryClass?: string; programArgsList?: string[] } | undefined;
    const server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const answer = (status: number, body: unknown) => {
          response.writeHead(status, { 'content-type': 'application/json' });
          response.end(JSON.stringify(body));
        };
        const url = request.url ?? '';
        if (url === '/config') answer(200, { 'flink-version': '2.3.0' });
        else if (url === '/jars') answer(200, { files: [] });
        else if (url === '/jars/upload') answer(200, { filename: '/tmp/flink-web/abc_runner.jar' });
        else if (url.endsWith('/run')) {
          runBody = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          answer(400, { errors: ['a stand-in cluster runs nothing'] });
        } else answer(404, { errors: ['not found'] });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const result = await runCli(
        ['flink', copy.jobPath, '--cluster', `http://127.0.0.1:${port}`, '--quiet'],
        {
          timeoutMs: 600_000,
          idleMs: 600_000,
        },
      );
      expect(result.code, describeRun(result)).toBe(1);
      expect(result.stderr).toContain('a stand-in cluster runs nothing');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(runBody?.entryClass).toBe('dev.pipewright.flink.Runner');
    const args = runBody?.programArgsList ?? [];
    expect(args[0]).toBe('--plan-base64');
    const planText = Buffer.from(args[1] ?? '', 'base64').toString('utf8');
    const plan = JSON.parse(planText) as { worker: { command: string[] } };
    expect(plan.worker.command).toEqual(['node', '{worker}']);
    // The job's own files are named by their paths; the checkout and the CLI's node are not.
    expect(planText).not.toContain(path.join(repoRoot, 'dist'));
    expect(planText).not.toContain(process.execPath);
    expect(planText).not.toContain('flinkWorker');
  });

  it('refuses a second loop head and a transaction, one line each naming it, and leaves nothing behind', async () => {
    const loop = await copyExample('owner-has-items');
    const job = JSON.parse(await readFile(loop.jobPath, 'utf8'));
    // A second copy of the loop after the first: two loop head operators in one job.
    const owners = job.operators.find((o: { id: string }) => o.id === 'owners');
    job.operators.push({ ...owners, id: 'owners2' });
    job.edges.push(
      { id: 'owners-to-owners2', from: 'owners', to: 'owners2', partition: 'hash', key: 'owner' },
      {
        id: 'transfer2',
        from: 'owners2',
        fromPort: 'transfer',
        to: 'owners2',
        partition: 'hash',
        key: 'owner',
        feedback: true,
      },
    );
    await writeFile(loop.jobPath, JSON.stringify(job));
    const result = await runCli(['flink', loop.jobPath]);
    expect(result.code, describeRun(result)).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^pipewright: .*owner-has-items\.job\.json: operator "owners2": a second loop head \(after "owners"\) cannot run on Flink yet/,
    );
    expect(existsSync(path.join(loop.dir, '.pipewright'))).toBe(false);

    const ledger = await copyExample('ledger');
    const refused = await runCli(['flink', ledger.jobPath]);
    expect(refused.code, describeRun(refused)).toBe(1);
    expect(refused.stderr).toContain('operator "ledger": transaction cannot run on Flink yet');
  });

  it('refuses a missing input file before building anything', async () => {
    const copy = await copyExample('word-count');
    const job = JSON.parse(await readFile(copy.jobPath, 'utf8'));
    job.operators[0].params.path = 'nowhere.jsonl';
    await writeFile(copy.jobPath, JSON.stringify(job));
    const result = await runCli(['flink', copy.jobPath]);
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/nowhere\.jsonl/);
  });
});
