// The tabbed panels under the canvas, in the WAI-ARIA tabs pattern: one tab stop for the tab
// list, arrow keys (and Home, End) move between tabs and select them as they go.
import { type KeyboardEvent, useId, useRef } from 'react';
import { useDesigner } from '../store/designerContext';
import type { BottomTab } from '../store/designerStore';
import { CheckpointsPanel } from './CheckpointsPanel';
import { DebuggerPanel } from './DebuggerPanel';
import { MetricsPanel } from './MetricsPanel';
import { ProblemsPanel } from './ProblemsPanel';
import { StatePanel } from './StatePanel';
import { useListedProblems } from './useListedProblems';
import './panels.css';

const TABS: readonly BottomTab[] = ['Problems', 'Debugger', 'State', 'Checkpoints', 'Metrics'];

const PANELS: Readonly<Record<BottomTab, () => React.ReactNode>> = {
  Problems: ProblemsPanel,
  Debugger: DebuggerPanel,
  State: StatePanel,
  Checkpoints: CheckpointsPanel,
  Metrics: MetricsPanel,
};

export function BottomPanels() {
  const selected = useDesigner((s) => s.bottomTab);
  const setBottomTab = useDesigner((s) => s.setBottomTab);
  const problems = useListedProblems();
  const problemCount = problems.length;
  const onlyWarnings = problems.every((p) => p.severity === 'warning');
  const base = useId();
  const tabs = useRef(new Map<BottomTab, HTMLButtonElement>());
  const tabId = (tab: BottomTab) => `${base}-tab-${tab}`;
  const panelId = (tab: BottomTab) => `${base}-panel-${tab}`;

  const onKeyDown = (event: KeyboardEvent) => {
    const at = TABS.indexOf(selected);
    const next =
      event.key === 'ArrowRight'
        ? TABS[(at + 1) % TABS.length]
        : event.key === 'ArrowLeft'
          ? TABS[(at - 1 + TABS.length) % TABS.length]
          : event.key === 'Home'
            ? TABS[0]
            : event.key === 'End'
              ? TABS[TABS.length - 1]
              : undefined;
    if (next === undefined) return;
    event.preventDefault();
    setBottomTab(next);
    tabs.current.get(next)?.focus();
  };

  return (
    <section className="bottom-panels" aria-label="Bottom panels">
      <div className="tab-list" role="tablist" aria-label="Panels" onKeyDown={onKeyDown}>
        {TABS.map((tab) => (
          <button
            key={tab}
            ref={(element) => {
              if (element === null) tabs.current.delete(tab);
              else tabs.current.set(tab, element);
            }}
            type="button"
            role="tab"
            id={tabId(tab)}
            className="tab"
            aria-selected={tab === selected}
            aria-controls={panelId(tab)}
            tabIndex={tab === selected ? 0 : -1}
            onClick={() => setBottomTab(tab)}
          >
            {tab}
            {tab === 'Problems' && problemCount > 0 && (
              <>
                {' '}
                <span className={`tab-badge${onlyWarnings ? ' tab-badge-warning' : ''}`}>{problemCount}</span>
              </>
            )}
          </button>
        ))}
      </div>
      {TABS.map((tab) => (
        <div
          key={tab}
          role="tabpanel"
          id={panelId(tab)}
          className="tab-panel"
          aria-labelledby={tabId(tab)}
          hidden={tab !== selected}
        >
          {tab === selected && <Panel tab={tab} />}
        </div>
      ))}
    </section>
  );
}

function Panel({ tab }: { tab: BottomTab }) {
  const Shown = PANELS[tab];
  return <Shown />;
}
