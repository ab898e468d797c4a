// The `bounce` loop job, for the loop tests on both engines (test/loopCheckpoint.test.ts locally,
// test/flinkLoops.test.ts on Flink): records of 97 keys go round a `process` at parallelism 3 by a
// feedback edge 5 to 15 times each, their key and path changing each round. A record's output
// line depends only on the record, so the expected lines do not depend on delivery order.

export interface BounceOptions {
  /** Records the generator makes. */
  readonly count: number;
  /** The job's settings (checkpoint interval, retention, key groups). */
  readonly settings: Record<string, unknown>;
  /** The generator's pace; absent: as fast as it goes. */
  readonly ratePerSec?: number;
  /** Each line also says `came`: the edge (ctx.input) its last round came by. */
  readonly withInput?: boolean;
}

export function bounceJob({ count, settings, ratePerSec, withInput = false }: BounceOptions) {
  const came = withInput ? ', came: ctx.input' : '';
  return {
    format: 'pipewright.job/1',
    name: 'bounce',
    settings,
    operators: [
      {
        id: 'gen',
        kind: 'source.generator',
        params: {
          code: 'function generate(i) { return { id: i, k: i % 97, hops: 5 + (i % 11), path: 0 }; }',
          count,
          ...(ratePerSec === undefined ? {} : { ratePerSec }),
        },
      },
      {
        id: 'bounce',
        kind: 'process',
        parallelism: 3,
        params: {
          code: `function process(r, ctx) {
  const seen = ctx.state.value('seen');
  seen.set((seen.get() ?? 0) + 1);
  if (r.hops > 0) ctx.emit({ id: r.id, k: (r.k * 31 + 7) % 97, hops: r.hops - 1, path: r.path * 3 + r.k${came} }, 'again');
  else ctx.emit({ id: r.id, path: r.path${came} });
}`,
        },
      },
      { id: 'out', kind: 'sink.jsonl', params: { path: 'out.jsonl' } },
    ],
    edges: [
      { id: 'in', from: 'gen', to: 'bounce', partition: 'hash', key: 'k' },
      {
        id: 'again',
        from: 'bounce',
        fromPort: 'again',
        to: 'bounce',
        partition: 'hash',
        key: 'k',
        feedback: true,
      },
      { id: 'done', from: 'bounce', to: 'out', partition: 'rebalance' },
    ],
  };
}

/** Each record's line, sorted: its path after its hops (and, withInput, the feedback edge). */
export function expectedBounce(count: number, withInput = false): string[] {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    let k = i % 97;
    let path = 0;
    for (let hops = 5 + (i % 11); hops > 0; hops--) {
      path = path * 3 + k;
      k = (k * 31 + 7) % 97;
    }
    lines.push(JSON.stringify(withInput ? { id: i, path, came: 'again' } : { id: i, path }));
  }
  return lines.sort();
}
