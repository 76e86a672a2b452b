import type { ClientSession } from '../../core/agent.ts';
import type { Store } from '../../store/store.ts';
import type { McpCall } from './call.ts';

/** The store topic a 2025 session's messages between calls travel on, to whichever replica holds its GET stream. */
export function sessionTopic(sessionId: string): string {
  return `mcp-session:${sessionId}`;
}

/**
 * The core's view of a 2025 MCP session (core `ClientSession`): its id, owner and declared
 * capabilities, and a `notify` that publishes through the store, so a message an upstream sends
 * between calls reaches the session's GET stream on any replica (MCP Streamable HTTP "Listening";
 * no sticky sessions). Undefined for 2026-07-28 requests, which have no session.
 */
export function clientSessionOf(call: McpCall, store: Store): ClientSession | undefined {
  const session = call.session;
  if (!session) return undefined;
  return {
    id: session.id,
    owner: call.principal?.id ?? 'anonymous',
    capabilities: session.capabilities as Record<string, unknown>,
    notify: (message) => void store.publishTopic(sessionTopic(session.id), JSON.stringify(message)).catch(() => undefined),
  };
}
