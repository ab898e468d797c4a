// An operator on the canvas: what kind it is, its id, how many subtasks run it, and a handle
// per port. Memoised: React Flow hands it the same data object until the operator changes.
// Zoomed far out only the block and its handles are drawn, at the same size and with the
// handles in the same places, so edges do not move and nothing is measured again on the switch.
import { Handle, type NodeProps, Position } from '@xyflow/react';
import { type CSSProperties, memo } from 'react';
import { busyColour } from '../run/loadTint';
import { useRun } from '../run/runContext';
import { failedOperator } from '../run/runFailure';
import { markedStep } from '../run/runStore';
import { cardSize, portRows } from './cardGeometry';
import { useFarZoom } from './farZoom';
import type { OperatorFlowNode } from './flowElements';
import { KindIcon } from './KindIcon';
import { INPUT_HANDLE, type OperatorPorts } from './operatorPorts';

function PortRows({ ports, labelled }: { ports: OperatorPorts; labelled: boolean }) {
  return (
    <div className="op-ports">
      {Array.from({ length: portRows(ports) }, (_, k) => {
        const output = ports.outputs[k];
        const input = k === 0 && ports.input;
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows are positions, not items
          <div className="op-port-row" key={k}>
            {input && (
              <>
                <Handle type="target" position={Position.Left} id={INPUT_HANDLE} className="op-handle" />
                {labelled && <span className="op-port-label op-port-in">in</span>}
              </>
            )}
            {output !== undefined && (
              <>
                {labelled && (
                  <span
                    className={`op-port-label op-port-out${output.port === 'out' ? '' : ' op-port-named'}`}
                  >
                    {output.port}
                  </span>
                )}
                <Handle type="source" position={Position.Right} id={output.handleId} className="op-handle" />
              </>
            )}
          </div>
        );
      })}
    </div>
  );
}

function OperatorNodeView({ data, selected }: NodeProps<OperatorFlowNode>) {
  const { ports } = data;
  // Only the operator of the step shown re-renders when the step changes.
  const activeSubtask = useRun((s) => {
    const step = markedStep(s);
    return data.opId !== undefined && step?.operator === data.opId ? step.subtask : undefined;
  });
  const failed = useRun((s) => data.opId !== undefined && failedOperator(s) === data.opId);
  // While a run goes: tinted by its busiest subtask (loadTint.ts), the numbers in the tooltip.
  const busy = useRun((s) => (data.opId === undefined ? undefined : s.operatorTint.get(data.opId)?.level));
  const busyTip = useRun((s) => (data.opId === undefined ? undefined : s.operatorTint.get(data.opId)?.tip));
  const far = useFarZoom();
  const classes = ['op-card', `op-role-${data.role ?? 'unknown'}`];
  if (far) classes.push('op-far');
  if (data.problem !== undefined) classes.push('op-invalid');
  if (selected) classes.push('op-selected');
  if (activeSubtask !== undefined) classes.push('op-active');
  if (failed) classes.push('op-failed');
  if (busy !== undefined) classes.push('op-loaded');
  const size = cardSize(ports, data.line !== undefined);
  return (
    <div
      className={classes.join(' ')}
      style={busy === undefined ? size : ({ ...size, '--pw-busy': busyColour(busy) } as CSSProperties)}
      title={failed ? 'The last run failed here (see the Problems panel)' : (data.problem ?? busyTip)}
      data-id={data.opId}
      data-busy-level={busy}
      data-testid={data.opId === undefined ? undefined : `operator-${data.opId}`}
      data-active-subtask={activeSubtask}
    >
      {!far && activeSubtask !== undefined && (
        <span className="op-active-badge" title={`The step shown is at subtask ${activeSubtask}`}>
          #{activeSubtask}
        </span>
      )}
      {!far && (
        <>
          <div className="op-head">
            <span className="op-icon">
              <KindIcon kind={data.kind} />
            </span>
            <span className="op-kind">{data.kind === undefined ? data.kindText : data.title}</span>
            <span className="op-parallelism" title={`parallelism ${data.parallelism}`}>
              ×{data.parallelism}
            </span>
          </div>
          <div className="op-id">
            {data.opId ?? '(no id)'}
            {data.pinned && data.opId !== undefined && <span className="op-note"> (duplicate id)</span>}
          </div>
          {data.line !== undefined && (
            <div className="op-line" title={data.line}>
              {data.line}
            </div>
          )}
        </>
      )}
      <PortRows ports={ports} labelled={!far} />
    </div>
  );
}

export const OperatorNode = memo(OperatorNodeView);
