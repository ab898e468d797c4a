import { describe, expect, it } from 'vitest';
import { cycleNoteAnchor } from './cycleNote';

describe('the "closes a cycle" note', () => {
  const card = { x: 300, y: 200, height: 71 };

  it('sits above the card the line ends at, clear of its title, when the line comes from level or below', () => {
    for (const from of [{ x: 700, y: 200, height: 71 }, { x: 300, y: 320, height: 71 }, card]) {
      const note = cycleNoteAnchor(card, from);
      expect(note.x).toBe(card.x);
      // 12px text: its descenders end a few pixels under the baseline, still above the card.
      expect(note.y + 4).toBeLessThan(card.y);
    }
  });

  it('sits under the card when the line comes from a card above, away from the gap between them', () => {
    const note = cycleNoteAnchor(card, { x: 300, y: 80, height: 71 });
    expect(note.x).toBe(card.x);
    // The text's top (about its font size above the baseline) is under the card.
    expect(note.y - 12).toBeGreaterThan(card.y + card.height);
  });
});
