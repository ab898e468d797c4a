// `pipewright`'s entry (bin/pipewright.js imports it; commands.ts is the CLI). A run opens its job
// on a thread of its own, which loads most of the engine again: loading is most of a short run's
// time, so that thread is started before anything else loads here, and the two threads load side
// by side (warmJobWorker.ts). A command that does not run the job on it drops it.
import { dropWarmJobWorker, startWarmJobWorker } from '../deploy/warmJobWorker.js';

const argv = process.argv.slice(2);
if (argv[0] === 'run' && !argv.includes('--help') && !argv.includes('-h')) startWarmJobWorker();
try {
  const { main } = await import('./commands.js');
  process.exitCode = await main(argv);
} finally {
  void dropWarmJobWorker();
}
