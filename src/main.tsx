/// <reference types="vite-plugin-pwa/vanillajs" />
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { registerSW } from 'virtual:pwa-register';
import { SafeApp } from './App';
import { createBrowserRuntime } from './browserRuntime';
import { AppRuntimeProvider } from './components/AppRuntime';
import { watchForUpdates } from './serviceWorker';
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
if (import.meta.env.PROD) watchForUpdates(registerSW, bindActions(runtime));
