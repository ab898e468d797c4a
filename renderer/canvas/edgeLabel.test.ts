import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planJob, validateJob } from '../../engine/graph/index.js';
import { edgeAriaLabel, edgeLabelText, partitionText } from './edgeLabel';

describe('edge labels', () => {
  it('names each partitioning as a user would write it', () => {
    expect(partitionText({ partition: 'forward' })).toBe('forward');
    expect(partitionText({ partition: 'rebalance' })).toBe('rebalance');
    expect(partitionText({ partition: 'broadcast' })).toBe('broadcast');
    expect(partitionText({ partition: 'hash', key: 'owner' })).toBe('hash(owner)');
    expect(partitionText({ partition: 'hash', key: ['a', 'item.b'] })).toBe('hash(a, item.b)');
  });

  it('shows what a malformed edge has instead of failing', () => {
    expect(partitionText({ partition: 'hash' })).toBe('hash(?)');
    expect(partitionText({ partition: 'hash', key: [] })).toBe('hash(?)');
    expect(partitionText({ partition: 'hash', key: [1, 'a'] })).toBe('hash(1, a)');
    expect(partitionText({})).toBe('no partition');
    expect(partitionText({ partition: 7 })).toBe('7');
    expect(partitionText({ partition: 'shuffle' })).toBe('shuffle');
  });

  it('puts a side output’s port before the partitioning', () => {
    expect(edgeLabelText({ fromPort: 'transfer', partition: 'hash', key: 'to' })).toBe('transfer → hash(to)');
    expect(edgeLabelText({ fromPort: 'out', partition: 'forward' })).toBe('forward');
    expect(edgeLabelText({ partition: 'forward' })).toBe('forward');
  });

  it('says which edge it is, between what, how it is partitioned and whether it is a feedback edge', () => {
    const e2 = {
      id: 'e2',
      from: 'owners',
      fromPort: 'transfer',
      to: 'owners',
      partition: 'hash',
      key: 'to',
      feedback: true,
    };
    expect(edgeAriaLabel(e2)).toBe('Edge e2 from owners to owners, hash(to), feedback');
    expect(edgeAriaLabel({ id: 'e1', from: 'a', to: 'b', partition: 'forward' })).toBe(
      'Edge e1 from a to b, forward',
    );
    expect(edgeAriaLabel({ from: 1 })).toBe('Edge (no id) from ? to ?, no partition');
  });
});

describe('an edge into a transaction', () => {
  it('is labelled as the planner runs it: broadcast, whatever the file says; a feedback edge keeps its own', () => {
    const ledger = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../assets/examples/ledger/ledger.job.json'), 'utf8'),
    );
    const plan = planJob(validateJob(ledger).job!);
    const into = ledger.edges.find((e: { to: string }) => e.to === 'ledger');
    expect(into.partition).toBe('rebalance');
    const planned = plan.byId.get('ledger')!.inputs.find((e) => e.id === into.id)!;
    expect(edgeLabelText(into, 'transaction')).toBe(planned.partition);
    expect(edgeLabelText({ ...into, fromPort: 'late' }, 'transaction')).toBe('late → broadcast');
    expect(edgeAriaLabel(into, 'transaction')).toBe(
      'Edge transfers-to-ledger from transfers to ledger, broadcast',
    );
    expect(edgeLabelText({ partition: 'hash', key: 'k', feedback: true }, 'transaction')).toBe('hash(k)');
    expect(edgeLabelText(into, 'process')).toBe('rebalance');
  });
});
