// The browser form's menu bar (Electron shows the native menu instead). Menus follow the WAI-ARIA
// menu pattern closely enough for keyboard users: Enter/Space/ArrowDown open, Escape closes.
import { useEffect, useRef, useState } from 'react';
import type { MenuCommand } from '../../engine/host/desktopApi.js';
import { shortcutLabel } from './commands';
import { MENUS } from './menuModel';

export function MenuBar({ run, isMac }: { run: (command: MenuCommand) => void; isMac: boolean }) {
  const [open, setOpen] = useState<string | undefined>(undefined);
  const bar = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (open === undefined) return;
    const close = (e: MouseEvent) => {
      if (!bar.current?.contains(e.target as Node)) setOpen(undefined);
    };
    window.addEventListener('mousedown', close);
    return () => window.removeEventListener('mousedown', close);
  }, [open]);

  // The open menu's first item takes the focus (the bar's own entries are menuitems too).
  useEffect(() => {
    if (open !== undefined)
      bar.current?.querySelector<HTMLElement>('[role="menu"] [role="menuitem"]')?.focus();
  }, [open]);

  const onMenuKey = (e: React.KeyboardEvent<HTMLElement>) => {
    const items = [...e.currentTarget.querySelectorAll<HTMLElement>('[role="menuitem"]')];
    const at = items.indexOf(document.activeElement as HTMLElement);
    if (e.key === 'Escape') {
      // Back to the entry the menu belongs to, so the keyboard user is where they were.
      e.preventDefault();
      const entry = e.currentTarget.parentElement?.querySelector<HTMLElement>(':scope > [aria-haspopup]');
      setOpen(undefined);
      entry?.focus();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const next = (at + (e.key === 'ArrowDown' ? 1 : -1) + items.length) % items.length;
      items[next]?.focus();
    }
  };

  return (
    <div className="menubar" role="menubar" aria-label="Main menu" ref={bar}>
      {MENUS.map((menu) => (
        <div key={menu.label} className="menubar-entry">
          <button
            type="button"
            role="menuitem"
            aria-haspopup="menu"
            aria-expanded={open === menu.label}
            className={open === menu.label ? 'active' : undefined}
            onClick={() => setOpen(open === menu.label ? undefined : menu.label)}
            onKeyDown={(e) => {
              if (e.key === 'ArrowDown') {
                e.preventDefault();
                setOpen(menu.label);
              }
            }}
            onMouseEnter={() => open !== undefined && setOpen(menu.label)}
          >
            {menu.label}
          </button>
          {open === menu.label && (
            <div className="menu" role="menu" aria-label={menu.label} onKeyDown={onMenuKey}>
              {menu.items.map((item, i) =>
                item === 'separator' ? (
                  // biome-ignore lint/suspicious/noArrayIndexKey: separators have no identity of their own
                  <hr key={`sep${i}`} />
                ) : (
                  <button
                    type="button"
                    role="menuitem"
                    key={item.command}
                    onClick={() => {
                      setOpen(undefined);
                      run(item.command);
                    }}
                  >
                    <span>{item.label}</span>
                    <kbd>{shortcutLabel(item.command, isMac) ?? ''}</kbd>
                  </button>
                ),
              )}
            </div>
          )}
        </div>
      ))}
    </div>
  );
}
