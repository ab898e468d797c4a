// Whether an operator of the document is a sink: a record delivered to a sink is an output
// record, and the engine traces it as the sink step's record 0.
import { KINDS } from '../../engine/graph/index.js';
import { draftOperators, operatorKind, stringField } from '../document/jobDraft';
import { useDesigner } from '../store/designerContext';

export function useIsSink(operatorId: string): boolean {
  return useDesigner((s) => {
    if (s.draft === undefined) return false;
    const op = draftOperators(s.draft).find((o) => stringField(o, 'id') === operatorId);
    const kind = op === undefined ? undefined : operatorKind(op);
    return kind !== undefined && KINDS[kind].role === 'sink';
  });
}
