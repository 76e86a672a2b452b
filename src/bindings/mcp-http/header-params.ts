import { McpServer, type Server, type Tool } from '@modelcontextprotocol/server';
import { SERVER_INFO } from './server.ts';

/**
 * The SDK's 2026-07-28 HTTP entry checks `Mcp-Param-*` headers against a tool's `x-mcp-header`
 * parameters (SEP-2243) before dispatch — but only for an `McpServer`, whose registered tools it can
 * ask for their input schema. The gateway serves its tools from a low-level `Server`; this wrapper
 * is that `McpServer` in name: it carries the gateway's server and answers `toolInputSchemaJson` from
 * the tools the gateway publishes, so a missing, mismatching or badly encoded header is refused
 * (400, -32020) as it would be for tools registered on the SDK's own server.
 */
export class PublishedToolsServer extends McpServer {
  constructor(
    inner: Server,
    private readonly tools: ReadonlyMap<string, Tool>,
  ) {
    super(SERVER_INFO);
    (this as unknown as { server: Server }).server = inner;
  }

  /** The published input schema of a tool (what `tools/list` shows), or undefined for an unknown one. */
  override toolInputSchemaJson(name: string): Record<string, unknown> | undefined {
    return this.tools.get(name)?.inputSchema as Record<string, unknown> | undefined;
  }
}
