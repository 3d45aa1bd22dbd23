import { Composer } from './components/Composer';

export function App() {
  return (
    <div className="app">
      <nav className="sidebar" aria-label="Conversations">
        <h1 className="brand">Windowpane</h1>
        <button type="button">New chat</button>
      </nav>
      <main className="chat">
        <p className="empty">Start a conversation. Your messages stay in this browser.</p>
        <Composer onSend={() => undefined} />
      </main>
    </div>
  );
}
