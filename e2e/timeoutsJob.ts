// The event-time job the designer's e2e tests open: a JSON Lines source with event time, a keyed
// `process` whose code sets timers, a sink. Each test gives its own code and out-of-orderness.

export function timeoutsJob(
  code: string,
  maxOutOfOrdernessMs: number,
  settings: Record<string, unknown> = {},
) {
  return {
    format: 'pipewright.job/1',
    name: 'timeouts',
    settings: { stateBackend: 'level', ...settings },
    operators: [
      {
        id: 'events',
        kind: 'source.jsonl',
        parallelism: 1,
        params: { path: 'events.jsonl', timestampField: 'ts', maxOutOfOrdernessMs },
      },
      { id: 'timeouts', kind: 'process', parallelism: 2, params: { code } },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out/timeouts.jsonl' } },
    ],
    edges: [
      { id: 'events-to-timeouts', from: 'events', to: 'timeouts', partition: 'hash', key: 'k' },
      { id: 'timeouts-to-out', from: 'timeouts', to: 'out', partition: 'rebalance' },
    ],
  };
}
