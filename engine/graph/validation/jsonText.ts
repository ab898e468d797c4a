// Malformed JSON: where a job file's text stops being JSON, in the same words on every engine.
import type { Problem } from '../problem.js';
import { quote } from './valueWords.js';

interface JsonFault {
  readonly offset: number;
  readonly reason: string;
}

class JsonStop {
  constructor(readonly fault: JsonFault) {}
}

// JSON.parse says where it failed only in some engines and some versions, and in words that
// differ between them; this scanner finds the first offending character the same way
// everywhere and says what was expected there.
function locateJsonFault(text: string): JsonFault | undefined {
  let i = 0;
  const stop = (reason: string, offset = i): never => {
    throw new JsonStop({ offset, reason });
  };
  const found = (): string => (i >= text.length ? 'the end of the file' : quote(text[i]!));
  const skipSpace = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const string = (): void => {
    const start = i;
    i++;
    for (;;) {
      if (i >= text.length) {
        const opened = lineAndColumn(text, start);
        stop(`the file ends inside a string (it opens at line ${opened.line}, column ${opened.column})`);
      }
      const c = text[i]!;
      if (c === '"') {
        i++;
        return;
      }
      if (c === '\\') {
        i++;
        const escaped = text[i];
        if (escaped === 'u') {
          for (let k = 1; k <= 4; k++) {
            if (!/[0-9a-fA-F]/.test(text[i + k] ?? ''))
              stop('\\u must be followed by four hex digits', i + k);
          }
          i += 5;
        } else if (escaped !== undefined && '"\\/bfnrt'.includes(escaped)) i++;
        else stop(`${quote(`\\${escaped ?? ''}`)} is not a JSON escape`);
        continue;
      }
      if (c < ' ')
        stop('a line break or control character inside a string (write it as an escape such as \\n)');
      i++;
    }
  };
  const digits = (what: string): void => {
    if (!/[0-9]/.test(text[i] ?? '')) stop(`${what}, found ${found()}`);
    while (/[0-9]/.test(text[i] ?? '')) i++;
  };
  const number = (): void => {
    if (text[i] === '-') i++;
    if (text[i] === '0') {
      i++;
      if (/[0-9]/.test(text[i] ?? '')) stop('a number cannot start with 0 (write 1, not 01)');
    } else digits('expected a digit');
    if (text[i] === '.') {
      i++;
      digits('expected a digit after the decimal point');
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      digits('expected a digit in the exponent');
    }
  };
  const value = (closer?: string): void => {
    skipSpace();
    const c = text[i];
    if (c === undefined) stop('the file ends where a value is expected');
    else if (c === '{') object();
    else if (c === '[') array();
    else if (c === '"') string();
    else if (c === '-' || (c >= '0' && c <= '9')) number();
    else if (text.startsWith('true', i)) i += 4;
    else if (text.startsWith('false', i)) i += 5;
    else if (text.startsWith('null', i)) i += 4;
    else if (c === closer) stop(`a trailing comma before ${quote(c)} is not allowed in JSON`);
    else if (c === "'") stop('strings must be in double quotes');
    else stop(`expected a value, found ${found()}`);
  };
  const object = (): void => {
    i++;
    skipSpace();
    if (text[i] === '}') {
      i++;
      return;
    }
    for (;;) {
      skipSpace();
      if (text[i] === '}') stop('a trailing comma before "}" is not allowed in JSON');
      if (text[i] !== '"') stop(`expected a property name in double quotes, found ${found()}`);
      string();
      skipSpace();
      if (text[i] !== ':') stop(`expected ":" after the property name, found ${found()}`);
      i++;
      value();
      skipSpace();
      if (text[i] === ',') i++;
      else if (text[i] === '}') {
        i++;
        return;
      } else stop(`expected "," or "}" after a property value, found ${found()}`);
    }
  };
  const array = (): void => {
    i++;
    skipSpace();
    if (text[i] === ']') {
      i++;
      return;
    }
    for (;;) {
      value(']');
      skipSpace();
      if (text[i] === ',') i++;
      else if (text[i] === ']') {
        i++;
        return;
      } else stop(`expected "," or "]" after an array element, found ${found()}`);
    }
  };
  try {
    value();
    skipSpace();
    if (i < text.length) stop(`unexpected ${found()} after the end of the JSON value`);
    return undefined;
  } catch (error) {
    if (error instanceof JsonStop) return error.fault;
    // Nesting deep enough to exhaust the stack: fall back to the engine's own report.
    return undefined;
  }
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    const c = text[i];
    if (c === '\n' || (c === '\r' && text[i + 1] !== '\n')) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

// V8 before Node 22: "... in JSON at position 12"; V8 since: "... (line 2 column 5)";
// SpiderMonkey: "JSON.parse: ... at line 2 column 5 of the JSON data"; JavaScriptCore: nothing.
function positionFromEngineMessage(
  text: string,
  message: string,
): { line: number; column: number } | undefined {
  const lineColumn = /line (\d+) column (\d+)/.exec(message);
  if (lineColumn) return { line: Number(lineColumn[1]), column: Number(lineColumn[2]) };
  const position = /position (\d+)/.exec(message);
  if (position) return lineAndColumn(text, Number(position[1]));
  return undefined;
}

function cleanEngineMessage(message: string): string {
  return message
    .replace(/^JSON\.parse:\s*/, '')
    .replace(/\s*\(line \d+ column \d+\)/, '')
    .replace(/\s*at line \d+ column \d+ of the JSON data/, '')
    .replace(/\s*in JSON at position \d+/, '');
}

/**
 * Parses a job file's text. Malformed JSON gives one problem ("malformed-json") with the line
 * and column of the first offending character; `value` is set exactly when there is none.
 */
export function parseJobText(text: string): { value?: unknown; problems: Problem[] } {
  // Editors on Windows may save a byte order mark, which JSON.parse rejects; it is not content.
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  try {
    return { value: JSON.parse(body), problems: [] };
  } catch (error) {
    const engineMessage = error instanceof Error ? error.message : String(error);
    const fault = locateJsonFault(body);
    const scanned = fault && lineAndColumn(body, fault.offset);
    const reported = positionFromEngineMessage(body, engineMessage);
    const where = reported ?? scanned ?? { line: 1, column: 1 };
    const agree = scanned && where.line === scanned.line && where.column === scanned.column;
    const reason =
      body.trim() === ''
        ? 'the file is empty'
        : fault && agree
          ? fault.reason
          : cleanEngineMessage(engineMessage);
    return {
      problems: [
        {
          code: 'malformed-json',
          message: `the file is not valid JSON: ${reason} (line ${where.line}, column ${where.column})`,
          path: '$',
          ids: [],
          line: where.line,
          column: where.column,
        },
      ],
    };
  }
}
