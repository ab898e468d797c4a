// The document's operator ids, for choosing one in a breakpoint or the state browser; `kind`
// keeps only the operators of that kind (rows are a transaction operator's).
import { useMemo } from 'react';
import { draftOperators, operatorIds, operatorKind, stringField } from '../document/jobDraft';
import { useDesigner } from '../store/designerContext';

export function useOperatorIds(kind?: string): string[] {
  const draft = useDesigner((s) => s.draft);
  return useMemo(() => {
    if (draft === undefined) return [];
    if (kind === undefined) return [...operatorIds(draft)];
    return draftOperators(draft)
      .filter((op) => operatorKind(op) === kind)
      .map((op) => stringField(op, 'id'))
      .filter((id): id is string => id !== undefined);
  }, [draft, kind]);
}
