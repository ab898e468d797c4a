// An operator card's geometry, known before the browser lays the card out: its size and where
// its port handles sit. Knowing them lets React Flow place, fit, cull and connect a large job in
// its first render, instead of first drawing every card hidden to measure it and then drawing
// the edges (for 500 operators that was most of the time to first render). The card is drawn
// at exactly this size (OperatorNode sets it inline); canvas.css lays out what is inside, with
// port rows anchored to the card's bottom edge. An e2e test holds the two to each other.
import { type NodeHandle, Position } from '@xyflow/react';
import { NODE_WIDTH } from '../document/autoLayout';
import { INPUT_HANDLE, type OperatorPorts } from './operatorPorts';

export interface Size {
  readonly width: number;
  readonly height: number;
}

/** Height of one port row (`.op-port-row`). */
export const PORT_ROW = 18;
/** `.op-handle`: a square, centred on the card's side. */
const HANDLE = 10;
/** The card's side and bottom borders. */
const BORDER = 1;
/** Below the last port row (`.op-ports`). */
const PORTS_PADDING_BOTTOM = 3;
/** Everything but the port rows: top border 3, kind line 22, id line 21, ports' border and padding 6, bottom border 1. */
const CARD_CHROME = 53;
/** `.op-line`: the line under the id some kinds have (a transaction's tables). */
export const CARD_LINE = 16;

/** The input shares the first row with the first output. */
export function portRows(ports: OperatorPorts): number {
  return Math.max(ports.input ? 1 : 0, ports.outputs.length, 1);
}

/** `line`: whether the card has the line under its id (KindDesigner.cardLine). */
export function cardSize(ports: OperatorPorts, line = false): Size {
  return { width: NODE_WIDTH, height: CARD_CHROME + (line ? CARD_LINE : 0) + PORT_ROW * portRows(ports) };
}

/** Each handle's box relative to the card's top left corner, as React Flow would measure it. */
export function cardHandles(ports: OperatorPorts, line = false): NodeHandle[] {
  const { width, height } = cardSize(ports, line);
  const rows = portRows(ports);
  const handleTop = (row: number) =>
    height - BORDER - PORTS_PADDING_BOTTOM - (rows - row) * PORT_ROW + (PORT_ROW - HANDLE) / 2;
  const handles: NodeHandle[] = [];
  if (ports.input) {
    handles.push({
      id: INPUT_HANDLE,
      type: 'target',
      position: Position.Left,
      x: BORDER - HANDLE / 2,
      y: handleTop(0),
      width: HANDLE,
      height: HANDLE,
    });
  }
  ports.outputs.forEach((output, row) => {
    handles.push({
      id: output.handleId,
      type: 'source',
      position: Position.Right,
      x: width - BORDER - HANDLE / 2,
      y: handleTop(row),
      width: HANDLE,
      height: HANDLE,
    });
  });
  return handles;
}
