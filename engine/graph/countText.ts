// Whole numbers as people read them: "20,001". Not toLocaleString: once SES has locked a
// process down (the engine and CLI always are) it ignores the locale and gives "20001". One
// formatter, made on first use (making it loads ICU's data: ~10 ms of a run's start), because
// toLocaleString builds a formatter on each call (~600 ms of a 5 s profile of the State panel
// at 500 operators).
let grouped: Intl.NumberFormat | undefined;

export function countText(n: number): string {
  grouped ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
  return grouped.format(n);
}
