import { describe, expect, it } from 'vitest';
import type { RunMetricsEvent, SubtaskLive } from '../../engine/protocol/protocol.js';
import {
  eventTimeTitle,
  formatEventTime,
  formatLag,
  keyTimerLines,
  timerLine,
  watermarkedSubtasks,
  watermarkRows,
} from './eventTime';

const NOON = Date.UTC(2024, 2, 1, 12, 0, 0);

describe('event times', () => {
  it('are UTC times of day, with milliseconds only when there are some', () => {
    expect(formatEventTime(NOON + 5250, NOON)).toBe('12:00:05.250');
    expect(formatEventTime(NOON + 10_000, NOON)).toBe('12:00:10');
    expect(formatEventTime(NOON + 7, NOON)).toBe('12:00:00.007');
  });

  it('say the date when it is not the day of `now` (in UTC)', () => {
    expect(formatEventTime(NOON + 5250, NOON + 86_400_000)).toBe('2024-03-01 12:00:05.250');
    expect(formatEventTime(Date.UTC(1999, 11, 31, 23, 59, 59), NOON)).toBe('1999-12-31 23:59:59');
  });

  it('are milliseconds when near 0, negative ones too (a counter, not a date)', () => {
    expect(formatEventTime(0, NOON)).toBe('0 ms');
    expect(formatEventTime(5250, NOON)).toBe('5,250 ms');
    expect(formatEventTime(-1000, NOON)).toBe('-1,000 ms');
    expect(formatEventTime(undefined, NOON)).toBe('—');
  });

  it('give the exact value in a title', () => {
    expect(eventTimeTitle(NOON + 5250)).toBe('2024-03-01T12:00:05.250Z (1709294405250 ms since the epoch)');
  });

  it('name a timer with its domain', () => {
    expect(timerLine('eventTime', NOON + 10_000, NOON)).toBe('event-time timer 12:00:10');
    expect(timerLine('processingTime', 3000, NOON)).toBe('processing-time timer 3,000 ms');
  });
});

describe('lags', () => {
  it('are ms, s, then minutes and hours', () => {
    expect(formatLag(0)).toBe('0 ms');
    expect(formatLag(250)).toBe('250 ms');
    expect(formatLag(2500)).toBe('2.50 s');
    expect(formatLag(59_000)).toBe('59.0 s');
    expect(formatLag(185_000)).toBe('3 min 05 s');
    expect(formatLag(2 * 3_600_000 + 60_000)).toBe('2 h 01 min');
    expect(formatLag(undefined)).toBe('—');
  });
});

const sub = (subtask: number, more: Partial<SubtaskLive> = {}): SubtaskLive => ({
  subtask,
  recordsIn: 0,
  recordsOut: 0,
  queued: 0,
  keyGroups: [0, 127],
  ...more,
});

const event = (...operators: [string, SubtaskLive[]][]): RunMetricsEvent => ({
  runId: 'r',
  elapsedMs: 1000,
  operators: operators.map(([id, subtasks]) => ({ id, recordsIn: 0, recordsOut: 0, subtasks })),
  edges: [],
});

describe('watermark rows', () => {
  it('list every operator with a watermark, each subtask in order, and none for a job without event time', () => {
    const first = event(
      ['events', [sub(0, { watermark: NOON, watermarkLagMs: 500 })]],
      ['windows', [sub(1, { watermark: NOON - 100, watermarkLagMs: 600 }), sub(0)]],
      ['plain', [sub(0)]],
    );
    const seen = watermarkedSubtasks(new Set(), first);
    expect([...seen].sort()).toEqual(['events/0', 'windows/1']);
    expect(watermarkRows(first, seen)).toEqual([
      { operator: 'events', subtasks: [{ subtask: 0, watermark: NOON, lagMs: 500, ended: false }] },
      {
        operator: 'windows',
        subtasks: [
          { subtask: 0, watermark: undefined, lagMs: undefined, ended: false },
          { subtask: 1, watermark: NOON - 100, lagMs: 600, ended: false },
        ],
      },
    ]);
    expect(watermarkRows(event(['plain', [sub(0)]]), new Set())).toEqual([]);
  });

  it('say a subtask that had a watermark and has none now has seen its input end', () => {
    const first = event(['windows', [sub(0, { watermark: NOON, watermarkLagMs: 0 })]]);
    const seen = watermarkedSubtasks(new Set(), first);
    const ended = event(['windows', [sub(0, { watermarkLagMs: 5 })]]);
    expect(watermarkedSubtasks(seen, ended)).toBe(seen);
    expect(watermarkRows(ended, seen)).toEqual([
      {
        operator: 'windows',
        subtasks: [{ subtask: 0, watermark: undefined, lagMs: undefined, ended: true }],
      },
    ]);
  });
});

describe("a key's timers in the state browser", () => {
  it('are counted, then listed one a line, saying how many more there are', () => {
    expect(
      keyTimerLines(
        {
          key: 'o7',
          count: 2,
          timers: [
            { domain: 'eventTime', timestamp: NOON + 10_000 },
            { domain: 'processingTime', timestamp: NOON + 250 },
          ],
        },
        NOON,
      ),
    ).toEqual({
      count: '2 timers',
      lines: ['event-time timer 12:00:10', 'processing-time timer 12:00:00.250'],
    });
    expect(
      keyTimerLines({ key: 'o7', count: 1, timers: [{ domain: 'eventTime', timestamp: 5 }] }, NOON),
    ).toEqual({
      count: '1 timer',
      lines: ['event-time timer 5 ms'],
    });
    const many = {
      key: 'o7',
      count: 1999,
      atLeast: true,
      timers: [{ domain: 'eventTime' as const, timestamp: NOON }],
    };
    expect(keyTimerLines(many, NOON)).toEqual({
      count: 'at least 1,999 timers',
      lines: ['event-time timer 12:00:00', '… and at least 1,998 more'],
    });
  });
});
