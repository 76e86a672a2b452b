import { MODES, RESPONSE_FORMATS, normalizeResponseFormat, parseModes, type AskRequest } from '../protocol/nlweb/index.ts';
import type { AgentDescription } from './agent.ts';
import { GatewayError } from '../base/errors.ts';

/**
 * Content negotiation (NLWeb 3.3): the gateway renders the two standard formats for every agent, plus
 * any format the agent declares; `mode` values must be known. Throws UNSUPPORTED_FORMAT / UNSUPPORTED_MODE.
 */
export function checkPreferences(request: AskRequest, description?: AgentDescription): void {
  const format = normalizeResponseFormat(request.prefer?.response_format);
  const formats: readonly string[] = [...RESPONSE_FORMATS, ...(description?.capabilities?.responseFormats ?? [])];
  if (!formats.includes(format)) {
    throw new GatewayError('UNSUPPORTED_FORMAT', `response_format "${format}" is not supported (supported: ${formats.join(', ')})`);
  }
  const unknown = parseModes(request.prefer?.mode).filter((m) => !(MODES as readonly string[]).includes(m));
  if (unknown.length > 0) {
    throw new GatewayError('UNSUPPORTED_MODE', `mode "${unknown.join(', ')}" is not supported (supported: ${MODES.join(', ')})`);
  }
}
