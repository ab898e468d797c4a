// The smallest single replacement that turns one text into another. The code editor applies an
// external change (undo, redo) this way rather than replacing the whole document, so the
// cursor and selection map through it and stay where the user left them.
export interface TextChange {
  readonly from: number;
  readonly to: number;
  readonly insert: string;
}

export function textChange(before: string, after: string): TextChange | undefined {
  if (before === after) return undefined;
  const shorter = Math.min(before.length, after.length);
  let start = 0;
  while (start < shorter && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let endBefore = before.length;
  let endAfter = after.length;
  while (
    endBefore > start &&
    endAfter > start &&
    before.charCodeAt(endBefore - 1) === after.charCodeAt(endAfter - 1)
  ) {
    endBefore--;
    endAfter--;
  }
  return { from: start, to: endBefore, insert: after.slice(start, endAfter) };
}
