/**
 * The store's public surface: what the composition root and the components may use.
 * A runtime (`createRuntime`) holds the state and the services; `bindActions` gives the
 * actions bound to it; the rest are the state's types and the views components render.
 * Inside src/store, modules import each other directly, never through this file.
 */
export { bindActions, type Actions } from './actions';
export { createRuntime, type AppDeps, type Runtime } from './runtime';
export type { AppState, SyncState, AttachmentInfo, DraftImage, DraftPdf, ImportState, ListTarget, Notice, SearchIndexing } from './state';
export type { McpApproval } from './mcp/types';
export type { McpListing } from './mcp/mcpSettings';
export type { McpAuthorizationAnswer, McpAuthorizer } from '../mcp/oauth';
export { contextOf, holdsPdfs, screenPlan } from './planning';
export { activeModelIn, modelChoicesFor, modelPickerIn } from './selectors';
export { looksListable, modelListKey } from './modelLists';
export { chatView, draftTokens, openingRows, type GaugePart } from './chatView';
export { exactCountView, nearALimit, requestKeyOf, withExactCount, type ExactCountView } from './requestCounts';
export { branchOf, leafOf, treeOf } from './branches';
export type { PlanReport } from './planReport';
export type { ExportOptions } from './transferActions';
export { ADDITIONS, additionsFor, resetToOwnRule } from './strategyAdditions';
export { clearedToolCalls, pairToolResults } from './toolTranscript';
export type { ToolResultView, TranscriptRow } from './transcript';
export { formatBytes } from './filesShown';
export { isExportFile } from './exportFiles';
export { storageViewOf, type StorageRow, type StorageView } from './storageRows';
export { conversationOverrides } from './storedSettings';
export { DEFAULT_BASE_URLS, effectiveSettings, type Addition, type Settings, type Theme, type ToolSettings, type WindowSettings } from './settings';
export { settingsProblems, TOOL_ROUNDS_RANGE, type Knob } from './settingsRules';
export { MIN_PASSPHRASE_LENGTH, needsPlainHttpConfirmation, syncStatusText, syncTime } from './syncText';
export type { SyncStatus } from '../sync/types';
