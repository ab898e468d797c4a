// React access to the run slice and its commands. Components read the store through narrow
// selectors: an operator on the canvas asks only whether it is the active one, so a metrics event
// re-renders what changed and not five hundred operators.
import { createContext, type ReactNode, useContext } from 'react';
import { useStore } from 'zustand';
import type { RunController } from './runController';
import type { RunStore, RunStoreState } from './runStore';

export interface RunServices {
  readonly store: RunStore;
  readonly controller: RunController;
}

const RunContext = createContext<RunServices | undefined>(undefined);

export function RunProvider({ services, children }: { services: RunServices; children: ReactNode }) {
  return <RunContext.Provider value={services}>{children}</RunContext.Provider>;
}

export function useRunServices(): RunServices {
  const services = useContext(RunContext);
  if (services === undefined) throw new Error('useRun is used outside <RunProvider>');
  return services;
}

export function useRun<T>(selector: (state: RunStoreState) => T): T {
  return useStore(useRunServices().store, selector);
}

export function useRunController(): RunController {
  return useRunServices().controller;
}
