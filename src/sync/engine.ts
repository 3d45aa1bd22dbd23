/**
 * The sync engine: keeps the app's records and the replicated copy in step, one record at a
 * time, by merging the two sides with the rules of records.ts and writing each side only
 * where it differs from the merge. The same `settle` runs for a change made here (a write
 * announced by a tab) and for a document that arrived from the server, so the outcome does
 * not depend on which came first. Writes to the app's store go through the repositories and
 * are announced, so every tab and the search index follow what arrives.
 */
import { hashString, type Conversation, type StoredMessage } from '../core';
import { SETTINGS_KEY, type AttachmentRecord, type PortableMessage, type StorageChange, type SyncedRecord } from '../persistence';
import { CHECK_ID, SealBroken } from './crypto';
import type { StoredDoc } from './docStore';
import { openParts, PartMissing, sealParts } from './documents';
import {
  canonical,
  CONVERSATION_FIELDS,
  deletionStands,
  fingerprint,
  isDeleted,
  keyOf,
  mergePayloads,
  recordKey,
  restamp,
  conversationValues,
  sameConversation,
  sameMessage,
  type ConversationPayload,
  type RecordPayload,
  type Stamp,
} from './records';
import type { EngineOptions } from './engineOptions';
import { createRecordIO } from './recordIO';
import { newestLeaf, settleOrder } from './settleOrder';

/** Records settled per batch: one read of the replicated copy and one write each way. */
const BATCH = 200;
const PRIVATE_SETTINGS = ['apiKeys', 'keyConfirmedFor', 'mcpSecrets'];
/** A conversation's title as notices name it: cut, so a notice stays a line or two whatever the title. */
const named = (title: string) => `“${title.length > 80 ? `${title.slice(0, 79)}…` : title}”`;
const keptHere = (title: string) => `${named(title)}, deleted on this device, was kept: another device added to it meanwhile.`;

export interface Engine {
  /** Sends every record that changed here since it was last synced (the first sync sends all). */
  pushAll(): Promise<void>;
  /** Sends what one announced write changed. */
  pushChange(change: StorageChange): Promise<void>;
  /** Applies what arrived in the replicated copy since the last pass. */
  pull(): Promise<void>;
}

