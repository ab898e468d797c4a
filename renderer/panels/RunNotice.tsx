// The Debugger, State, Checkpoints and Metrics panels show a running job, and running a job
// from the designer is the next feature (run and debug). Until then each says what it will
// show rather than showing made-up numbers.
import type { BottomTab } from '../store/designerStore';

const WILL_SHOW: Readonly<Record<Exclude<BottomTab, 'Problems'>, string>> = {
  Debugger: 'Stepping through a run record by record, with breakpoints and each record’s path, appears here.',
  State: 'State sizes per operator and subtask appear here while the job runs.',
  Checkpoints: 'Each checkpoint’s progress, size and duration appear here while the job runs.',
  Metrics:
    'Records per second, backpressure and latency per operator and subtask appear here while the job runs.',
};

export function RunNotice({ tab }: { tab: Exclude<BottomTab, 'Problems'> }) {
  return (
    <div className="run-notice">
      <p>{WILL_SHOW[tab]}</p>
      <p className="run-notice-later">
        Running a job from the designer comes with the run-and-debug feature.
      </p>
    </div>
  );
}
