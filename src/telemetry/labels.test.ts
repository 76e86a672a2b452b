import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agentLabel, errorLabel, outcomeOfStatus, protocolOf, routeLabel, upstreamOutcome } from './labels.ts';

describe('metric labels', () => {
  it('maps every binding route template to its protocol', () => {
    expect(protocolOf('POST', '/ask')).toBe('nlweb');
    expect(protocolOf('POST', '/agents/:agent/await')).toBe('nlweb');
    expect(protocolOf('GET', '/ask')).toBe('nlweb-legacy');
    expect(protocolOf('GET', '/agents/:agent/sites')).toBe('nlweb-legacy');
    expect(protocolOf('POST', '/agents/:agent/nlip/upload')).toBe('nlip');
    expect(protocolOf('DELETE', '/mcp')).toBe('mcp');
    expect(protocolOf('POST', '/webtools/:agent')).toBe('webtool');
    expect(protocolOf('GET', '/metrics')).toBe('gateway');
    expect(protocolOf('GET', routeLabel('*'))).toBe('none');
  });

  it('takes agent names only from the config, and error codes only in UPPER_SNAKE (property: bounded)', () => {
    const known = new Set(['recipes']);
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(['recipes', 'other', 'none']).toContain(agentLabel(known, s));
        expect(errorLabel(s) === 'OTHER' || /^[A-Z][A-Z_]{0,39}$/.test(errorLabel(s))).toBe(true);
      }),
    );
  });

  it('classifies statuses and upstream outcomes', () => {
    expect([200, 202, 404, 429, 500, 503].map(outcomeOfStatus)).toEqual(['success', 'success', 'rejected', 'rejected', 'error', 'error']);
    expect(upstreamOutcome(204, undefined)).toBe('2xx');
    expect(upstreamOutcome(undefined, 'TIMEOUT')).toBe('TIMEOUT');
    expect(upstreamOutcome(undefined, 'bad code; drop table')).toBe('OTHER');
  });
});