export function createEngine(options: EngineOptions): Engine {
  const { keys, docs, repositories: repos, events } = options;
  const io = createRecordIO(options);
  const { state, docIdFor, remember, decode, publish, publishMany, ownRevs, keyOfDoc, knownMessages, cascadeDeletion } = io;
  const stampNow = (): Stamp => [options.now(), options.deviceId];

  // ---------------------------------------------------------------- conversations

  function conversationPayload(local: Conversation, previous: SyncedRecord | undefined): ConversationPayload {
    const { messageCount: _count, ...conversation } = local;
    const { stamps } = restamp(CONVERSATION_FIELDS, local as unknown as Record<(typeof CONVERSATION_FIELDS)[number], unknown>, previous?.fields, stampNow());
    return { kind: 'conversation', conversation, stamps };
  }

  /**
   * Settles conversations. `arriving`: ids of messages that arrived for a conversation this
   * device does not have, which count against its deletion like messages held here.
   */
  async function settleConversations(ids: readonly string[], given?: Map<string, StoredDoc>, arriving = new Map<string, PortableMessage[]>()): Promise<void> {
    const map = await state();
    const keyList = ids.map(recordKey.conversation);
    const idList = await Promise.all(keyList.map(docIdFor));
    const stored = given ?? (await docs.getMany(idList));
    const done: SyncedRecord[] = [];
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const key = keyList[i]!;
      const remote = await decode(stored.get(idList[i]!));
      if (remote === 'refused' || remote === 'pending') continue;
      const local = await repos.conversations.getConversation(id);
      const previous = map.get(key);
      let mine: ConversationPayload | undefined;
      if (local) mine = conversationPayload(local, previous);
      else if (previous?.fields && remote.payload?.kind === 'conversation' && !isDeleted(remote.payload)) {
        // Deleted here since it was last synced: a deletion that knew what this device had.
        mine = { ...remote.payload, deleted: { stamp: stampNow(), known: await knownMessages(id) } };
      }
      const theirs = remote.payload?.kind === 'conversation' ? remote.payload : undefined;
      // Its deletion here was synced (no fields kept), yet it comes back: another device kept it.
      if (!local && previous && !previous.fields && theirs && !isDeleted(theirs)) events.notice(keptHere(theirs.conversation.title));
      let merged = mine && theirs ? mergePayloads(mine, theirs) : (mine ?? theirs);
      if (!merged) continue;
      const deletion = isDeleted(merged) ? merged.deleted : undefined;
      if (deletion) {
        const arrived = arriving.get(id) ?? [];
        const stands = (held: readonly StoredMessage[]) => deletionStands(deletion, held.map((m) => m.id).concat(arrived.map((m) => m.id)));
        if (stands(local ? await repos.conversations.getMessages(id) : [])) {
          if (local) {
            // Not when a message was added here meanwhile: settled again next pass, where it counts against the deletion.
            if (!(await repos.conversations.deleteConversation(id, (stored) => stands(stored.messages)))) {
              pending.add(idList[i]!);
              continue;
            }
            events.notice(`${named(local.title)} was deleted on another device.`);
          }
          await cascadeDeletion(id, BATCH);
        } else {
          // Someone went on with it without seeing the deletion: it stays, whole, everywhere, showing where they went on.
          const leaf = newestLeaf(arriving.get(id) ?? [])?.id ?? merged.conversation.activeLeafId;
          merged = { ...merged, conversation: { ...merged.conversation, activeLeafId: leaf }, stamps: { ...merged.stamps, activeLeafId: stampNow() } };
          const title = merged.conversation.title;
          events.notice(local ? `${named(title)} was deleted on another device while this one added to it; it was kept.` : keptHere(title));
        }
      }
      const deleted = isDeleted(merged);
      if (!deleted) {
        const localFields = local ? canonical({ ...local, messageCount: undefined }) : undefined;
        const same = localFields === canonical(merged.conversation);
        if (!same && !(await repos.sync.putConversation(merged.conversation, (stored) => sameConversation(stored, local)))) {
          // Changed here since it was read (a branch switched, a message sent): merged again with that change next.
          pending.add(idList[i]!);
          continue;
        }
        if (!local && previous) await resendMessagesOf(id);
      }
      if (!theirs || canonical(theirs) !== canonical(merged) || remote.losers.length > 0) await publish(key, merged, remote.rev, remote.losers);
      // What is stored here now is the merged record: remembering the local one it replaced would make
      // the next pass take the other device's values for a change made here, stamped later than theirs.
      const fields = deleted ? undefined : { values: conversationValues(merged), stamps: merged.stamps };
      done.push({ key, docId: idList[i]!, hash: hashString(canonical(merged)), conversationId: id, ...(fields ? { fields } : {}) });
    }
    await remember(done);
  }

  /** After a conversation came back, sends every message this device has of it (the deletion removed their documents). */
  async function resendMessagesOf(conversationId: string): Promise<void> {
    const messages = await repos.conversations.getMessages(conversationId);
    await settleMessages(
      messages.map((m) => m.id),
      undefined,
      new Map(messages.map((m) => [m.id, m])),
    );
  }

  // ---------------------------------------------------------------- messages

  async function settleMessages(ids: readonly string[], given?: Map<string, StoredDoc>, locals?: Map<string, StoredMessage>): Promise<void> {
    const map = await state();
    const done: SyncedRecord[] = [];
    const toApply: StoredMessage[] = [];
    const missingConversations = new Map<string, PortableMessage[]>();
    const waiting: Array<{ id: string; payload: RecordPayload & { kind: 'message' } }> = [];
    /** Each applied message as it was read here (none: absent), which it must still be when written. */
    const basis = new Map<string, StoredMessage | undefined>();
    for (let start = 0; start < ids.length; start += BATCH) {
      const slice = ids.slice(start, start + BATCH);
      const keyList = slice.map(recordKey.message);
      const idList = await Promise.all(keyList.map(docIdFor));
      const stored = given ?? (await docs.getMany(idList));
      const here = locals ?? (await repos.sync.messagesById(slice));
      const outgoing: Parameters<typeof publishMany>[0][number][] = [];
      const conversationsHere = new Map<string, boolean>();
      const conversationHere = async (conversationId: string) => {
        if (!conversationsHere.has(conversationId)) conversationsHere.set(conversationId, (await repos.sync.existingConversations([conversationId])).size > 0);
        return conversationsHere.get(conversationId)!;
      };
      for (let i = 0; i < slice.length; i++) {
        const id = slice[i]!;
        const key = keyList[i]!;
        const remote = await decode(stored.get(idList[i]!));
        if (remote === 'refused' || remote === 'pending') continue;
        const local = here.get(id);
        if (local?.status === 'streaming') continue;
        const previous = map.get(key);
        if (!local && previous) continue; // its conversation was deleted here: settled with the conversation
        const theirs = remote.payload?.kind === 'message' ? remote.payload : undefined;
        let mine: (RecordPayload & { kind: 'message' }) | undefined;
        if (local) {
          const { seq: _seq, ...message } = local;
          const { stamps } = restamp(['record'], { record: message }, previous?.fields, stampNow());
          mine = { kind: 'message', message, stamp: stamps.record };
        }
        const merged = mine && theirs ? mergePayloads(mine, theirs) : (mine ?? theirs);
        if (!merged) continue;
        if (!local || canonical(mine!.message) !== canonical(merged.message)) {
          if (!local && !(await conversationHere(merged.message.conversationId))) {
            const list = missingConversations.get(merged.message.conversationId) ?? [];
            list.push(merged.message);
            missingConversations.set(merged.message.conversationId, list);
            waiting.push({ id, payload: merged });
            continue;
          }
          toApply.push({ ...merged.message, seq: local?.seq ?? 0 });
          basis.set(id, local);
        }
        if (!theirs || canonical(theirs) !== canonical(merged) || remote.losers.length > 0)
          outgoing.push({ key, payload: merged, rev: remote.rev, losers: remote.losers });
        const hash = fingerprint(merged.message);
        done.push({
          key,
          docId: idList[i]!,
          hash,
          conversationId: merged.message.conversationId,
          fields: { values: { record: hash }, stamps: { record: merged.stamp } },
        });
      }
      await publishMany(outgoing);
    }
    if (missingConversations.size > 0) {
      await settleConversations([...missingConversations.keys()], undefined, missingConversations);
      for (const { id, payload } of waiting) {
        if (!(await repos.conversations.getConversation(payload.message.conversationId))) {
          pending.add(await docIdFor(recordKey.message(id)));
          continue;
        }
        toApply.push({ ...payload.message, seq: 0 });
        const hash = fingerprint(payload.message);
        done.push({
          key: recordKey.message(id),
          docId: await docIdFor(recordKey.message(id)),
          hash,
          conversationId: payload.message.conversationId,
          fields: { values: { record: hash }, stamps: { record: payload.stamp } },
        });
      }
    }
    const { changedMeanwhile } = await repos.sync.putMessages(
      settleOrder(toApply).map(({ seq: _seq, ...m }) => m),
      (id) => (stored) => sameMessage(stored, basis.get(id)),
    );
    // Changed here since it was read (a pin): not remembered as synced, so it is merged again with that change.
    for (const id of changedMeanwhile) pending.add(await docIdFor(recordKey.message(id)));
    await remember(done.filter((record) => !changedMeanwhile.includes(record.key.slice(2))));
  }

  // ---------------------------------------------------------------- settings

  async function settleSettings(given?: Map<string, StoredDoc>): Promise<void> {
    const key = recordKey.settings();
    const docId = await docIdFor(key);
    const remote = await decode((given ?? (await docs.getMany([docId]))).get(docId));
    if (remote === 'refused' || remote === 'pending') return;
    const stored = await repos.settings.getSetting<Record<string, unknown>>(SETTINGS_KEY);
    const local = stored && typeof stored === 'object' ? stored : undefined;
    const previous = (await state()).get(key);
    const theirs = remote.payload?.kind === 'settings' ? remote.payload : undefined;
    let mine: (RecordPayload & { kind: 'settings' }) | undefined;
    let values: Record<string, string> = {};
    if (local) {
      const shared = Object.fromEntries(Object.entries(local).filter(([field]) => options.syncApiKeys || !PRIVATE_SETTINGS.includes(field)));
      const restamped = restamp(Object.keys(shared), shared, previous?.fields, stampNow());
      values = restamped.values;
      mine = { kind: 'settings', settings: shared, stamps: restamped.stamps };
    }
    const merged = mine && theirs ? mergePayloads(mine, theirs) : (mine ?? theirs);
    if (!merged) return;
    const incoming = Object.fromEntries(Object.entries(merged.settings).filter(([field]) => options.syncApiKeys || !PRIVATE_SETTINGS.includes(field)));
    const next = { ...(local ?? {}), ...incoming };
    if (canonical(next) !== canonical(local ?? {})) await repos.settings.setSetting(SETTINGS_KEY, next);
    if (!theirs || canonical(theirs) !== canonical(merged) || remote.losers.length > 0) await publish(key, merged, remote.rev, remote.losers);
    // As for conversations: what is stored now, not what was before the merge.
    for (const [field, value] of Object.entries(incoming)) values[field] = fingerprint(value);
    for (const field of Object.keys(merged.settings)) values[field] ??= fingerprint(merged.settings[field]);
    await remember([{ key, docId, hash: hashString(canonical(merged)), fields: { values, stamps: merged.stamps } }]);
  }

  // ---------------------------------------------------------------- attachments and files (written once)

  async function settleAttachments(ids: readonly string[], given?: Map<string, StoredDoc>, locals?: Map<string, AttachmentRecord>): Promise<void> {
    const map = await state();
    const done: SyncedRecord[] = [];
    for (const id of ids) {
      const key = recordKey.attachment(id);
      const docId = await docIdFor(key);
      const remote = await decode((given ?? (await docs.getMany([docId]))).get(docId));
      if (remote === 'refused' || remote === 'pending') continue;
      const local = locals?.get(id);
      if (map.has(key) && !remote.payload && !local) continue;
      if (local && !remote.payload) await publish(key, { kind: 'attachment', attachment: local }, remote.rev, []);
      else if (!local && remote.payload?.kind === 'attachment') {
        const attachment = remote.payload.attachment;
        if (!(await repos.conversations.getConversation(attachment.conversationId))) {
          pending.add(docId);
          continue;
        }
        if (map.has(key)) continue; // removed here on purpose: stays removed on this device
        await repos.sync.putAttachment(attachment);
      }
      const conversationId = local?.conversationId ?? (remote.payload?.kind === 'attachment' ? remote.payload.attachment.conversationId : undefined);
      done.push({ key, docId, hash: 'written', ...(conversationId ? { conversationId } : {}) });
    }
    await remember(done);
  }

  async function settleFiles(ids: readonly string[], given?: Map<string, StoredDoc>): Promise<void> {
    const map = await state();
    for (const id of ids) {
      const key = recordKey.file(id);
      const docId = await docIdFor(key);
      const remote = await decode((given ?? (await docs.getMany([docId]))).get(docId));
      if (remote === 'refused' || remote === 'pending') continue;
      if (map.has(key)) continue; // sent or received before; removed here on purpose if it is gone
      const local = await repos.files.getFile(id);
      if (local && !remote.payload) {
        const { blob, ...file } = local;
        const parts = await sealParts(keys, key, new Uint8Array(await blob.arrayBuffer()));
        await publish(key, { kind: 'file', file, chunks: parts.map((p) => p._id) }, remote.rev, [], parts);
      } else if (!local && remote.payload?.kind === 'file') {
        const { file, chunks } = remote.payload;
        if (!(await repos.conversations.getConversation(file.conversationId))) {
          pending.add(docId);
          continue;
        }
        let bytes: Uint8Array<ArrayBuffer>;
        try {
          bytes = await openParts(keys, chunks, (partId) => docs.getWithAttachments(partId));
        } catch (error) {
          if (error instanceof PartMissing) pending.add(docId);
          else if (error instanceof SealBroken) events.refused(error.docId);
          else throw error;
          continue;
        }
        await repos.sync.putFile({ ...file, blob: new Blob([bytes], { type: file.mediaType }) });
      }
      const conversationId = local?.conversationId ?? (remote.payload?.kind === 'file' ? remote.payload.file.conversationId : undefined);
      await remember([{ key, docId, hash: 'written', ...(conversationId ? { conversationId } : {}) }]);
    }
  }

  // ---------------------------------------------------------------- passes

  const pending = new Set<string>();

  async function pushAll(): Promise<void> {
    const map = await state();
    const conversations = await repos.sync.allConversations();
    const present = new Set(conversations.map((c) => c.id));
    const changedConversations = conversations.filter((c) => {
      const previous = map.get(recordKey.conversation(c.id));
      return !previous || previous.hash !== hashString(canonical(conversationPayload(c, previous)));
    });
    const deletedHere = [...map.values()].filter((r) => r.key.startsWith('c:') && r.fields && !present.has(r.key.slice(2))).map((r) => r.key.slice(2));
    const messages: StoredMessage[] = [];
    for (const conversation of conversations) {
      for (const message of await repos.conversations.getMessages(conversation.id)) {
        if (message.status === 'streaming') continue;
        const { seq: _seq, ...portable } = message;
        if (map.get(recordKey.message(message.id))?.hash !== hashString(canonical(portable))) messages.push(message);
      }
    }
    const attachments = (await repos.sync.allAttachments()).filter((a) => !map.has(recordKey.attachment(a.id)));
    const files = (await repos.sync.allFileIds()).filter((f) => !map.has(recordKey.file(f.id)));
    const total = changedConversations.length + deletedHere.length + messages.length + attachments.length + files.length + 1;
    let done = 0;
    const step = (n: number) => events.progress({ phase: 'sending', done: (done += n), total });
    await settleSettings();
    step(1);
    for (let i = 0; i < changedConversations.length && !options.paused?.(); i += BATCH) {
      const slice = changedConversations.slice(i, i + BATCH).map((c) => c.id);
      await settleConversations(slice);
      step(slice.length);
    }
    await settleConversations(deletedHere);
    step(deletedHere.length);
    await settleAttachments(
      attachments.map((a) => a.id),
      undefined,
      new Map(attachments.map((a) => [a.id, a])),
    );
    step(attachments.length);
    for (const file of files) {
      if (options.paused?.()) break;
      await settleFiles([file.id]);
      step(1);
    }
    for (let i = 0; i < messages.length && !options.paused?.(); i += BATCH) {
      const slice = messages.slice(i, i + BATCH);
      await settleMessages(
        slice.map((m) => m.id),
        undefined,
        new Map(slice.map((m) => [m.id, m])),
      );
      step(slice.length);
    }
  }

  /** The images and PDFs a message was sent with: stored without a notice of their own, they go just before it. */
  async function settleFilesOf(messageId: string): Promise<void> {
    const [map, blocks] = [await state(), (await repos.conversations.getMessage(messageId))?.content];
    const ids = (Array.isArray(blocks) ? blocks : []).flatMap((b) => ('fileId' in b && !map.has(recordKey.file(b.fileId)) ? [b.fileId] : []));
    if (ids.length > 0) await settleFiles(ids);
  }

  async function pushChange(change: StorageChange): Promise<void> {
    const id = change.conversationId;
    if (change.type === 'settings-changed') {
      if (change.settingKey === SETTINGS_KEY) await settleSettings();
    } else if (change.type === 'conversation-changed') {
      if (id) await settleConversations([id]);
      else await pushAll();
    } else if (change.type === 'messages-changed' && id) {
      if (change.messageId) {
        await settleFilesOf(change.messageId);
        await settleMessages([change.messageId]);
      } else {
        const messages = await repos.conversations.getMessages(id);
        await settleMessages(
          messages.map((m) => m.id),
          undefined,
          new Map(messages.map((m) => [m.id, m])),
        );
      }
    } else if (change.type === 'attachments-changed' && id) {
      const records = await repos.sync.conversationRecords(id);
      await settleAttachments(
        records.attachments.map((a) => a.id),
        undefined,
        new Map(records.attachments.map((a) => [a.id, a])),
      );
      await settleFiles(records.files.map((f) => f.id));
    }
  }

  /** Applies a batch of arrived documents, conversations first and messages parents first. */
  async function applyDocs(stored: Map<string, StoredDoc>): Promise<void> {
    await state();
    const byKind = {
      conversation: new Map<string, StoredDoc>(),
      message: new Map<string, StoredDoc>(),
      settings: new Map<string, StoredDoc>(),
      attachment: new Map<string, StoredDoc>(),
      file: new Map<string, StoredDoc>(),
    };
    const ids = { conversation: [] as string[], message: [] as string[], attachment: [] as string[], file: [] as string[] };
    for (const [docId, entry] of stored) {
      let key = keyOfDoc.get(docId);
      if (!entry.deleted && entry.doc) {
        const decoded = await decode(entry);
        if (decoded === 'pending') {
          pending.add(docId);
          continue;
        }
        if (decoded === 'refused' || !decoded.payload) continue;
        key = keyOf(decoded.payload);
        if ((await docIdFor(key)) !== docId) {
          // A record sealed under another document's id cannot pass its check; this one did, so it is ours but misplaced.
          events.refused(docId);
          continue;
        }
      }
      if (!key) continue;
      const [prefix, ...rest] = key.split(':');
      const recordId = rest.join(':');
      const kind = ({ c: 'conversation', m: 'message', s: 'settings', a: 'attachment', f: 'file' } as const)[prefix as 'c' | 'm' | 's' | 'a' | 'f'];
      if (!kind) continue;
      byKind[kind].set(docId, entry);
      if (kind !== 'settings') ids[kind].push(recordId);
    }
    if (ids.conversation.length > 0) await settleConversations(ids.conversation, byKind.conversation);
    if (byKind.settings.size > 0) await settleSettings(byKind.settings);
    // Files before the messages that show them: a transcript reads a message's image once, when it draws it.
    if (ids.attachment.length > 0) await settleAttachments(ids.attachment, byKind.attachment);
    if (ids.file.length > 0) await settleFiles(ids.file, byKind.file);
    if (ids.message.length > 0) await settleMessages(ids.message, byKind.message);
  }

  async function pull(): Promise<void> {
    let since = (await docs.getLocal<number | string>('applied')) ?? 0;
    const retry = [...new Set([...((await docs.getLocal<string[]>('pending')) ?? []), ...pending])]; // and what a push found changed since
    pending.clear();
    if (retry.length > 0) await applyDocs(await docs.getMany(retry));
    while (!options.paused?.()) {
      const { results, last_seq } = await docs.changes(since, BATCH);
      if (results.length === 0) break;
      const batch = new Map<string, StoredDoc>();
      for (const change of results) {
        const rev = change.changes[0]?.rev;
        if (change.id === CHECK_ID || change.id.startsWith('_')) continue;
        if (change.doc && change.doc._attachments && change.doc.ct === undefined) continue; // a part: read with its record
        // This device's own write. When another device's version lost to it, that device merges the two and sends
        // the result: were both to merge, each would write a new conflict for the other, without end.
        if (rev && ownRevs.has(`${change.id}@${rev}`)) continue;
        batch.set(change.id, { doc: change.deleted ? undefined : change.doc, rev, deleted: change.deleted === true });
      }
      await applyDocs(batch);
      since = last_seq;
      await docs.putLocal('applied', since);
      if (batch.size > 0) events.progress({ phase: 'receiving', applied: batch.size });
    }
    await docs.putLocal('pending', [...pending]);
  }

  return {
    pushAll,
    pushChange,
    pull,
  };
}
