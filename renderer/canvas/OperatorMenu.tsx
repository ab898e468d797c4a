// The context menu of an operator on the canvas (right-click its card): "Break on this operator"
// turns an operator breakpoint on it on or off, one click instead of the Breakpoints form of
// the Debugger panel. It stops a debug run at every record the operator takes (or, at a
// source, makes). Like that form, it changes nothing while a run races along.
import { useEffect, useRef } from 'react';
import { breaksOnOperator } from '../run/breakpoints';
import { useRun, useRunController } from '../run/runContext';
import { controlsEnabled } from '../run/runControls';
import { breakpointsOf } from '../run/runStore';
import './operatorMenu.css';

/** Which operator the menu is for, and where it opens (viewport coordinates of the click). */
export interface OperatorMenuPlace {
  readonly operator: string;
  readonly x: number;
  readonly y: number;
}

export function OperatorMenu({ place, onClose }: { place: OperatorMenuPlace; onClose: () => void }) {
  const controller = useRunController();
  const breaks = useRun((s) => breaksOnOperator(breakpointsOf(s), place.operator));
  const editable = useRun(
    (s) => controlsEnabled({ status: s.status, mode: s.mode, hasStep: false }).editBreakpoints,
  );
  const menu = useRef<HTMLDivElement>(null);

  useEffect(() => {
    menu.current?.querySelector<HTMLElement>('[role="menuitemcheckbox"]')?.focus();
    const away = (e: MouseEvent) => {
      if (!menu.current?.contains(e.target as Node)) onClose();
    };
    const onEscape = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      onClose();
    };
    window.addEventListener('mousedown', away, true);
    window.addEventListener('keydown', onEscape, true);
    window.addEventListener('blur', onClose);
    return () => {
      window.removeEventListener('mousedown', away, true);
      window.removeEventListener('keydown', onEscape, true);
      window.removeEventListener('blur', onClose);
    };
  }, [onClose]);

  return (
    <div
      ref={menu}
      className="menu operator-menu"
      role="menu"
      aria-label={`Operator ${place.operator}`}
      style={{ left: place.x, top: place.y }}
    >
      <button
        type="button"
        role="menuitemcheckbox"
        aria-checked={breaks}
        disabled={!editable}
        title={
          editable
            ? 'Stop a debug run at every record this operator takes'
            : 'Pause or stop the run to change its breakpoints'
        }
        onClick={() => {
          void controller.toggleOperatorBreakpoint(place.operator);
          onClose();
        }}
      >
        <span className="operator-menu-check" aria-hidden="true">
          {breaks ? '✓' : ''}
        </span>
        <span className="operator-menu-label">Break on this operator</span>
      </button>
    </div>
  );
}
