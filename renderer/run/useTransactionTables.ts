// The document's transaction operators and the tables each names (params.tables), for the State
// panel to show each table's rows.
import { useMemo } from 'react';
import { draftOperators, operatorKind, stringField } from '../document/jobDraft';
import { useDesigner } from '../store/designerContext';

export function useTransactionTables(): ReadonlyMap<string, readonly string[]> {
  const draft = useDesigner((s) => s.draft);
  return useMemo(() => {
    const tables = new Map<string, string[]>();
    for (const op of draft === undefined ? [] : draftOperators(draft)) {
      const id = stringField(op, 'id');
      if (id === undefined || operatorKind(op) !== 'transaction') continue;
      const params = op.params;
      const named =
        typeof params === 'object' && params !== null && !Array.isArray(params) ? params.tables : [];
      tables.set(id, Array.isArray(named) ? named.filter((t): t is string => typeof t === 'string') : []);
    }
    return tables;
  }, [draft]);
}
