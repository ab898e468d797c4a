// Which cross-thread channels send their records as JSON text: those into an operator that
// writes records as JSON text, and no other.
import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { planJob } from '../graph/plan.js';
import { placeSubtasks } from '../graph/threadPlacement.js';
import { edge, job, processOp, sink, source } from '../graph/validation/jobFixtures.js';
import { validateJob } from '../graph/validation/validateJob.js';
import { OutboundChannel } from '../runtime/threadChannel.js';
import { ThreadLink } from '../runtime/threadLink.js';
import { wire } from './channelWiring.js';

const links: ThreadLink[] = [];
afterEach(() => {
  for (const link of links.splice(0)) link.close();
});

describe('wire', () => {
  it('marks the channels into a sink that writes JSON text, on the thread that sends them', () => {
    const { job: valid, problems } = validateJob(
      job(
        [source('src'), processOp('acc', undefined, { parallelism: 2 }), sink('out')],
        [edge('e1', 'src', 'acc', { partition: 'hash', key: 'k' }), edge('e2', 'acc', 'out')],
      ),
    );
    expect(problems).toEqual([]);
    const plan = planJob(valid!);
    // src and acc#1 on thread 0, acc#0 and out on thread 1 (threadPlacement.test.ts).
    const placement = placeSubtasks(plan, 2);
    const { port1 } = new MessageChannel();
    const link = new ThreadLink(port1, () => {});
    links.push(link);
    const wiring = wire(plan, { placement, thread: 0, link: () => link }, (id) => id === 'out');
    const [toAcc] = plan.byId.get('src')!.outputs.get('out')!;
    const [toOut] = plan.byId.get('acc')!.outputs.get('out')!;
    const fromSource = wiring.outputsOf(toAcc!, 0);
    const fromAcc1 = wiring.outputsOf(toOut!, 1);
    expect(fromSource.map((c) => c instanceof OutboundChannel && c.sendsJsonText)).toEqual([false, false]);
    expect(fromAcc1[0]).toBeInstanceOf(OutboundChannel);
    expect((fromAcc1[0] as OutboundChannel).sendsJsonText).toBe(true);
    const unmarked = wire(plan, { placement, thread: 0, link: () => link });
    expect((unmarked.outputsOf(toOut!, 1)[0] as OutboundChannel).sendsJsonText).toBe(false);
  });
});
