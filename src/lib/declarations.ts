/**
 * The signature of `createNlgate` (src/lib/nlgate.ts) without its implementation, for the package's
 * declaration file: generating it from the implementation would compile every source file of the
 * gateway (four times the time). test/library/types.test.ts checks the two agree.
 */
import type { GatewayConfigInput } from '../config/schema.ts';
import type { Nlgate, NlgateOptions } from './types.ts';

/**
 * Builds a gateway from a config (the same document as the YAML file, validated by the same
 * schemas, failing with the same ConfigError) for use inside another application (docs/library.md).
 */
export declare function createNlgate(config: GatewayConfigInput, options?: NlgateOptions): Promise<Nlgate>;
