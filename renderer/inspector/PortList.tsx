// The ports section of the operator inspector: each output port with the edges leaving it, then
// the edges coming in. Read-only: ports come from the kind and the code, edges from the canvas.
import { useId } from 'react';
import { type DraftEdge, edgePort, type JobDraft, stringField } from '../document/jobDraft';
import { ElementLink } from './ElementLink';
import { operatorPorts } from './operatorPorts';

function partitionWords(edge: DraftEdge): string {
  const partition = stringField(edge, 'partition') ?? '?';
  const key = edge.key;
  const keyText = typeof key === 'string' ? key : Array.isArray(key) ? key.join(', ') : undefined;
  const words = partition === 'hash' && keyText !== undefined ? `hash by ${keyText}` : partition;
  return edge.feedback === true ? `${words}, feedback` : words;
}

function EdgeRow({ edge, direction }: { edge: DraftEdge; direction: 'to' | 'from' }) {
  const id = stringField(edge, 'id');
  const other = stringField(edge, direction) ?? '?';
  const port = edgePort(edge);
  return (
    <li className="port-edge">
      {id === undefined ? <span className="element-link">(no id)</span> : <ElementLink kind="edge" id={id} />}
      <span className="port-edge-text">
        {direction === 'to' ? `→ ${other}` : `← ${other}${port === 'out' ? '' : ` (${port})`}`}
      </span>
      <span className="port-edge-partition">{partitionWords(edge)}</span>
    </li>
  );
}

export function PortList({ draft, id }: { draft: JobDraft; id: string }) {
  const heading = useId();
  const ports = operatorPorts(draft, id);
  return (
    <section className="inspector-section" aria-labelledby={heading}>
      <h3 id={heading}>Ports</h3>
      <h4>Outputs</h4>
      {!ports.hasOutputs ? (
        <p className="inspector-note">A sink has no outputs.</p>
      ) : (
        <ul className="ports">
          {ports.outputs.map((port) => (
            <li key={port.name} className="port">
              <div className="port-head">
                <code className="port-name">{port.name}</code>
                {!port.emitted && <span className="port-warning">nothing emits to this port</span>}
              </div>
              {port.edges.length === 0 ? (
                <p className="port-empty">no edges</p>
              ) : (
                <ul className="port-edges">
                  {port.edges.map((edge, i) => (
                    <EdgeRow key={stringField(edge, 'id') ?? i} edge={edge} direction="to" />
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ul>
      )}
      {ports.dynamic && (
        <p className="inspector-note">
          The code names a port with an expression, so it may emit to ports not listed.
        </p>
      )}
      <h4>Inputs</h4>
      {ports.inputs.length === 0 ? (
        <p className="port-empty">no edges</p>
      ) : (
        <ul className="port-edges">
          {ports.inputs.map((edge, i) => (
            <EdgeRow key={stringField(edge, 'id') ?? i} edge={edge} direction="from" />
          ))}
        </ul>
      )}
    </section>
  );
}
