// The Checkpoints panel: every checkpoint of the run as the engine reports it (id, status,
// trigger time, duration, bytes persisted and full size, in-flight records), each expandable to
// its subtasks' synchronous, asynchronous and alignment times, with a failure's reason.
import { Fragment, useState } from 'react';
import type { RunCheckpointEvent } from '../../engine/protocol/protocol.js';
import { useRun } from '../run/runContext';
import { subtaskName } from '../run/stepFormat';
import { formatBytes, formatCount, formatMs, formatTimeOfDay } from '../run/units';

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
              <th scope="col">Persisted</th>
              <th scope="col">Full size</th>
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
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  if (checkpoints.length === 0) {
    return (
      <p className="run-empty">
        {status === 'idle'
          ? 'Each checkpoint’s status, size and duration appear here while the job runs.'
          : 'No checkpoint yet in this run. The job takes one every checkpointIntervalMs (its settings).'}
      </p>
    );
  }
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
        {folder !== undefined && (
          <>
            {' '}
            Kept in <code className="checkpoint-folder">{folder}</code>
          </>
        )}
      </p>
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
            <th scope="col">Persisted</th>
            <th scope="col">Full size</th>
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
