/**
 * The package entry of `nlgate` (issue 28, docs/library.md): the gateway as a library. Importing it
 * starts nothing; `createNlgate` builds a gateway, `functionAgent` an agent backed by a function.
 */
export { createNlgate, type Nlgate, type NlgateOptions } from './lib/nlgate.ts';
export {
  functionAgent,
  type FunctionAgentEntry,
  type FunctionAgentOptions,
  type FunctionAnswer,
  type FunctionAsk,
  type FunctionAskInput,
  type FunctionElicitation,
} from '../adapters/function/index.ts';
export { ConfigError } from './config/load.ts';
export { GatewayConfigSchema, type GatewayConfigInput as NlgateConfig } from './config/schema.ts';
export { GatewayError, type ErrorCode } from './base/errors.ts';
export type { Logger } from './base/logger.ts';
export type { Elicitation, Question, ResultItem } from './protocol/nlweb/index.ts';
