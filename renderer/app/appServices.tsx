// What the app gets from its shell: the host client, the desktop API when inside Electron, and
// the host's description of itself. Components read it through one context.
import { createContext, type ReactNode, useContext } from 'react';
import type { DesktopApi } from '../../engine/host/desktopApi.js';
import type { HostInfo } from '../../engine/protocol/protocol.js';
import type { HostClient } from '../host/hostClient';

export interface AppServices {
  readonly host: HostClient;
  readonly desktop: DesktopApi | undefined;
  readonly info: HostInfo;
}

const ServicesContext = createContext<AppServices | undefined>(undefined);

export function ServicesProvider({ services, children }: { services: AppServices; children: ReactNode }) {
  return <ServicesContext.Provider value={services}>{children}</ServicesContext.Provider>;
}

export function useServices(): AppServices {
  const services = useContext(ServicesContext);
  if (services === undefined) throw new Error('useServices is used outside <ServicesProvider>');
  return services;
}
