// A record that came from another thread as the JSON text its producer made of it, for a
// consumer that writes records as JSON text (sink.jsonl): decoding it and encoding it again
// would only give the same text back. Its value is parsed only if something asks for it.
import type { Envelope } from './envelope.js';
import type { RecordSource } from './recordSource.js';

export class JsonTextEnvelope implements Envelope {
  readonly type = 'record';
  private parsed: unknown;
  private isParsed = false;

  constructor(
    /** JSON.stringify of the value, as the producer made it: the text its consumer writes. */
    readonly text: string,
    readonly key: unknown,
    readonly keyGroup: number,
    readonly timestamp: number | undefined,
    readonly source: RecordSource | undefined,
    readonly position: number,
  ) {}

  get value(): unknown {
    if (!this.isParsed) {
      this.parsed = JSON.parse(this.text);
      this.isParsed = true;
    }
    return this.parsed;
  }
}
