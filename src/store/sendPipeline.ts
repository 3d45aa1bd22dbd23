/**
 * One turn, from Send to the saved answer. The conversation is marked busy once, for the
 * whole turn. Here are the checks a turn must pass before anything is stored, which the
 * composer waits for; the steps after them (turnSteps.ts) are loaded on first use.
 */
import type { Runtime } from './runtime';
import { shownBranch } from './branches';
import { conversationRead } from './conversationActions';
import { refusedOffline } from './offline';
import { contextFor, screenPlan } from './planning';
import type { TurnContext } from './turn';
import type * as Steps from './turnSteps';

type TurnSteps = typeof Steps;
let loaded: TurnSteps | undefined;
let loading: Promise<TurnSteps> | undefined;

/**
 * Loads the steps of a turn (once; after a failure, the next call tries again). The app calls
 * it while idle once the first screen shows, and the composer when it is focused, so a
 * message is sent with no wait.
 */
export function loadTurnSteps(): Promise<TurnSteps> {
  loading ??= import('./turnSteps').then(
    (module) => (loaded = module),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/**
 * The steps of a turn, or null when they cannot be loaded (offline before they were saved,
 * say): the user is told, and a message from the composer (`unsent`) goes back into it.
 * Callers take `loaded` when it is set, so a turn starts in the same task as its Send.
 */
async function stepsOnceLoaded(rt: Runtime, unsent?: string): Promise<TurnSteps | null> {
  try {
    return await loadTurnSteps();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const back = unsent !== undefined && !rt.store.getState().draft;
    if (back) rt.store.setState({ draft: unsent });
    const kept = back ? ' Your message is back in the message box.' : '';
    rt.notifier.notify({
      id: 'turn-steps',
      tone: 'error',
      text: `Windowpane couldn't load the part that sends messages (${reason}). Check the connection and try again.${kept}`,
    });
    return null;
  }
}

/**
 * Sends `text` as a user message (creating the conversation if needed) and streams the
 * answer. Returns false at once, taking nothing, while another answer is in flight, while
 * the settings cannot be planned with or while a model on another machine is out of reach
 * (offline), so the composer keeps the draft. The message follows the end of the branch
 * shown, or `edit.parentId` for an edited message (a new version of it, started as a sibling).
 */
export function send(rt: Runtime, conversationId: string | null, text: string, edit?: { parentId: string | null }): boolean {
  const state = rt.store.getState();
  // The composer's images and PDFs go with a new message, not with an edit of an earlier one.
  const withImages = !edit && (state.draftImages.length > 0 || state.draftPdfs.length > 0);
  if ((!text.trim() && !withImages) || state.sendingId) return false;
  const ctx = contextFor(rt, conversationId);
  if (refused(rt, ctx, conversationId, 'message')) return false;
  void busyWith(rt, conversationId ?? 'new', async () => {
    // Sent while a long conversation is still being read: it follows what is stored.
    const read = conversationRead(rt, conversationId);
    if (read) await read;
    const steps = loaded ?? (await stepsOnceLoaded(rt, edit ? undefined : text));
    if (!steps) return;
    const id = await steps.postUserMessage(rt, conversationId, text, edit);
    if (id) await steps.answerTurn(rt, id, ctx);
  });
  return true;
}

/** Answers the branch shown as it stands (a new version of an answer). Does nothing while another answer is in flight. */
export async function respond(rt: Runtime, conversationId: string): Promise<void> {
  if (rt.store.getState().sendingId) return;
  const ctx = contextFor(rt, conversationId);
  if (refused(rt, ctx, conversationId, 'answer')) return;
  await busyWith(rt, conversationId, async () => {
    const steps = loaded ?? (await stepsOnceLoaded(rt));
    if (steps) await steps.answerTurn(rt, conversationId, ctx);
  });
}

/** Writes the summary again from the messages it covers. */
export async function regenerateSummary(rt: Runtime, summaryId: string): Promise<void> {
  const steps = loaded ?? (await stepsOnceLoaded(rt));
  if (steps) await steps.regenerateSummary(rt, summaryId);
}

/**
 * Whether the turn is refused before anything is stored, so a draft stays in the composer
 * (the user told why): the settings in `ctx` cannot be planned with (in the chat screen's
 * words), or the device is offline and the model is on another machine.
 */
function refused(rt: Runtime, ctx: TurnContext, conversationId: string | null, asking: 'message' | 'answer'): boolean {
  const { problem } = screenPlan(ctx, shownBranch(rt.store.getState(), conversationId));
  if (problem) rt.notifier.notify({ id: 'cannot-plan', tone: 'error', text: problem });
  return problem !== null || refusedOffline(rt, ctx, asking);
}

/**
 * Stops the answer being streamed, or the tool running between two answers (its worker is
 * terminated); what arrived so far is kept and marked stopped, and tool calls left without
 * a result get one saying the user stopped them, so the next request is valid.
 */
export function stop(rt: Runtime, conversationId: string): void {
  rt.controllers.get(conversationId)?.abort();
}

/** Marks the conversation busy (`sendingId`) for all of `work`, and clears what the turn showed when it ends. */
async function busyWith(rt: Runtime, busyId: string, work: () => Promise<void>): Promise<void> {
  rt.store.setState({ sendingId: busyId, retry: null });
  try {
    await work();
  } catch (error) {
    rt.notifier.reportError(error, 'get an answer');
  } finally {
    rt.store.setState({ sendingId: null, streaming: null, toolRun: null, retry: null });
  }
}
