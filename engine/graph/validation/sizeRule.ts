// How many subtasks a job may have. Each subtask holds its own compiled user code (a sandbox
// Compartment: some 20 KB of heap), its channels and its state's caches, and a run's subtasks
// share one process's memory. Measured: a chain of 20,000 map operators opens in a few seconds in
// ~0.8 GB; 50,000 took ~3 GB; 100,000 filled a 4 GB heap and ran the garbage collector for
// minutes without finishing. So past this limit a job is refused before anything runs, in one
// line, rather than left to grind (docs/job-file.md, "Size").
import { countText as count } from '../countText.js';
import type { GraphRule } from './graphRule.js';

/** The subtasks (operators' parallelism added up) a job may have. */
export const MAX_SUBTASKS = 20_000;

export const tooManySubtasks: GraphRule = ({ operators }) => {
  const subtasks = operators.reduce((n, op) => n + (op.parallelism ?? 1), 0);
  if (subtasks <= MAX_SUBTASKS) return [];
  return [
    {
      code: 'too-many-subtasks',
      message: `the job has ${count(subtasks)} subtasks (its operators' parallelism added up); a job may have ${count(MAX_SUBTASKS)} at most: each subtask holds its own compiled code and buffers, all in one process's memory`,
      path: ['operators'],
      ids: [],
    },
  ];
};
