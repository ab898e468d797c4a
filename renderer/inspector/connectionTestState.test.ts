import { describe, expect, it } from 'vitest';
import {
  answered,
  askedKey,
  type ConnectionTestState,
  connectionTestNote,
  failedRequest,
} from './connectionTestState';

const idle: ConnectionTestState = { phase: 'idle' };
const key = askedKey('events', 'source.redis', { url: '${env:REDIS_URL}', stream: 'a' });

describe('connectionTestNote', () => {
  it('says nothing before a test, that it is testing, then the answer with its tone', () => {
    expect(connectionTestNote(idle, key)).toBeUndefined();
    const testing: ConnectionTestState = { phase: 'testing', asked: key };
    expect(connectionTestNote(testing, key)).toEqual({ tone: 'testing', text: 'Testing the connection…' });
    const done = answered(testing, key, {
      outcome: 'failed',
      message: 'Redis at 127.0.0.1:1 does not answer',
    });
    expect(connectionTestNote(done, key)).toEqual({
      tone: 'failed',
      text: 'Redis at 127.0.0.1:1 does not answer',
    });
    const none = answered(testing, key, { outcome: 'none', message: 'this kind has no connection test' });
    expect(connectionTestNote(none, key)?.tone).toBe('none');
  });

  it('drops an answer once the params, kind or operator it was about have changed', () => {
    const done = answered({ phase: 'testing', asked: key }, key, { outcome: 'ok', message: 'answers' });
    expect(connectionTestNote(done, key)).toEqual({ tone: 'ok', text: 'answers' });
    expect(
      connectionTestNote(done, askedKey('events', 'source.redis', { url: 'x', stream: 'a' })),
    ).toBeUndefined();
    expect(
      connectionTestNote(done, askedKey('other', 'source.redis', { url: '${env:REDIS_URL}', stream: 'a' })),
    ).toBeUndefined();
  });

  it('keeps a later question when an earlier answer arrives', () => {
    const later = askedKey('events', 'source.redis', { url: 'redis://h:1', stream: 'a' });
    const testing: ConnectionTestState = { phase: 'testing', asked: later };
    expect(answered(testing, key, { outcome: 'ok', message: 'old' })).toBe(testing);
  });

  it('turns a request the host could not answer into a failed test saying why', () => {
    expect(failedRequest(new Error('connection.test: the engine host disconnected (closed)'))).toEqual({
      outcome: 'failed',
      message: 'connection.test: the engine host disconnected (closed)',
    });
  });
});
