// The drag from the palette onto the canvas carries the operator kind under its own type, so
// the canvas accepts that drop and nothing else (files, text) dragged over it.
import { OPERATOR_KINDS, type OperatorKind } from '../../engine/graph/index.js';

export const KIND_MIME = 'application/x-pipewright-kind';

export function carriesKind(data: DataTransfer): boolean {
  return Array.from(data.types).includes(KIND_MIME);
}

export function draggedKind(data: DataTransfer): OperatorKind | undefined {
  const kind = data.getData(KIND_MIME);
  return (OPERATOR_KINDS as readonly string[]).includes(kind) ? (kind as OperatorKind) : undefined;
}
