// The questions Run, Debug, Run on Flink… and Restart from checkpoint… ask: save an unsaved job
// first (it runs from its file), which cluster to send it to, and which checkpoint to restart from.
import { useId, useState } from 'react';
import type { FlinkTarget, RunCheckpointEvent, RunMode } from '../../engine/protocol/protocol.js';
import { Modal } from '../dialogs/Modal';
import { parseTarget } from './flinkTarget';
import { useRun } from './runContext';
import type { RestartChoice } from './runStore';
import { formatBytes, formatMs, formatTimeOfDay } from './units';

export function RunDialogs() {
  const prompt = useRun((s) => s.prompt);
  if (prompt === undefined) return null;
  if (prompt.kind === 'saveFirst') {
    return (
      <Modal label="Save before running" onCancel={() => prompt.resolve(false)}>
        <h2>Save “{prompt.title}” before running?</h2>
        <p>
          A job runs from its file: relative paths in its parameters resolve against the file’s folder, and
          its state and checkpoints are kept beside it.
        </p>
        {prompt.note !== undefined && <p className="save-note">{prompt.note}</p>}
        <div className="modal-buttons">
          <button type="button" className="primary" onClick={() => prompt.resolve(true)}>
            Save…
          </button>
          <button type="button" onClick={() => prompt.resolve(false)}>
            Cancel
          </button>
        </div>
      </Modal>
    );
  }
  if (prompt.kind === 'flink')
    return <FlinkDialog cluster={prompt.cluster} savepoint={prompt.savepoint} resolve={prompt.resolve} />;
  return <RestartDialog checkpoints={prompt.checkpoints} resolve={prompt.resolve} />;
}

/**
 * Run on Flink…: the session cluster's REST address (the last one given) and, optionally, a
 * parallelism for every operator in place of the job's and a savepoint to go on from (the last
 * stop's is offered), as `pipewright flink --cluster --from-savepoint`.
 */
function FlinkDialog({
  cluster,
  savepoint,
  resolve,
}: {
  cluster: string;
  savepoint: string | undefined;
  resolve: (target: FlinkTarget | undefined) => void;
}) {
  const [address, setAddress] = useState(cluster);
  const [parallelism, setParallelism] = useState('');
  const [from, setFrom] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const addressId = useId();
  const parallelismId = useId();
  const fromId = useId();
  const submit = () => {
    const target = parseTarget(address, parallelism, from);
    if ('problem' in target) setProblem(target.problem);
    else resolve(target);
  };
  return (
    <Modal label="Run on Flink" onCancel={() => resolve(undefined)}>
      <h2>Run on Flink</h2>
      <p>
        The job goes to a Flink session cluster, as <code>pipewright flink --cluster</code> sends it; its
        status, records per subtask, backpressure and checkpoints show here as Flink reports them. Stop takes
        a savepoint. Every TaskManager needs <code>node</code> on its PATH.
      </p>
      <form
        className="flink-target"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <label htmlFor={addressId}>Cluster (REST address)</label>
        <input
          id={addressId}
          value={address}
          spellCheck={false}
          onChange={(e) => {
            setAddress(e.target.value);
            setProblem(undefined);
          }}
        />
        <label htmlFor={parallelismId}>Parallelism (empty: the job’s own)</label>
        <input
          id={parallelismId}
          value={parallelism}
          inputMode="numeric"
          onChange={(e) => {
            setParallelism(e.target.value);
            setProblem(undefined);
          }}
        />
        <label htmlFor={fromId}>From savepoint (empty: from the start)</label>
        <input
          id={fromId}
          value={from}
          spellCheck={false}
          onChange={(e) => {
            setFrom(e.target.value);
            setProblem(undefined);
          }}
        />
        {savepoint !== undefined && from !== savepoint && (
          <button type="button" className="link-button" onClick={() => setFrom(savepoint)}>
            Go on from the last stop’s savepoint
          </button>
        )}
        {problem !== undefined && (
          <p className="field-problem" role="alert">
            {problem}
          </p>
        )}
        <div className="modal-buttons">
          <button type="submit" className="primary">
            Run on Flink
          </button>
          <button type="button" onClick={() => resolve(undefined)}>
            Cancel
          </button>
        </div>
      </form>
    </Modal>
  );
}

/** Which checkpoint to go on from, and whether at full speed or held in the debugger just after it. */
function RestartDialog({
  checkpoints,
  resolve,
}: {
  checkpoints: readonly RunCheckpointEvent[];
  resolve: (choice: RestartChoice | undefined) => void;
}) {
  const newest = checkpoints[0];
  const [chosen, setChosen] = useState<number | undefined>(newest?.id);
  const [mode, setMode] = useState<RunMode>('run');
  const preview = useRun((s) => s.previewSinks);
  const name = useId();
  const modeName = useId();
  return (
    <Modal label="Restart from checkpoint" onCancel={() => resolve(undefined)}>
      <h2>Restart from checkpoint</h2>
      {checkpoints.length === 0 ? (
        <p>
          This job has no completed checkpoint yet. A run takes one every <code>checkpointIntervalMs</code>{' '}
          (see the job’s settings) and keeps the last few.
        </p>
      ) : (
        <fieldset className="restart-list">
          <legend>Completed checkpoints, newest first</legend>
          {checkpoints.map((c) => (
            <label key={c.id} className="restart-item">
              <input
                type="radio"
                name={name}
                checked={chosen === c.id}
                onChange={() => setChosen(c.id)}
                aria-label={`Checkpoint ${c.id}`}
              />
              <span>
                Checkpoint {c.id} — taken {formatTimeOfDay(c.triggeredAt)}, {formatBytes(c.fullBytes)} of
                state, {formatMs(c.durationMs)}
              </span>
            </label>
          ))}
        </fieldset>
      )}
      {checkpoints.length > 0 && (
        <fieldset className="restart-mode">
          <legend>Go on</legend>
          <label>
            <input type="radio" name={modeName} checked={mode === 'run'} onChange={() => setMode('run')} />{' '}
            Run: at full speed
          </label>
          <label>
            <input
              type="radio"
              name={modeName}
              checked={mode === 'debug'}
              onChange={() => setMode('debug')}
            />{' '}
            Debug: held just after the checkpoint, to step from there
          </label>
        </fieldset>
      )}
      {preview && checkpoints.length > 0 && (
        <p className="error">
          “Preview sinks” is on: a preview run writes nothing, checkpoints included, so it cannot go on from
          one. Turn it off to restart.
        </p>
      )}
      <div className="modal-buttons">
        <button
          type="button"
          className="primary"
          disabled={chosen === undefined || preview}
          onClick={() => chosen !== undefined && resolve({ checkpointId: chosen, mode })}
        >
          Restart
        </button>
        <button type="button" onClick={() => resolve(undefined)}>
          Cancel
        </button>
      </div>
    </Modal>
  );
}
