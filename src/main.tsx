/// <reference types="vite-plugin-pwa/vanillajs" />
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { SafeApp } from './App';
import { createBrowserRuntime } from './browserRuntime';
import { AppRuntimeProvider } from './components/AppRuntime';
import { bindActions } from './store';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
const runtime = createBrowserRuntime();
createRoot(root).render(
  <StrictMode>
    <AppRuntimeProvider runtime={runtime}>
      <SafeApp />
    </AppRuntimeProvider>
  </StrictMode>,
);

// Only a production build has a service worker (vite-plugin-pwa writes none for the dev server).
// Its registration is a chunk of its own, which the first screen does not wait for; Workbox
// registers the worker once the page has loaded, as before.
if (import.meta.env.PROD) {
  void Promise.all([import('virtual:pwa-register'), import('./serviceWorker')]).then(([{ registerSW }, { watchForUpdates }]) =>
    watchForUpdates(registerSW, bindActions(runtime)),
  );
}
