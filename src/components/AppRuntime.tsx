/**
 * The React binding of the store: the runtime the app was given, for every component
 * below. Components select narrowly with `useApp(selector)` (`useShallow` for several
 * fields) and call what `useActions()` returns; the store itself knows nothing of React.
 */
import { createContext, useContext, useMemo, type ReactNode } from 'react';
import { useStore } from 'zustand';
import { bindActions, type Actions, type AppState, type Runtime } from '../store';

const RuntimeContext = createContext<{ runtime: Runtime; actions: Actions } | null>(null);

export function AppRuntimeProvider({ runtime, children }: { runtime: Runtime; children: ReactNode }) {
  const value = useMemo(() => ({ runtime, actions: bindActions(runtime) }), [runtime]);
  return <RuntimeContext.Provider value={value}>{children}</RuntimeContext.Provider>;
}

function useRuntimeContext() {
  const value = useContext(RuntimeContext);
  if (!value) throw new Error('A component that reads the store was rendered outside <AppRuntimeProvider>.');
  return value;
}

/** The part of the state `selector` picks; the component renders again when it changes. */
export function useApp<T>(selector: (state: AppState) => T): T {
  return useStore(useRuntimeContext().runtime.store, selector);
}

/** The store's actions, bound to this app's runtime. */
export function useActions(): Actions {
  return useRuntimeContext().actions;
}

/** Whether this app was given a sync service (`deps.sync`); without one, Settings → Sync offers nothing. */
export function useSyncAvailable(): boolean {
  return useRuntimeContext().runtime.deps.sync !== undefined;
}
