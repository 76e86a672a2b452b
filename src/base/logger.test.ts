import { describe, expect, it } from 'vitest';
import { createLogger, lazyChild, unredactedChild } from './logger.ts';

describe('logger redaction', () => {
  it('never writes tokens, credentials or session contexts', () => {
    const lines: string[] = [];
    const log = createLogger('debug', { write: (line: string) => void lines.push(line) });
    log.info({ token: 'prm_secret1', promise_token: 'prm_secret2', headers: { authorization: 'Bearer secret3' }, session_context: { conversation_id: 'conv_secret4' } }, 'call');
    log.child({ agent: 'a' }).warn({ upstream: { token: 'secret5', authorization: 'secret6' } }, 'nested');
    const out = lines.join('');
    for (const secret of ['secret1', 'secret2', 'secret3', 'secret4', 'secret5', 'secret6']) expect(out).not.toContain(secret);
    expect(out).toContain('[redacted]');
    expect(out).toContain('"agent":"a"');
  });
});

describe('lazyChild', () => {
  it('makes the child only when a line is written, with its bindings, and keeps redaction', () => {
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(line) });
    let made = 0;
    const counting = Object.assign(Object.create(log) as typeof log, { child: (b: Record<string, unknown>) => (made++, log.child(b)) });
    const child = lazyChild(counting, { agent: 'up', requestId: 'r1' });
    child.debug({ token: 'never' }, 'below the level');
    expect(made).toBe(0);
    child.warn({ token: 'prm_secret' }, 'written');
    child.info('again');
    expect(made).toBe(1);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('"agent":"up"');
    expect(lines[0]).toContain('"requestId":"r1"');
    expect(lines.join('')).not.toContain('prm_secret');
  });
});

describe('unredactedChild', () => {
  it('writes its fields as given, while the parent still redacts', () => {
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(line) });
    unredactedChild(log).info({ principal: 'alice', route: '/ask' }, 'request');
    log.info({ token: 'prm_secret' }, 'parent');
    expect(lines[0]).toContain('"principal":"alice"');
    expect(lines[1]).not.toContain('prm_secret');
  });
});
