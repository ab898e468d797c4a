// Every problem the engine's validator finds in the draft, as the user edits it, and what else
// the designer knows (see listedProblems.ts): why the last run failed, inputs whose text is not
// applied, input files the host did not find. A row names the operator or edge concerned and
// the JSON path; clicking it selects and centres that element. A cycle offers to make one of
// its edges a feedback edge, in one undo step.
import type { JobDraft } from '../document/jobDraft';
import { useDesigner, useDesignerStore } from '../store/designerContext';
import type { ListedProblem } from '../store/listedProblems';
import { feedbackCandidates, messageWithoutPosition, problemTarget, textPosition } from './problemTargets';
import { useListedProblems } from './useListedProblems';

const SEVERITY_WORDS = { error: 'Error', warning: 'Warning' } as const;

function ProblemRow({ problem, draft }: { problem: ListedProblem; draft: JobDraft | undefined }) {
  const store = useDesignerStore();
  const target = problemTarget(draft, problem);
  const position = textPosition(problem);
  const fixes = feedbackCandidates(draft, problem);
  const content = (
    <>
      <span className="problem-icon" title={SEVERITY_WORDS[problem.severity]}>
        <span aria-hidden="true">{problem.severity === 'warning' ? '▲' : '●'}</span>
        <span className="visually-hidden">{SEVERITY_WORDS[problem.severity]}:</span>
      </span>
      <span className="problem-message">{messageWithoutPosition(problem)}</span>
      <span className="problem-where">
        {target !== undefined && (
          <span className="problem-subject">
            {target.kind} <strong>{target.id}</strong>
          </span>
        )}
        {position !== undefined && <span className="problem-position">{position}</span>}
        {problem.path !== '' && <code className="problem-path">{problem.path}</code>}
      </span>
    </>
  );
  return (
    <li className={`problem problem-${problem.severity} problem-code-${problem.code}`}>
      {target === undefined ? (
        <div className="problem-main">{content}</div>
      ) : (
        <button
          type="button"
          className="problem-main"
          title={`Select ${target.kind} ${target.id}`}
          onClick={() => store.getState().focus(target.kind, target.id)}
        >
          {content}
        </button>
      )}
      {fixes.length > 0 && (
        <div className="problem-fixes">
          {fixes.map((edgeId) => (
            <button
              key={edgeId}
              type="button"
              className="problem-fix"
              onClick={() => store.getState().makeFeedback(edgeId)}
            >
              Make {edgeId} a feedback edge
            </button>
          ))}
        </div>
      )}
    </li>
  );
}

export function ProblemsPanel() {
  const problems = useListedProblems();
  const draft = useDesigner((s) => s.draft);
  if (problems.length === 0) {
    return (
      <p className="no-problems" role="status">
        <span aria-hidden="true">✓</span> No problems
      </p>
    );
  }
  return (
    <ul className="problem-list" aria-label="Problems">
      {problems.map((problem) => (
        <ProblemRow
          key={`${problem.code}:${problem.path}:${problem.message}`}
          problem={problem}
          draft={draft}
        />
      ))}
    </ul>
  );
}
