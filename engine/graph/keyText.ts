// How the state browser writes a key and reads one typed into it, alike in the host (which finds
// the key) and the designer (which shows it): a string as it is, anything else as JSON.

/** A key as the state browser writes it and the prefix search matches it. */
export function keyText(key: unknown): string {
  return typeof key === 'string' ? key : (JSON.stringify(key) ?? String(key));
}

/**
 * The keys a typed text may stand for: the text as a string; and when it is the JSON of another
 * value (7, true, ["a",1]), that value too. Quoted ("7"), it is that string only.
 */
export function keysOfText(text: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [text];
  }
  return typeof parsed === 'string' ? [parsed] : [text, parsed];
}
