// The Checkpoints panel: every checkpoint of the run as the engine reports it (id, status,
// trigger time, duration, bytes written and the size of the state it stands for, in-flight
// records), each expandable to its subtasks' synchronous, asynchronous and alignment times, with
// a failure's reason. What the two sizes count, which checkpoints are still kept and why there is
// none: run/checkpointReport.ts.
import { Fragment, useState } from 'react';
import type { RunCheckpointEvent } from '../../engine/protocol/protocol.js';
import {
  checkpointSettingsOf,
  LEGEND,
  letGo,
  noCheckpointText,
  STATE_TITLE,
  WRITTEN_TITLE,
} from '../run/checkpointReport';
import { useRun } from '../run/runContext';
import { subtaskName } from '../run/stepFormat';
import { formatBytes, formatCount, formatMs, formatTimeOfDay } from '../run/units';
import { useDesigner } from '../store/designerContext';

const COLUMNS = 8;

function SubtaskDetail({ checkpoint }: { checkpoint: RunCheckpointEvent }) {
  return (
    <div className="checkpoint-detail">
      {checkpoint.reason !== undefined && (
        <p className="error">
          <strong>Failed:</strong> {checkpoint.reason}
        </p>
      )}
      {checkpoint.subtasks.length === 0 ? (
        <p className="muted">No subtask reported to this checkpoint.</p>
      ) : (
        <table className="run-table" aria-label={`Subtasks of checkpoint ${checkpoint.id}`}>
          <thead>
            <tr>
              <th scope="col">Subtask</th>
              <th scope="col" title={WRITTEN_TITLE}>
                Written
              </th>
              <th scope="col" title={STATE_TITLE}>
                State size
              </th>
              <th scope="col">Sync</th>
              <th scope="col">Async</th>
              <th scope="col">Alignment</th>
            </tr>
          </thead>
          <tbody>
            {checkpoint.subtasks.map((s) => (
              <tr key={`${s.operator}#${s.subtask}`}>
                <th scope="row">{subtaskName(s.operator, s.subtask)}</th>
                <td>{formatBytes(s.bytes)}</td>
                <td>{formatBytes(s.fullBytes)}</td>
                <td>{formatMs(s.syncMs)}</td>
                <td>{formatMs(s.asyncMs)}</td>
                <td>{formatMs(s.alignmentMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

export function CheckpointsPanel() {
  const checkpoints = useRun((s) => s.checkpoints);
  const status = useRun((s) => s.status);
  const folder = useRun((s) => s.checkpointDir);
  const flink = useRun((s) => s.flink);
  const previewSinks = useRun((s) => s.previewSinks);
  const draft = useDesigner((s) => s.draft);
  const settings = checkpointSettingsOf(draft);
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  if (checkpoints.length === 0) {
    return <p className="run-empty">{noCheckpointText(status, settings, previewSinks)}</p>;
  }
  // A Flink cluster keeps as many as its own settings say, which the designer does not know.
  const gone = flink === undefined ? letGo(checkpoints, settings.retained) : new Set<number>();
  const toggle = (id: number) =>
    setOpen((before) => {
      const next = new Set(before);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  const completed = checkpoints.filter((c) => c.status === 'completed').length;
  return (
    <div className="checkpoints-panel">
      <p className="muted">
        {completed} completed, {checkpoints.length - completed} failed.
        {flink !== undefined ? (
          <>
            {' '}
            Kept by the Flink cluster at <code className="checkpoint-folder">{flink.cluster}</code>, as many
            as its <code>state.checkpoints.num-retained</code> says.
          </>
        ) : folder === undefined ? null : (
          <>
            {' '}
            Kept in <code className="checkpoint-folder">{folder}</code>
          </>
        )}
      </p>
      <p className="muted checkpoint-legend">{LEGEND}</p>
      <table className="run-table checkpoint-table" aria-label="Checkpoint history">
        <thead>
          <tr>
            <th scope="col">
              <span className="visually-hidden">Details</span>
            </th>
            <th scope="col">ID</th>
            <th scope="col">Status</th>
            <th scope="col">Triggered</th>
            <th scope="col">Duration</th>
            <th scope="col" title={WRITTEN_TITLE}>
              Written
            </th>
            <th scope="col" title={STATE_TITLE}>
              State size
            </th>
            <th scope="col">In-flight records</th>
          </tr>
        </thead>
        <tbody>
          {[...checkpoints].reverse().map((c) => {
            const expanded = open.has(c.id);
            return (
              <Fragment key={c.id}>
                <tr className={c.status === 'failed' ? 'checkpoint-failed' : undefined}>
                  <td>
                    <button
                      type="button"
                      className="link checkpoint-toggle"
                      aria-expanded={expanded}
                      aria-label={`Details of checkpoint ${c.id}`}
                      onClick={() => toggle(c.id)}
                    >
                      {expanded ? '▾' : '▸'}
                    </button>
                  </td>
                  <td>{c.id}</td>
                  <td>
                    {c.status}
                    {gone.has(c.id) && (
                      <span
                        className="muted"
                        title={`Only the newest ${settings.retained} completed checkpoints are kept (checkpointsRetained): this one's files are gone, and a restart cannot go on from it.`}
                      >
                        , let go
                      </span>
                    )}
                    {c.reason !== undefined && <span className="muted"> — {c.reason}</span>}
                  </td>
                  <td>{formatTimeOfDay(c.triggeredAt)}</td>
                  <td>{formatMs(c.durationMs)}</td>
                  <td>{formatBytes(c.bytes)}</td>
                  <td>{formatBytes(c.fullBytes)}</td>
                  <td>{formatCount(c.inFlightRecords)}</td>
                </tr>
                {expanded && (
                  <tr className="checkpoint-detail-row">
                    <td colSpan={COLUMNS}>
                      <SubtaskDetail checkpoint={c} />
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
