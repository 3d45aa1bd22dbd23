'use strict';
// Where an MCP server's authorization server sends the user back after an OAuth sign-in.
// It passes the code (or the error) and the state to the Windowpane tab that opened the
// sign-in, over a BroadcastChannel (same origin only), which checks the state against its
// own; then it takes the code out of the address and closes.
(() => {
  const params = new URLSearchParams(location.search);
  const answer = {
    type: 'windowpane-mcp-oauth',
    state: params.get('state'),
    code: params.get('code'),
    error: params.get('error_description') || params.get('error'),
  };
  history.replaceState(null, '', location.pathname);
  const status = document.getElementById('status');
  if (!answer.state || (!answer.code && !answer.error)) {
    status.textContent = 'This page finishes an MCP server’s sign-in, and there is none to finish. You can close it.';
    return;
  }
  const channel = new BroadcastChannel('windowpane-mcp-oauth');
  channel.postMessage(answer);
  channel.close();
  status.textContent = answer.code ? 'Signed in. You can close this window.' : 'The sign-in was refused. You can close this window.';
  window.close();
})();
