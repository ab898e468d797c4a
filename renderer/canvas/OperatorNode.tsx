// An operator on the canvas: what kind it is, its id, how many subtasks run it, and a handle
// per port. Memoised: React Flow hands it the same data object until the operator changes.
import { Handle, type NodeProps, Position, useUpdateNodeInternals } from '@xyflow/react';
import { memo, useEffect, useRef } from 'react';
import { useRun } from '../run/runContext';
import { markedStep } from '../run/runStore';
import type { OperatorFlowNode } from './flowElements';
import { KindIcon } from './KindIcon';
import { INPUT_HANDLE } from './operatorPorts';

function OperatorNodeView({ id, data, selected }: NodeProps<OperatorFlowNode>) {
  const { ports } = data;
  // React Flow measures handles when a node first appears or changes size; a port renamed in
  // the code changes neither, so it is told. (Not on mount: it measures then anyway.)
  const updateNodeInternals = useUpdateNodeInternals();
  const drawnPorts = useRef(ports);
  useEffect(() => {
    if (drawnPorts.current === ports) return;
    drawnPorts.current = ports;
    updateNodeInternals(id);
  }, [id, ports, updateNodeInternals]);
  // Only the operator of the step shown re-renders when the step changes.
  const activeSubtask = useRun((s) => {
    const step = markedStep(s);
    return data.opId !== undefined && step?.operator === data.opId ? step.subtask : undefined;
  });
  const rows = Math.max(ports.input ? 1 : 0, ports.outputs.length, 1);
  const classes = ['op-card', `op-role-${data.role ?? 'unknown'}`];
  if (data.problem !== undefined) classes.push('op-invalid');
  if (selected) classes.push('op-selected');
  if (activeSubtask !== undefined) classes.push('op-active');
  return (
    <div
      className={classes.join(' ')}
      title={data.problem}
      data-id={data.opId}
      data-testid={data.opId === undefined ? undefined : `operator-${data.opId}`}
      data-active-subtask={activeSubtask}
    >
      {activeSubtask !== undefined && (
        <span className="op-active-badge" title={`The step shown is at subtask ${activeSubtask}`}>
          #{activeSubtask}
        </span>
      )}
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
      <div className="op-ports">
        {Array.from({ length: rows }, (_, k) => {
          const output = ports.outputs[k];
          const input = k === 0 && ports.input;
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows are positions, not items
            <div className="op-port-row" key={k}>
              {input && (
                <>
                  <Handle type="target" position={Position.Left} id={INPUT_HANDLE} className="op-handle" />
                  <span className="op-port-label op-port-in">in</span>
                </>
              )}
              {output !== undefined && (
                <>
                  <span
                    className={`op-port-label op-port-out${output.port === 'out' ? '' : ' op-port-named'}`}
                  >
                    {output.port}
                  </span>
                  <Handle
                    type="source"
                    position={Position.Right}
                    id={output.handleId}
                    className="op-handle"
                  />
                </>
              )}
            </div>
          );
        })}
      </div>
    </div>
  );
}

export const OperatorNode = memo(OperatorNodeView);
