/**
 * What the A2A binding needs of the A2A SDK, in one module the binding imports on its first request
 * (index.ts): everything here pulls in `@a2a-js/sdk`, which a gateway no A2A client calls never loads.
 */
export { AgentCard } from '@a2a-js/sdk';
export { buildAgentCard } from './card.ts';
export { GatewayRequestHandler } from './handler.ts';
export { serveJsonRpc } from './jsonrpc.ts';
export { serveRest } from './rest.ts';
export { LocalStreams } from './stream.ts';
export { TaskRecords } from './tasks.ts';
