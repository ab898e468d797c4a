import { describe, expect, it } from 'vitest';
import { cardSize, PORT_ROW, portRows } from './cardGeometry';

const out = (port: string) => ({ port, handleId: port });

describe('cardSize', () => {
  it('gives a source, a transform and a sink one port row', () => {
    expect(portRows({ input: false, outputs: [out('out')] })).toBe(1);
    expect(portRows({ input: true, outputs: [out('out')] })).toBe(1);
    expect(portRows({ input: true, outputs: [] })).toBe(1);
  });

  it('adds a row for each side output after the first output', () => {
    const ports = { input: true, outputs: [out('out'), out('late'), out('odd')] };
    expect(portRows(ports)).toBe(3);
    expect(cardSize(ports).height - cardSize({ input: true, outputs: [out('out')] }).height).toBe(
      2 * PORT_ROW,
    );
  });

  it('keeps every card as wide as the automatic layout assumes', () => {
    expect(cardSize({ input: true, outputs: [out('out'), out('late')] }).width).toBe(180);
  });
});
