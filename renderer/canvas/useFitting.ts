// The canvas's fitted view (fitViewport.ts) over time: the job opens fitted, a fit request or the
// fit command fits it again, and a canvas resized while its view is the fitted one (no pan or
// zoom by the user since) fits again, so dragging the bottom panels taller never cuts the job
// off; a view the user moved keeps its centre instead. Showing or hiding the minimap refits too,
// since a fit keeps the job out from under it.
import type { Node, ReactFlowInstance, Viewport } from '@xyflow/react';
import { type RefObject, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { Size } from './cardGeometry';
import { fitViewport } from './fitViewport';
import type { OperatorFlowNode, PartitionFlowEdge } from './flowElements';
import { minimapRect, readMinimapShown, writeMinimapShown } from './minimapPreference';

const FIT_MAX_ZOOM = 1.25;
export const ZOOM_DURATION = 150;

function sizeOf(element: HTMLElement | null): Size {
  const box = element?.getBoundingClientRect();
  return { width: box?.width ?? 0, height: box?.height ?? 0 };
}

export function useFitting(
  wrapper: RefObject<HTMLDivElement | null>,
  nodes: () => readonly Node[],
  flow: ReactFlowInstance<OperatorFlowNode, PartitionFlowEdge>,
) {
  const [minimapShown, setMinimapShown] = useState(readMinimapShown);
  const minimapOn = useRef(minimapShown);
  minimapOn.current = minimapShown;
  const atFit = useRef(true);
  const nodesNow = useRef(nodes);
  nodesNow.current = nodes;

  const fitted = useCallback((): Viewport => {
    const canvas = sizeOf(wrapper.current);
    return fitViewport(nodesNow.current(), canvas, {
      maxZoom: FIT_MAX_ZOOM,
      ...(minimapOn.current ? { minimap: minimapRect(canvas) } : {}),
    });
  }, [wrapper]);

  // React Flow mounts once the canvas's size is known, already fitted to the job.
  const [opening, setOpening] = useState<Viewport>();
  const [canvasSize, setCanvasSize] = useState<Size>({ width: 0, height: 0 });
  useLayoutEffect(() => {
    setCanvasSize(sizeOf(wrapper.current));
    setOpening(fitted());
  }, [wrapper, fitted]);

  const fitToJob = useCallback(
    (duration?: number) => {
      atFit.current = true;
      void flow.setViewport(fitted(), duration === undefined ? undefined : { duration });
    },
    [flow, fitted],
  );

  const mounted = opening !== undefined;
  useEffect(() => {
    const element = wrapper.current;
    if (!mounted || element === null) return;
    let last = sizeOf(element);
    const observer = new ResizeObserver(() => {
      const now = sizeOf(element);
      const before = last;
      last = now;
      if (now.width === before.width && now.height === before.height) return;
      if (now.width === 0 || now.height === 0) return;
      setCanvasSize(now);
      if (atFit.current) {
        void flow.setViewport(fitted());
        return;
      }
      const { x, y, zoom } = flow.getViewport();
      void flow.setViewport({
        x: x + (now.width - before.width) / 2,
        y: y + (now.height - before.height) / 2,
        zoom,
      });
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [mounted, wrapper, flow, fitted]);

  const toggleMinimap = useCallback(() => {
    const shown = !minimapOn.current;
    minimapOn.current = shown;
    setMinimapShown(shown);
    writeMinimapShown(shown);
    if (atFit.current) fitToJob(ZOOM_DURATION);
  }, [fitToJob]);

  /** The user panned or zoomed: the view is theirs until the next fit. */
  const userMoved = useCallback(() => {
    atFit.current = false;
  }, []);

  return { opening, canvasSize, minimapShown, fitToJob, toggleMinimap, userMoved };
}
