// Numbers as the run panels show them: sizes in binary units, durations in ms or s, rates
// with at most one decimal, times of day to the millisecond (checkpoints are often < 1 s apart).
import { countText } from '../../engine/graph/index.js';

export function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined || !Number.isFinite(bytes)) return '—';
  if (Math.abs(bytes) < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

export function formatMs(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

export function formatRate(perSec: number | undefined): string {
  if (perSec === undefined || !Number.isFinite(perSec)) return '—';
  if (perSec >= 100) return `${countText(Math.round(perSec))}/s`;
  return `${Number(perSec.toFixed(1))}/s`;
}

export function formatCount(n: number | undefined): string {
  return n === undefined || !Number.isFinite(n) ? '—' : countText(n);
}

/** "14:03:07.250" in local time; the ISO text itself when it does not parse. */
export function formatTimeOfDay(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}
