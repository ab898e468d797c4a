// A record as a Kafka message: its key from keyField (a string as it is, anything else as JSON
// text; none when the field is missing), its value as JSON (format "json") or, for format
// "string", a string as it is and anything else as JSON text.
import type { ParamsOf } from '../../../graph/schema.js';

export interface KafkaMessage {
  readonly topic: string;
  readonly key: Buffer | undefined;
  readonly value: Buffer;
}

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError(`the record is not a JSON value (${typeof value})`);
  return json;
}

export class KafkaRecordEncoder {
  private readonly keyPath: readonly string[] | undefined;
  private readonly asString: boolean;

  constructor(private readonly params: ParamsOf<'sink.kafka'>) {
    this.keyPath = params.keyField?.split('.');
    this.asString = params.format === 'string';
  }

  encode(record: unknown): KafkaMessage {
    const value = this.asString ? text(record) : JSON.stringify(record);
    if (value === undefined) throw new TypeError(`the record is not a JSON value (${typeof record})`);
    return { topic: this.params.topic, key: this.key(record), value: Buffer.from(value, 'utf8') };
  }

  private key(record: unknown): Buffer | undefined {
    if (this.keyPath === undefined) return undefined;
    let value = record;
    for (const field of this.keyPath) {
      if (value === null || typeof value !== 'object') return undefined;
      value = (value as Record<string, unknown>)[field];
    }
    return value === undefined || value === null ? undefined : Buffer.from(text(value), 'utf8');
  }
}
