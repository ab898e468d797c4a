// Where the "closes a cycle" note goes while a connection that would close one is dragged: next
// to the card the line would end at, starting at its left edge, on the side away from the card
// the line comes from. Beside the pointer it ran across the card's title and id, the very things
// the user is aiming at; between the two cards it would lie on the line and on any edge label in
// the gap between them.
import type { XY } from '../document/jobDraft';

export interface CardBox {
  readonly x: number;
  readonly y: number;
  readonly height: number;
}

/** Between the card and the note: room for the card's border and the note's descenders. */
export const NOTE_GAP = 10;
/** The note's font size (`.connection-line-note`): below a card its baseline is this much lower. */
const NOTE_FONT = 12;

/** The note's baseline start, for the card under the pointer and the card the line starts from. */
export function cycleNoteAnchor(card: CardBox, from: CardBox): XY {
  const fromAbove = from.y + from.height / 2 < card.y + card.height / 2;
  return fromAbove
    ? { x: card.x, y: card.y + card.height + NOTE_GAP + NOTE_FONT }
    : { x: card.x, y: card.y - NOTE_GAP };
}
