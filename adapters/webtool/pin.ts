/**
 * Version lock-in (webtools "Security Considerations"): the adapter pins one version of the upstream's
 * metadata and refuses to work with it once the same version is served with different content.
 */
import { GatewayError } from '../../src/base/errors.ts';
import type { Logger } from '../../src/base/logger.ts';
import type { UpstreamClient } from '../../src/core/upstream/index.ts';
import {
  createSchemaCompiler,
  InvalidSchemaError,
  metadataHash,
  parseMetadata,
  type SchemaCheck,
  type SchemaCompiler,
  type WebtoolAction,
  type WebtoolMetadata,
} from '../../src/protocol/webtool/index.ts';

/** The pinned metadata with its fingerprint and lazily compiled validators. */
export interface Snapshot {
  metadata: WebtoolMetadata;
  hash: string;
  /** `request` (and `config`) data check for an action, compiled on first use. */
  checks(action: WebtoolAction): { request: SchemaCheck; response: SchemaCheck };
  config: () => SchemaCheck;
}

export interface PinOptions {
  http: UpstreamClient;
  agent: string;
  url: string;
  version?: string;
  sha256?: string;
  headers: Record<string, string>;
  recheckMs: number;
  timeoutMs?: number;
  log: Logger;
}

function snapshotOf(metadata: WebtoolMetadata, hash: string, agent: string, compile: SchemaCompiler): Snapshot {
  const cache = new Map<string, { request: SchemaCheck; response: SchemaCheck }>();
  let config: SchemaCheck | undefined;
  const guard = <T>(f: () => T): T => {
    try {
      return f();
    } catch (err) {
      if (err instanceof InvalidSchemaError) throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" publishes a JSON Schema that cannot be used`, { cause: err });
      throw err;
    }
  };
  return {
    metadata,
    hash,
    checks: (action) => {
      let c = cache.get(action.name);
      if (!c) {
        c = guard(() => ({ request: compile(action.requestSchema, 'request'), response: compile(action.responseSchema, 'data') }));
        cache.set(action.name, c);
      }
      return c;
    },
    config: () => (config ??= guard(() => compile(metadata.configSchema, 'config'))),
  };
}

/**
 * Failures of the metadata endpoint that say nothing about the metadata (unreachable, timeout, 5xx,
 * 429): a pinned snapshot outlives them. Invalid or changed metadata is never one of them.
 */
const transient = new WeakSet<Error>();
function markTransient<E extends Error>(err: E): E {
  transient.add(err);
  return err;
}

/** Keeps the pinned metadata of one upstream webtool fresh, and refuses silent changes. */
export class MetadataPin {
  private pinned: string | undefined;
  /** version → SHA-256 of its metadata as first seen (lock-in). */
  private readonly hashes = new Map<string, string>();
  private snapshot: Snapshot | undefined;
  private checkedAt = 0;
  private inflight: Promise<Snapshot> | undefined;

  constructor(private readonly opts: PinOptions) {
    this.pinned = opts.version;
  }

  /** The pinned version, once known. */
  get version(): string | undefined {
    return this.pinned;
  }

  /**
   * The current snapshot, fetched again when older than `recheckMs`. Concurrent callers share one
   * fetch, bounded by the metadata timeout rather than any one caller's signal. Throws GatewayError.
   */
  async current(): Promise<Snapshot> {
    if (this.snapshot && Date.now() - this.checkedAt < this.opts.recheckMs) return this.snapshot;
    this.inflight ??= this.refresh().finally(() => (this.inflight = undefined));
    return this.inflight;
  }

  /** Forgets the freshness of the snapshot (the upstream said the version is gone). */
  invalidate(): void {
    this.checkedAt = 0;
  }

  private async refresh(): Promise<Snapshot> {
    let metadata: WebtoolMetadata;
    try {
      metadata = await this.fetchPinned();
    } catch (err) {
      // A pinned snapshot stays usable while the upstream's metadata endpoint is briefly unreachable.
      if (this.snapshot && err instanceof Error && transient.has(err)) {
        this.opts.log.warn({ err: err.message }, 'webtool metadata recheck failed; keeping the pinned metadata');
        return this.snapshot;
      }
      throw err;
    }
    const hash = metadataHash(metadata);
    const known = this.hashes.get(metadata.version) ?? this.opts.sha256;
    if (known !== undefined && known !== hash) {
      this.snapshot = undefined; // fail closed until the upstream serves the pinned metadata again
      this.opts.log.warn({ version: metadata.version, expected: known, got: hash }, 'webtool metadata changed under a pinned version');
      throw new GatewayError(
        'UPSTREAM_ERROR',
        `Agent "${this.opts.agent}" changed its webtool metadata under version ${metadata.version}; refusing to use it (version lock-in)`,
      );
    }
    if (!this.hashes.has(metadata.version)) {
      this.opts.log.info({ version: metadata.version, sha256: hash }, 'pinned webtool metadata');
      this.hashes.set(metadata.version, hash);
    }
    this.pinned = metadata.version;
    if (this.snapshot?.hash !== hash) this.snapshot = snapshotOf(metadata, hash, this.opts.agent, await createSchemaCompiler());
    this.checkedAt = Date.now();
    return this.snapshot;
  }

  /** GET {url}/{version} once a version is pinned (falling back to GET {url} when it is the latest), else GET {url}. */
  private async fetchPinned(): Promise<WebtoolMetadata> {
    if (this.pinned === undefined) return this.fetchMetadata(this.opts.url);
    const versioned = `${this.opts.url.replace(/\/+$/, '')}/${encodeURIComponent(this.pinned)}`;
    const found = await this.fetchMetadata(versioned, true);
    const metadata = found ?? (await this.fetchMetadata(this.opts.url));
    if (metadata.version !== this.pinned) {
      throw new GatewayError('UPSTREAM_ERROR', `Agent "${this.opts.agent}" no longer offers the pinned version ${this.pinned}`);
    }
    return metadata;
  }

  private async fetchMetadata(url: string, allowMissing?: false): Promise<WebtoolMetadata>;
  private async fetchMetadata(url: string, allowMissing: true): Promise<WebtoolMetadata | null>;
  private async fetchMetadata(url: string, allowMissing = false): Promise<WebtoolMetadata | null> {
    const { agent } = this.opts;
    const headers = { ...this.opts.headers, accept: 'application/json' };
    const res = await this.opts.http.request({ url, headers, timeoutMs: this.opts.timeoutMs ?? 10_000 }).catch((err: Error) => {
      throw markTransient(err);
    });
    if (allowMissing && (res.status === 404 || res.status === 405)) {
      res.cancel();
      return null;
    }
    if (!res.ok) {
      res.cancel();
      const err = new GatewayError(res.status === 429 ? 'RATE_LIMITED' : 'UPSTREAM_ERROR', `Agent "${agent}" answered HTTP ${res.status} for its webtool metadata`);
      throw res.status >= 500 || res.status === 429 ? markTransient(err) : err;
    }
    const text = await res.text();
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" answered with webtool metadata that is not JSON`, { cause: err });
    }
    const parsed = parseMetadata(raw);
    if (!parsed.ok) {
      this.opts.log.warn({ problem: parsed.message }, 'invalid webtool metadata');
      throw new GatewayError('UPSTREAM_ERROR', `Agent "${agent}" answered with invalid webtool metadata`);
    }
    return parsed.value;
  }
}
