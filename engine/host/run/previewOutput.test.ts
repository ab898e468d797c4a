import { describe, expect, it } from 'vitest';
import type { RunEvents } from '../../protocol/runProtocol.js';
import { PREVIEW_BATCH, PreviewOutput } from './previewOutput.js';

describe('PreviewOutput', () => {
  it('sends the last PREVIEW_BATCH records of an interval, counts the rest before them, and each sink’s total', () => {
    const sent: RunEvents['run.output'][] = [];
    const preview = new PreviewOutput('r1', (event) => sent.push(event));
    const many = 2 * PREVIEW_BATCH + 200;
    for (let i = 0; i < many; i++) preview.receive('out', 0, i);
    preview.receive('side', 1, 'x');
    preview.flush();
    expect(sent).toEqual([
      {
        runId: 'r1',
        operator: 'out',
        records: Array.from({ length: PREVIEW_BATCH }, (_, k) => many - PREVIEW_BATCH + k),
        dropped: many - PREVIEW_BATCH,
        total: many,
      },
      { runId: 'r1', operator: 'side', records: ['x'], total: 1 },
    ]);
    // The first record shown is number total - records.length + 1 of its sink (see 'run.output').
    expect(sent[0]!.total - sent[0]!.records.length + 1).toBe(many - PREVIEW_BATCH + 1);

    sent.length = 0;
    preview.receive('out', 0, 'next');
    preview.flush();
    expect(sent).toEqual([{ runId: 'r1', operator: 'out', records: ['next'], total: many + 1 }]);
  });
});
