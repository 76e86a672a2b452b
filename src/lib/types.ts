/**
 * The library's public types (docs/library.md), apart from the code so that the package's one
 * declaration file is generated from a small program (src/package-types.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Hono } from 'hono';
import type { Logger } from '../base/logger.ts';

/** Options of a library gateway besides its config. */
export interface NlgateOptions {
  /**
   * The path prefix requests arrive with when the entry point cannot tell it (`fetch`, `nodeHandler`
   * on a plain `node:http` server). Not needed under a Hono `app.route()` or Express `app.use()`.
   */
  basePath?: string;
  /** Folder that relative paths in the config (catalog files, stdio commands) resolve against; default: the working directory. */
  baseDir?: string;
  /** A pino-compatible logger; default: JSON lines on stdout at `LOG_LEVEL` (or `info`). */
  logger?: Logger;
  /** Environment for `${NAME}` in config strings; default: `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** A gateway ready to be mounted in a host application. */
export interface Nlgate {
  /** A Hono app: `app.route('/gateway', gw.app)` (the mount path is taken from the route). */
  app: Hono;
  /** A fetch handler (`Request` → `Response`) for any runtime; under `basePath` when one is set. */
  fetch: (request: Request, env?: unknown, executionCtx?: unknown) => Promise<Response>;
  /** A `node:http` request listener, Express/Connect middleware too (`app.use('/gateway', gw.nodeHandler)`). */
  nodeHandler: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** Stops the agents, running promises' timers and the store connection. */
  close(): Promise<void>;
}

