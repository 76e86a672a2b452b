/**
 * What the package's declaration file (dist/lib/index.d.ts) is generated from: the exports of
 * src/index.ts, with `createNlgate` from its declaration (src/lib/declarations.ts), so the program
 * compiled for it holds the public types, not the whole gateway. test/library/types.test.ts checks
 * it matches src/index.ts export for export.
 */
export { createNlgate } from './lib/declarations.ts';
export type { Nlgate, NlgateOptions } from './lib/types.ts';
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
