// The Problems panel's list, from the designer (the validator, the inspector's inputs, the host's
// file check) and from the run (why the last one failed); the tab's badge counts the same list.
import { useMemo } from 'react';
import { useRun } from '../run/runContext';
import { failedRunMessage, operatorNamedIn } from '../run/runFailure';
import { useDesigner } from '../store/designerContext';
import { type ListedProblem, listProblems } from '../store/listedProblems';
import { problemsOf } from '../store/selectors';

export function useListedProblems(): ListedProblem[] {
  const draft = useDesigner((s) => s.draft);
  const problems = useDesigner(problemsOf);
  const unappliedFields = useDesigner((s) => s.unappliedFields);
  const fileProblems = useDesigner((s) => s.fileProblems);
  const failure = useRun(failedRunMessage);
  const notice = useRun((s) => s.notice);
  return useMemo(
    () =>
      listProblems({
        draft,
        problems,
        unappliedFields,
        fileProblems,
        runFailure:
          failure === undefined ? undefined : { message: failure, operator: operatorNamedIn(failure) },
        runNotice: notice,
      }),
    [draft, problems, unappliedFields, fileProblems, failure, notice],
  );
}
