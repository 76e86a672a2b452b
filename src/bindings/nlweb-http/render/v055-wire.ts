import type { Context } from 'hono';
import type { CanonicalResponse } from '../../../protocol/nlweb/index.ts';
import type { GatewayError } from '../../../base/errors.ts';
import type { AskStream } from '../../../core/gateway-types.ts';
import { renderFormat, renderNlwebError, statusFor } from './v055.ts';
import { renderSse } from './v055-stream.ts';
import type { NlwebWire, StreamRendering } from './wire.ts';

/** v0.55, the gateway's own generation: strict spec output (JSON 4, named SSE events 6). */
export const v055Wire: NlwebWire = {
  version: '0.55',
  json: (c: Context, response: CanonicalResponse, format: string | undefined) => c.json(renderFormat(response, format), statusFor(response)),
  stream: (c: Context, live: AskStream, r: StreamRendering) => renderSse(c, live, r.format, r.abort, r.decorate),
  error: (c: Context, err: GatewayError) => renderNlwebError(c, err),
};
