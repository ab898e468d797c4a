// React access to the one store: components read it through selectors only.
import { createContext, type ReactNode, useContext } from 'react';
import type { TemporalState } from 'zundo';
import { useStore } from 'zustand';
import type { Designer, DesignerStore } from './designerStore';

const StoreContext = createContext<DesignerStore | undefined>(undefined);

export function DesignerProvider({ store, children }: { store: DesignerStore; children: ReactNode }) {
  return <StoreContext.Provider value={store}>{children}</StoreContext.Provider>;
}

export function useDesignerStore(): DesignerStore {
  const store = useContext(StoreContext);
  if (store === undefined) throw new Error('useDesigner is used outside <DesignerProvider>');
  return store;
}

export function useDesigner<T>(selector: (state: Designer) => T): T {
  return useStore(useDesignerStore(), selector);
}

export function useHistory<T>(selector: (state: TemporalState<{ draft: Designer['draft'] }>) => T): T {
  return useStore(useDesignerStore().temporal, selector);
}
