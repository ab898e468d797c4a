// What a terminal shows after it has been sent some output: enough of a VT100 for what the CLI
// and npm write (text, CR, LF, cursor up to a line's start, erase line and erase below,
// cursor to a column), and line wrapping at the terminal's width. Other escapes are ignored.
// Returns the screen's lines, a line wrapped over several rows joined again.
const ESC = '\x1b';

export function screenOf(output: string, columns = 80): string[] {
  const rows: string[][] = [[]];
  /** Rows whose text went on in the next row (wrapped, not a new line). */
  const wrapped = new Set<number>();
  let row = 0;
  let col = 0;
  const line = () => {
    while (rows.length <= row) rows.push([]);
    return rows[row]!;
  };
  let i = 0;
  while (i < output.length) {
    const ch = output[i]!;
    if (ch === ESC) {
      // The escape itself is checked above: a regex may not hold control characters.
      const csi = output[i + 1] === '[' ? /^\[([?0-9;]*)([A-Za-z])/.exec(output.slice(i + 1)) : null;
      if (csi === null) {
        i++;
        continue;
      }
      const n = Number.parseInt(csi[1] || '1', 10) || 1;
      switch (csi[2]) {
        case 'F':
          row = Math.max(0, row - n);
          col = 0;
          break;
        case 'G':
          col = n - 1;
          break;
        case 'K':
          wrapped.delete(row);
          line().length = Math.min(line().length, col);
          break;
        case 'J':
          for (const r of wrapped) if (r >= row) wrapped.delete(r);
          line().length = Math.min(line().length, col);
          rows.length = row + 1;
          break;
      }
      i += 1 + csi[0].length;
      continue;
    }
    if (ch === '\r') col = 0;
    else if (ch === '\n') row++;
    else if (ch >= ' ') {
      if (col >= columns) {
        wrapped.add(row);
        row++;
        col = 0;
      }
      const cells = line();
      while (cells.length < col) cells.push(' ');
      cells[col] = ch;
      col++;
    }
    i++;
  }
  const lines: string[] = [];
  rows.forEach((cells, r) => {
    const text = cells.join('');
    if (wrapped.has(r - 1) && lines.length > 0) lines[lines.length - 1] += text;
    else lines.push(text);
  });
  return lines.map((text) => text.trimEnd());
}
