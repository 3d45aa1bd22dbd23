import type { McpApproval } from '../store';

/**
 * An MCP tool call waiting for the user: which server, which tool and with what arguments,
 * all shown as text (the model wrote the arguments; the server named the tool), and the
 * choice to allow it once, always, or refuse it. Stop refuses it too.
 */
export default function McpApprovalPrompt({ approval }: { approval: McpApproval }) {
  const onAnswer = approval.answer;
  return (
    <section className="mcp-approval" role="alertdialog" aria-labelledby="mcp-approval-title" aria-describedby="mcp-approval-args">
      <h3 id="mcp-approval-title">
        Run <code>{approval.tool}</code> on the MCP server “{approval.server}”?
      </h3>
      <pre id="mcp-approval-args" className="mcp-approval-args">
        {approval.args}
      </pre>
      <div className="mcp-approval-actions">
        <button type="button" className="primary" onClick={() => onAnswer('allow')}>
          Allow
        </button>
        <button type="button" onClick={() => onAnswer('always')}>
          Always allow
        </button>
        <button type="button" onClick={() => onAnswer('refuse')}>
          Refuse
        </button>
      </div>
    </section>
  );
}
