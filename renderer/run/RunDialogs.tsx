// The questions Run, Debug and Restart from checkpoint… ask: save an unsaved job first (it runs
// from its file), and which checkpoint to restart from.
import { useId, useState } from 'react';
import type { RunCheckpointEvent, RunMode } from '../../engine/protocol/protocol.js';
import { Modal } from '../dialogs/Modal';
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
  return <RestartDialog checkpoints={prompt.checkpoints} resolve={prompt.resolve} />;
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
