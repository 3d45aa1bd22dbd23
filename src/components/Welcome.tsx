export interface WelcomeProps {
  isDemo: boolean;
  onAddKey: () => void;
  onTry: (text: string) => void;
}

const SAMPLES = ['What does Windowpane do with long conversations?', 'Explain prompt caching in two sentences.', 'Write a haiku about context windows.'];

/** The empty state: what this is, the Demo, and the way to a real key. */
export function Welcome({ isDemo, onAddKey, onTry }: WelcomeProps) {
  return (
    <section className="welcome" aria-label="Welcome">
      <h2>Chat as long as you like.</h2>
      <p>
        Windowpane keeps every conversation inside the model’s context window and your budget, and shows you exactly what each request sends. Everything stays
        in this browser.
      </p>
      {isDemo ? (
        <p>
          You’re using the <strong>Demo</strong>: it needs no key and answers locally, with a tiny context window so you can watch trimming and summaries happen
          within a few messages.
        </p>
      ) : null}
      <div className="row">
        {SAMPLES.map((s) => (
          <button key={s} type="button" onClick={() => onTry(s)}>
            {s}
          </button>
        ))}
      </div>
      {isDemo && (
        <button type="button" className="primary" onClick={onAddKey}>
          Add an API key
        </button>
      )}
    </section>
  );
}
