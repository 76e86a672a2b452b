import fc from 'fast-check';
import { Hono } from 'hono';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger, lineSink, unredactedChild, type Logger } from '../base/logger.ts';
import { accessLineBody, accessLogger, accessObject, type AccessFields } from './access-log.ts';
import type { RouteInfo } from './routes.ts';

/** A createLogger logger whose lines are kept, each as written. */
function capture(level = 'info'): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  return { log: createLogger(level, { write: (line: string) => void lines.push(line) }), lines };
}

const fields = (unit: 'grapheme' | 'binary') => {
  const s = fc.string({ unit, maxLength: 40 });
  return fc.record<AccessFields>({
    requestId: s,
    principal: s,
    principalId: fc.option(s, { nil: undefined }),
    protocol: s,
    agent: fc.option(s, { nil: undefined }),
    method: s,
    route: s,
    status: fc.integer({ min: 100, max: 599 }),
    durationMs: fc.integer({ min: 0, max: 10_000_000 }).map((n) => n / 10),
    query: fc.option(s, { nil: undefined }),
  });
};

describe('the access line built by hand', () => {
  const { log, lines } = capture();
  const access = unredactedChild(log);
  const sink = lineSink(access)!;
  /** The line pino writes for `f`, then the one built by hand. */
  const bothLines = (f: AccessFields): [string, string] => {
    lines.length = 0;
    access.info(accessObject(f), 'request');
    sink.write(sink.infoHead() + accessLineBody(f));
    return [lines[0]!, lines[1]!];
  };

  it('is the line pino writes for the same fields, byte for byte', () => {
    fc.assert(
      fc.property(fields('grapheme'), (f) => {
        // pino's `time` is Date.now() at each call: the lines are compared without it.
        const [byPino, byHand] = bothLines(f).map((l) => l.replace(/"time":\d+,/, ''));
        expect(byHand).toBe(byPino);
      }),
    );
  });

  it('reads back as the same fields for any string, a lone surrogate included', () => {
    fc.assert(
      fc.property(fields('binary'), (f) => {
        const [byPino, byHand] = bothLines(f);
        expect(byHand.endsWith('\n') && !byHand.slice(0, -1).includes('\n')).toBe(true);
        expect({ ...(JSON.parse(byHand) as object), time: 0 }).toEqual({ ...(JSON.parse(byPino) as object), time: 0 });
      }),
    );
  });
});

describe('accessLogger', () => {
  const route: RouteInfo = { protocol: 'nlweb', agent: 'up' } as RouteInfo;
  /** One request through a Hono app whose last middleware writes the access line with `write`. */
  async function oneRequest(write: ReturnType<typeof accessLogger>): Promise<void> {
    const app = new Hono();
    app.use(async (c, next) => {
      c.set('requestId' as never, 'req_1' as never);
      await next();
      write(c, route, performance.now(), false);
    });
    app.post('/agents/up/ask', (c) => c.json({ ok: true }, 201));
    await app.request('/agents/up/ask', { method: 'POST' });
  }

  it("writes the gateway logger's line by hand, and nothing once the level is above info", async () => {
    const { log, lines } = capture();
    const access = unredactedChild(log);
    await oneRequest(accessLogger(access));
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 30, msg: 'request', requestId: 'req_1', principal: 'anonymous', protocol: 'nlweb', agent: 'up', method: 'POST', route: '/agents/up/ask', status: 201 });
    (access as unknown as { level: string }).level = 'warn';
    await oneRequest(accessLogger(access));
    expect(lines).toHaveLength(1);
  });

  it("gives any other logger the fields through its own info(), as before", async () => {
    const got: Array<[object, string | undefined]> = [];
    const foreign: Logger = { debug() {}, info: (obj, msg) => void got.push([obj as object, msg]), warn() {}, error() {}, child: () => foreign };
    expect(lineSink(foreign)).toBeUndefined();
    await oneRequest(accessLogger(foreign));
    expect(got).toHaveLength(1);
    expect(got[0]![1]).toBe('request');
    expect(got[0]![0]).toMatchObject({ requestId: 'req_1', principal: 'anonymous', status: 201, route: '/agents/up/ask' });
    expect(Object.keys(got[0]![0])).not.toContain('query');
  });

  it('leaves a pino multistream to pino (it wants each line’s level)', () => {
    const log = createLogger('info', pino.multistream([{ stream: { write: () => undefined } }]));
    expect(lineSink(log)).toBeUndefined();
  });
});
