// The bar between the canvas and the bottom panels: drag it, or focus it and use the arrow
// keys, to give the panels more or less height (the Debugger and State panels need room).
import { useRef } from 'react';
import { clampPanelsHeight, MIN_PANELS_HEIGHT, maxPanelsHeight } from './panelsHeight';

const KEY_STEP = 40;

export function PanelSplitter({ height, onChange }: { height: number; onChange: (height: number) => void }) {
  const drag = useRef<{ startY: number; startHeight: number } | undefined>(undefined);
  const clamp = (h: number) => clampPanelsHeight(h, window.innerHeight);
  return (
    // biome-ignore lint/a11y/useSemanticElements: a focusable, draggable window splitter is the separator role's widget form; an <hr> cannot take focus or keys
    <div
      className="panel-splitter"
      role="separator"
      aria-label="Resize panels"
      aria-orientation="horizontal"
      aria-valuenow={height}
      aria-valuemin={MIN_PANELS_HEIGHT}
      aria-valuemax={maxPanelsHeight(window.innerHeight)}
      tabIndex={0}
      onPointerDown={(e) => {
        e.currentTarget.setPointerCapture(e.pointerId);
        drag.current = { startY: e.clientY, startHeight: height };
      }}
      onPointerMove={(e) => {
        if (drag.current !== undefined)
          onChange(clamp(drag.current.startHeight + drag.current.startY - e.clientY));
      }}
      onPointerUp={() => {
        drag.current = undefined;
      }}
      onKeyDown={(e) => {
        if (e.key === 'ArrowUp') onChange(clamp(height + KEY_STEP));
        else if (e.key === 'ArrowDown') onChange(clamp(height - KEY_STEP));
        else return;
        e.preventDefault();
      }}
    />
  );
}
