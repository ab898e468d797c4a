import { describe, expect, it } from 'vitest';
import { formatBytes, formatCount, formatMs, formatRate, formatTimeOfDay } from './units';

describe('units', () => {
  it('formats sizes in binary units', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(200 * 1024)).toBe('200 KiB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.0 GiB');
    expect(formatBytes(undefined)).toBe('—');
  });

  it('formats durations', () => {
    expect(formatMs(12.4)).toBe('12 ms');
    expect(formatMs(1250)).toBe('1.25 s');
    expect(formatMs(61_000)).toBe('61.0 s');
    expect(formatMs(undefined)).toBe('—');
  });

  it('formats rates and counts', () => {
    expect(formatRate(0)).toBe('0/s');
    expect(formatRate(2.345)).toBe('2.3/s');
    expect(formatRate(12345.6)).toBe('12,346/s');
    expect(formatCount(1234567)).toBe('1,234,567');
  });

  it('formats a time of day to the millisecond, or gives back what does not parse', () => {
    const at = new Date(2026, 0, 2, 3, 4, 5, 67);
    expect(formatTimeOfDay(at.toISOString())).toBe('03:04:05.067');
    expect(formatTimeOfDay('not a time')).toBe('not a time');
  });
});
