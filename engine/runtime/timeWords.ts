// How an event time is written in messages and the debugger: an ISO date (UTC) for times that
// look like dates, the number itself for small ones (tests and hand-made inputs count from 0).
const YEAR_2000 = 946_684_800_000;

export function describeTime(timestamp: number): string {
  if (timestamp === Number.POSITIVE_INFINITY) return 'the end of time';
  if (timestamp === Number.NEGATIVE_INFINITY) return 'the start of time';
  if (Math.abs(timestamp) < YEAR_2000 / 2) return String(timestamp);
  return new Date(timestamp).toISOString();
}
