// The document's operator ids, for choosing one in a breakpoint or the state browser.
import { useMemo } from 'react';
import { operatorIds } from '../document/jobDraft';
import { useDesigner } from '../store/designerContext';

export function useOperatorIds(): string[] {
  const draft = useDesigner((s) => s.draft);
  return useMemo(() => (draft === undefined ? [] : [...operatorIds(draft)]), [draft]);
}
