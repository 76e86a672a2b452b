/** What a probe found: the protocol, why it thinks so, and the agent entry that fronts it. */
export interface Finding {
  /** Human name of the protocol, e.g. "NLWeb v0.55" or "MCP (Streamable HTTP)". */
  protocol: string;
  /** The request and the answer that gave it away. */
  evidence: string;
  /** The agent entry's kind-specific fields (kind, url, ...), ready for a config file. */
  agent: Record<string, unknown> & { kind: string };
}
