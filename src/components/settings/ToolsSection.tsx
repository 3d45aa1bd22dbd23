import { useId, type Dispatch } from 'react';
import { RUN_TIME_LIMIT_MS } from '../../core';
import { TOOL_ROUNDS_RANGE, type McpListing, type ToolSettings } from '../../store';
import type { McpServerConfig, ProviderId } from '../../core';
import { Field } from '../Field';
import { McpServersSection, type McpServersSectionProps } from './McpServersSection';
import type { SettingsDraftAction, SettingsProblems } from './settingsDraft';

export interface ToolsSectionProps {
  tools: ToolSettings;
  /** "Tool rounds per turn" as typed. */
  roundsText: string;
  /** Each MCP server's time limit per call as typed, once edited. */
  mcpTimeoutTexts: Record<string, string>;
  problems: SettingsProblems;
  dispatch: Dispatch<SettingsDraftAction>;
  /** The MCP servers' secrets, by server id. */
  mcpSecrets: Record<string, string>;
  /** The provider chosen in the draft: whether it can connect to a server itself. */
  provider: ProviderId;
  /** Connects to an MCP server and lists its tools (Settings over the app's store). */
  listMcpTools?: (server: McpServerConfig, secret: string | undefined) => Promise<McpListing>;
  /** Signs in to an MCP server with OAuth, then lists its tools. */
  signInMcp?: McpServersSectionProps['signIn'];
  /** Signs out of an MCP server at once (its tokens are forgotten in the stored settings too). */
  signOutMcp?: McpServersSectionProps['signOut'];
}

/** The tools the model may call, each a switch, and how many rounds of them one turn may take. */
export function ToolsSection({
  tools,
  roundsText,
  mcpTimeoutTexts,
  problems,
  dispatch,
  mcpSecrets,
  provider,
  listMcpTools,
  signInMcp,
  signOutMcp,
}: ToolsSectionProps) {
  const setTools = (patch: Partial<Omit<ToolSettings, 'maxRounds'>>) => dispatch({ type: 'editTools', patch });
  return (
    <section>
      <h3>Tools</h3>
      <p className="muted section-hint">Tools the model may call during a turn. These apply to all conversations.</p>
      <Switch
        label="read_attachment — read attached files"
        hint="The model lists the files attached to a conversation and reads them by line range; they are never pasted into the prompt."
        checked={tools.readAttachment}
        onChange={(on) => setTools({ readAttachment: on })}
      />
      <Switch
        label="run_javascript — run code in a sandbox"
        hint={`The model runs JavaScript in a worker in this browser: no network, no access to the page, stopped after ${RUN_TIME_LIMIT_MS / 1000} seconds.`}
        checked={tools.runJavascript}
        onChange={(on) => setTools({ runJavascript: on })}
      />
      <Field
        label="Tool rounds per turn"
        hint={`From ${TOOL_ROUNDS_RANGE.min} to ${TOOL_ROUNDS_RANGE.max}. At the limit the turn stops and says so.`}
        error={problems.maxRounds}
      >
        {(id, hint, invalid) => (
          <input
            id={id}
            aria-describedby={hint}
            aria-invalid={invalid}
            type="number"
            inputMode="numeric"
            // No min/max/step: the browser's own check would block Save with a bubble, not this field's message.
            step="any"
            value={roundsText}
            onChange={(e) => dispatch({ type: 'typeRounds', text: e.target.value })}
          />
        )}
      </Field>
      <McpServersSection
        stored={tools.mcpServers}
        secrets={mcpSecrets}
        provider={provider}
        onChange={(servers, secrets) => dispatch({ type: 'editMcp', servers, secrets })}
        timeoutTexts={mcpTimeoutTexts}
        onTypeTimeout={(serverId, text) => dispatch({ type: 'typeMcpTimeout', serverId, text })}
        newId={() => crypto.randomUUID()}
        {...(listMcpTools ? { listTools: listMcpTools } : {})}
        {...(signInMcp ? { signIn: signInMcp } : {})}
        {...(signOutMcp ? { signOut: signOutMcp } : {})}
      />
    </section>
  );
}

/** An on/off switch with a one-line explanation that describes it. */
function Switch({ label, hint, checked, onChange }: { label: string; hint: string; checked: boolean; onChange: (on: boolean) => void }) {
  const id = useId();
  return (
    <div className="switch-field">
      <label className="check">
        <input type="checkbox" role="switch" aria-describedby={`${id}-hint`} checked={checked} onChange={(e) => onChange(e.target.checked)} /> {label}
      </label>
      <small id={`${id}-hint`} className="muted">
        {hint}
      </small>
    </div>
  );
}
