// The editing screen: menu bar and toolbar on top, palette left, canvas centre, inspector
// right, the tabbed panels below.
import { type CSSProperties, useCallback, useState, useSyncExternalStore } from 'react';
import type { MenuCommand } from '../../engine/host/desktopApi.js';
import { Canvas } from '../canvas/Canvas';
import { Inspector } from '../inspector/Inspector';
import { Palette } from '../palette/Palette';
import { BottomPanels } from '../panels/BottomPanels';
import { RunToolbar } from '../run/RunToolbar';
import { useDesigner, useHistory } from '../store/designerContext';
import { documentTitle, isDirty } from '../store/selectors';
import { TrustBanner } from '../trust/TrustBanner';
import { MenuBar } from './MenuBar';
import { PanelSplitter } from './PanelSplitter';
import {
  clampPanelsHeight,
  defaultPanelsHeight,
  pageStorage,
  readPanelsHeight,
  writePanelsHeight,
} from './panelsHeight';
import { RawTextView } from './RawTextView';

function onResize(changed: () => void): () => void {
  window.addEventListener('resize', changed);
  return () => window.removeEventListener('resize', changed);
}

/** The window's height, so that the panels' height follows the window (and stays inside it). */
function useWindowHeight(): number {
  return useSyncExternalStore(onResize, () => window.innerHeight);
}

export function Workbench({
  run,
  isMac,
  nativeMenu,
}: {
  run: (command: MenuCommand) => void;
  isMac: boolean;
  nativeMenu: boolean;
}) {
  const title = useDesigner(documentTitle);
  const dirty = useDesigner(isDirty);
  const hasDraft = useDesigner((s) => s.draft !== undefined);
  const panelsVisible = useDesigner((s) => s.panelsVisible);
  const windowHeight = useWindowHeight();
  const [chosenHeight, setChosenHeight] = useState(() => readPanelsHeight(pageStorage()));
  const panelsHeight = clampPanelsHeight(chosenHeight ?? defaultPanelsHeight(windowHeight), windowHeight);
  const choosePanelsHeight = useCallback((height: number) => {
    setChosenHeight(height);
    writePanelsHeight(pageStorage(), height);
  }, []);
  const canUndo = useHistory((h) => h.pastStates.length > 0);
  const canRedo = useHistory((h) => h.futureStates.length > 0);

  const tool = (command: MenuCommand, label: string, disabled = false) => (
    <button type="button" onClick={() => run(command)} disabled={disabled}>
      {label}
    </button>
  );

  return (
    <div
      className={`workbench${panelsVisible ? '' : ' panels-hidden'}`}
      style={{ '--panels-height': `${panelsHeight}px` } as CSSProperties}
    >
      <header className="topbar">
        {!nativeMenu && <MenuBar run={run} isMac={isMac} />}
        <div className="toolbar" role="toolbar" aria-label="Tools">
          {tool('file.new', 'New')}
          {tool('file.open', 'Open')}
          {tool('file.save', 'Save')}
          <span className="toolbar-sep" />
          {tool('edit.undo', 'Undo', !canUndo)}
          {tool('edit.redo', 'Redo', !canRedo)}
          <span className="toolbar-sep" />
          {tool('view.autoLayout', 'Auto layout', !hasDraft)}
          {tool('view.fit', 'Fit view', !hasDraft)}
        </div>
        {hasDraft && <RunToolbar run={run} />}
        <div className="doc-title">
          {title}
          {dirty && (
            <span className="dirty-mark" role="status" aria-label="Unsaved changes" title="Unsaved changes">
              ●
            </span>
          )}
        </div>
      </header>
      {hasDraft ? (
        <>
          <Palette />
          <section className="canvas-area" aria-label="Canvas">
            <Canvas />
            <TrustBanner />
          </section>
          <Inspector />
        </>
      ) : (
        <RawTextView />
      )}
      {panelsVisible && <PanelSplitter height={panelsHeight} onChange={choosePanelsHeight} />}
      {panelsVisible && <BottomPanels />}
    </div>
  );
}
