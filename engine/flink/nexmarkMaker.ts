// source.nexmark for the Flink runner (flink/PROTOCOL.md, "A source in the worker"): the runner's
// source reader asks for events by number and this answers with the local engine's own
// generator (operators/nexmark), so every record, its text and its time are the local ones,
// byte for byte, whichever engine makes them.

import type { ParamsOf } from '../graph/schema.js';
import { EventRandom } from '../operators/nexmark/eventRandom.js';
import { nexmarkEvent } from '../operators/nexmark/nexmarkEvent.js';
import { nexmarkConfigOf } from '../operators/sourceNexmark.js';
import type { MadeMessage, MakeMessage, OpenMessage } from './pipeMessages.js';

export class NexmarkMaker {
  private readonly random = new EventRandom();

  private constructor(private readonly config: ReturnType<typeof nexmarkConfigOf>) {}

  static open(open: OpenMessage): NexmarkMaker {
    return new NexmarkMaker(nexmarkConfigOf(open.operator.params as ParamsOf<'source.nexmark'>));
  }

  /** Events next, next + stride, … (`count` of them), each as its JSON text, with its time. */
  make(request: MakeMessage): MadeMessage {
    const records: string[] = [];
    const times: number[] = [];
    for (let i = 0, n = request.next; i < request.count; i++, n += request.stride) {
      const event = nexmarkEvent(this.config, n, this.random);
      records.push(JSON.stringify(event));
      times.push(event.dateTime);
    }
    return { t: 'made', records, times };
  }
}
