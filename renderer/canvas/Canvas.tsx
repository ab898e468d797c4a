// The job drawn as a graph. The store is the truth: nodes, edges and the selection are derived
// from it on every change, and everything the user does here (drag, select, connect, drop) is
// turned into one store action. React Flow keeps only the viewport and what it measures.
import {
  Background,
  BackgroundVariant,
  type Connection,
  type EdgeChange,
  type InternalNode,
  MiniMap,
  type NodeChange,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  useStore,
} from '@xyflow/react';
import {
  type DragEvent,
  type MouseEvent as ReactMouseEvent,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { autoLayout, NODE_HEIGHT, NODE_WIDTH } from '../document/autoLayout';
import { draftPositions, type JobDraft, newJobDraft, type XY } from '../document/jobDraft';
import { carriesKind, draggedKind } from '../palette/paletteDrag';
import { useDesigner, useDesignerStore } from '../store/designerContext';
import { problemsOf } from '../store/selectors';
import { CanvasControls } from './CanvasControls';
import { CycleConnectionLine } from './CycleConnectionLine';
import type { Size } from './cardGeometry';
import { displayPositions } from './displayPositions';
import { FAR_ZOOM, FarZoomContext } from './farZoom';
import { buildEdges, buildNodes, type OperatorFlowNode, type PartitionFlowEdge } from './flowElements';
import { type FlowModel, flowModelOf } from './flowModel';
import { GRID, snap } from './grid';
import { minimapSize } from './minimapPreference';
import { OperatorMenu, type OperatorMenuPlace } from './OperatorMenu';
import { OperatorNode } from './OperatorNode';
import { portOf } from './operatorPorts';
import { FeedbackEdge, PartitionEdge } from './PartitionEdge';
import { problemMarks } from './problemMarks';
import { applySelectChanges, type SelectChange } from './selectionChanges';
import { useFitting, ZOOM_DURATION } from './useFitting';
import { registerViewport } from './viewportController';
import './canvas.css';

const NODE_TYPES = { operator: OperatorNode };
const EDGE_TYPES = { partition: PartitionEdge, feedback: FeedbackEdge };
const SNAP_GRID: [number, number] = [GRID, GRID];
/** Zoomed out far enough that a 500-operator job fits on a laptop screen. */
const MIN_ZOOM = 0.05;
/**
 * Above this many operators only what is on screen is rendered, from CULL_FROM_ZOOM in: measured
 * on 500 operators, dragging one at zoom 0.6 had p95 frames of ~200 ms with everything rendered,
 * ~30 ms without. Further out the cards are cheap blocks, mostly all on screen, and culling them
 * again on every frame of a pan cost more than it saved (p95 frame 33 -> 17 ms without it). The
 * threshold is below FAR_ZOOM so that zooming in does not switch both in one frame.
 */
const VISIBLE_ONLY_ABOVE = 150;
const CULL_FROM_ZOOM = 0.2;
const EMPTY_DRAFT: JobDraft = newJobDraft();

function minimapColour(node: OperatorFlowNode): string {
  if (node.data.problem !== undefined) return 'var(--error)';
  return node.data.role === undefined ? 'var(--muted)' : `var(--${node.data.role})`;
}

function centreOf(node: InternalNode<OperatorFlowNode>): XY {
  const { x, y } = node.internals.positionAbsolute;
  return { x: x + (node.measured.width ?? NODE_WIDTH) / 2, y: y + (node.measured.height ?? NODE_HEIGHT) / 2 };
}

export function Canvas() {
  return (
    <ReactFlowProvider>
      <CanvasFlow />
    </ReactFlowProvider>
  );
}

function CanvasFlow() {
  const store = useDesignerStore();
  const draft = useDesigner((s) => s.draft) ?? EMPTY_DRAFT;
  const problems = useDesigner(problemsOf);
  const selection = useDesigner((s) => s.selection);
  const fitRequest = useDesigner((s) => s.fitRequest);
  const focusRequest = useDesigner((s) => s.focusRequest);
  const flow = useReactFlow<OperatorFlowNode, PartitionFlowEdge>();
  const wrapper = useRef<HTMLDivElement>(null);
  const far = useStore((s) => s.transform[2] < FAR_ZOOM);
  const culling = useStore((s) => s.transform[2] >= CULL_FROM_ZOOM);

  const model = flowModelOf(draft);
  const marks = problemMarks(problems);

  // Places given to operators without a saved position stay put while the graph is edited;
  // a fit request (the document opened or laid out) is the moment to place them afresh.
  const remembered = useRef({ fitRequest, places: new Map<string, XY>() });
  if (remembered.current.fitRequest !== fitRequest) remembered.current = { fitRequest, places: new Map() };
  const places = remembered.current.places;
  const positions = useMemo(
    () => displayPositions(model, draftPositions(draft), places, () => autoLayout(draft)),
    [model, draft, places],
  );

  const [measured, setMeasured] = useState<ReadonlyMap<string, Size>>(() => new Map());
  const selectedOperators = useMemo(() => new Set(selection.operators), [selection.operators]);
  const selectedEdges = useMemo(() => new Set(selection.edges), [selection.edges]);

  const nodeCache = useRef(new Map<string, OperatorFlowNode>());
  const nodes = useMemo(() => {
    nodeCache.current = buildNodes(
      { model, positions, selected: selectedOperators, marks, measured },
      nodeCache.current,
    );
    return [...nodeCache.current.values()];
  }, [model, positions, selectedOperators, marks, measured]);

  const edgeCache = useRef(new Map<string, PartitionFlowEdge>());
  const edges = useMemo(() => {
    edgeCache.current = buildEdges({ model, selected: selectedEdges, marks }, edgeCache.current);
    return [...edgeCache.current.values()];
  }, [model, selectedEdges, marks]);

  // Callbacks read the latest derived state through refs, so they never change identity.
  const latest = useRef<{
    model: FlowModel;
    positions: ReadonlyMap<string, XY>;
    nodes: readonly OperatorFlowNode[];
  }>({ model, positions, nodes });
  latest.current = { model, positions, nodes };

  const fitting = useFitting(wrapper, () => latest.current.nodes, flow);
  const { opening, fitToJob } = fitting;

  const onNodesChange = useCallback(
    (changes: NodeChange<OperatorFlowNode>[]) => {
      const { model, positions } = latest.current;
      const moves: Record<string, XY> = {};
      let moved = false;
      const selects: SelectChange[] = [];
      const sizes = new Map<string, Size>();
      for (const change of changes) {
        if (change.type === 'position' && change.position !== undefined) {
          const entry = model.byNode.get(change.id);
          const shown = positions.get(change.id);
          const same = shown !== undefined && shown.x === change.position.x && shown.y === change.position.y;
          if (entry?.opId !== undefined && !entry.pinned && !same) {
            moves[entry.opId] = { x: change.position.x, y: change.position.y };
            moved = true;
          }
        } else if (change.type === 'dimensions' && change.dimensions !== undefined) {
          sizes.set(change.id, change.dimensions);
        } else if (change.type === 'select') {
          const opId = model.byNode.get(change.id)?.opId;
          if (opId !== undefined) selects.push({ id: opId, selected: change.selected });
        }
      }
      if (sizes.size > 0) setMeasured((before) => new Map([...before, ...sizes]));
      const state = store.getState();
      if (moved) state.moveOperators(moves);
      const next = applySelectChanges(state.selection, 'operators', selects);
      if (next !== state.selection) state.setSelection(next);
    },
    [store],
  );

  const onEdgesChange = useCallback(
    (changes: EdgeChange<PartitionFlowEdge>[]) => {
      const { model } = latest.current;
      const selects: SelectChange[] = [];
      for (const change of changes) {
        if (change.type !== 'select') continue;
        const docId = model.byEdge.get(change.id)?.docId;
        if (docId !== undefined) selects.push({ id: docId, selected: change.selected });
      }
      const state = store.getState();
      const next = applySelectChanges(state.selection, 'edges', selects);
      if (next !== state.selection) state.setSelection(next);
    },
    [store],
  );

  const onConnect = useCallback(
    (connection: Connection) => {
      const { model } = latest.current;
      const from = model.byNode.get(connection.source);
      const to = model.byNode.get(connection.target);
      if (from?.opId === undefined || to?.opId === undefined) return;
      const fromPort =
        connection.sourceHandle == null ? 'out' : (portOf(from.ports, connection.sourceHandle) ?? 'out');
      store.getState().connect({ from: from.opId, to: to.opId, fromPort });
    },
    [store],
  );

  // An operator's context menu (OperatorMenu.tsx), where its card was right-clicked.
  const [menuPlace, setMenuPlace] = useState<OperatorMenuPlace>();
  const onNodeContextMenu = useCallback((event: ReactMouseEvent, node: OperatorFlowNode) => {
    const operator = latest.current.model.byNode.get(node.id)?.opId;
    if (operator === undefined) return;
    event.preventDefault();
    setMenuPlace({ operator, x: event.clientX, y: event.clientY });
  }, []);
  const closeMenu = useCallback(() => setMenuPlace(undefined), []);
  const onMoveStart = useCallback(
    (event: MouseEvent | TouchEvent | null) => {
      closeMenu();
      // Only the user's own pan or zoom has an event; a fit or a focus has none.
      if (event !== null) fitting.userMoved();
    },
    [closeMenu, fitting],
  );

  const beginMove = useCallback(() => store.getState().beginMove(), [store]);
  const endMove = useCallback(() => store.getState().endMove(), [store]);

  const onDragOver = useCallback((event: DragEvent) => {
    if (!carriesKind(event.dataTransfer)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
  }, []);

  const onDrop = useCallback(
    (event: DragEvent) => {
      const kind = draggedKind(event.dataTransfer);
      if (kind === undefined) return;
      event.preventDefault();
      const at = flow.screenToFlowPosition({ x: event.clientX, y: event.clientY });
      store.getState().addOperator(kind, snap({ x: at.x - NODE_WIDTH / 2, y: at.y - NODE_HEIGHT / 2 }));
    },
    [flow, store],
  );

  useEffect(
    () =>
      registerViewport({
        fit: () => fitToJob(ZOOM_DURATION),
        zoomIn: () => void flow.zoomIn({ duration: ZOOM_DURATION }),
        zoomOut: () => void flow.zoomOut({ duration: ZOOM_DURATION }),
        centre: () => {
          const box = wrapper.current?.getBoundingClientRect();
          if (box === undefined) return { x: 0, y: 0 };
          return flow.screenToFlowPosition({ x: box.left + box.width / 2, y: box.top + box.height / 2 });
        },
      }),
    [flow, fitToJob],
  );

  // The job opens fitted (see `opening`); later requests come from the store.
  const fitDone = useRef(fitRequest);
  useEffect(() => {
    if (fitDone.current === fitRequest) return;
    fitDone.current = fitRequest;
    fitToJob();
  }, [fitRequest, fitToJob]);

  const focused = useRef(focusRequest?.seq);
  useEffect(() => {
    if (focusRequest === undefined || focused.current === focusRequest.seq) return;
    focused.current = focusRequest.seq;
    const { model } = latest.current;
    const centreOfOperator = (opId: string) => {
      const nodeId = model.nodeOf.get(opId);
      const node = nodeId === undefined ? undefined : flow.getInternalNode(nodeId);
      return node === undefined ? undefined : centreOf(node);
    };
    let target: XY | undefined;
    if (focusRequest.kind === 'operator') {
      target = centreOfOperator(focusRequest.id);
    } else {
      const edge = model.edges.find((e) => e.docId === focusRequest.id);
      const a = edge === undefined ? undefined : flow.getInternalNode(edge.source);
      const b = edge === undefined ? undefined : flow.getInternalNode(edge.target);
      if (a !== undefined && b !== undefined) {
        const [p, q] = [centreOf(a), centreOf(b)];
        target = { x: (p.x + q.x) / 2, y: (p.y + q.y) / 2 };
      }
    }
    if (target !== undefined) {
      void flow.setCenter(target.x, target.y, { zoom: Math.max(flow.getZoom(), 1), duration: 300 });
    }
  }, [focusRequest, flow]);

  const empty = model.operators.length === 0;
  return (
    <div className={far ? 'canvas canvas-far' : 'canvas'} ref={wrapper}>
      <FarZoomContext value={far}>
        {opening !== undefined && (
          <ReactFlow<OperatorFlowNode, PartitionFlowEdge>
            aria-label="Job graph"
            nodes={nodes}
            edges={edges}
            nodeTypes={NODE_TYPES}
            edgeTypes={EDGE_TYPES}
            onNodesChange={onNodesChange}
            onEdgesChange={onEdgesChange}
            onConnect={onConnect}
            onNodeContextMenu={onNodeContextMenu}
            onMoveStart={onMoveStart}
            onDragOver={onDragOver}
            onDrop={onDrop}
            onNodeDragStart={beginMove}
            onNodeDragStop={endMove}
            onSelectionDragStart={beginMove}
            onSelectionDragStop={endMove}
            connectionLineComponent={CycleConnectionLine}
            deleteKeyCode={null}
            snapToGrid
            snapGrid={SNAP_GRID}
            minZoom={MIN_ZOOM}
            defaultViewport={opening}
            onlyRenderVisibleElements={model.operators.length > VISIBLE_ONLY_ABOVE && culling}
          >
            <Background variant={BackgroundVariant.Dots} gap={20} size={1.2} color="#c3c9d1" />
            {fitting.minimapShown && (
              <MiniMap<OperatorFlowNode>
                pannable
                zoomable
                ariaLabel="Minimap"
                style={minimapSize(fitting.canvasSize)}
                nodeColor={minimapColour}
                nodeStrokeWidth={0}
                maskColor="rgba(29, 35, 43, 0.08)"
              />
            )}
            <CanvasControls
              minimapShown={fitting.minimapShown}
              onFit={() => fitToJob(ZOOM_DURATION)}
              onToggleMinimap={fitting.toggleMinimap}
            />
          </ReactFlow>
        )}
      </FarZoomContext>
      {menuPlace !== undefined && <OperatorMenu place={menuPlace} onClose={closeMenu} />}
      {empty && (
        <p className="canvas-empty">
          Drag an operator here from the palette, or click one to add it to the middle of the canvas.
        </p>
      )}
    </div>
  );
}
