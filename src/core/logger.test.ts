import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';

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
