#!/usr/bin/env node
// `npm start`. The designer (Electron app and its browser form) is the next piece of work; until
// it lands, start says so and shows how to run a job, so the command is never a dead end.
const lines = [
  'Pipewright: the designer app is not part of this version yet; the engine and its CLI are.',
  '',
  'Run an example job:',
  '  npx pipewright run assets/examples/owner-has-items/owner-has-items.job.json',
  '  npx pipewright validate assets/examples/word-count/word-count.job.json',
  '',
  'Examples: assets/examples/*   Job file reference: docs/job-file.md   CLI help: npx pipewright --help',
];
process.stdout.write(`${lines.join('\n')}\n`);
