import { describe, expect, it } from 'vitest';
import { GatewayConfigSchema } from './schema.ts';

const agent = { name: 'a', kind: 'scripted' };
const problems = (cfg: Record<string, unknown>) => {
  const r = GatewayConfigSchema.safeParse(cfg);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('edge settings in the config', () => {
  it('requireAuth needs an auth section (nobody could be verified otherwise)', () => {
    expect(problems({ agents: [{ ...agent, requireAuth: true }] })).toEqual([expect.stringMatching(/^agents\.0\.requireAuth: needs an auth section/)]);
    expect(problems({ auth: { apiKeys: [{ principal: 'p', key: 'k'.repeat(16) }] }, agents: [{ ...agent, requireAuth: true }] })).toEqual([]);
  });

  it('trustedProxies are addresses or CIDRs', () => {
    expect(problems({ server: { trustedProxies: ['10.0.0.0/8', '::1', '192.168.1.1'] }, agents: [agent] })).toEqual([]);
    expect(problems({ server: { trustedProxies: ['proxy.local'] }, agents: [agent] })).toEqual([expect.stringMatching(/trustedProxies\.0/)]);
    expect(problems({ server: { trustedProxies: ['10.0.0.0/33'] }, agents: [agent] })).toHaveLength(1);
  });

  it('allowedOrigins are origins with scheme and port (a bare host name would ignore the port)', () => {
    expect(problems({ server: { allowedOrigins: ['http://localhost:6274', 'moz-extension://*'] }, agents: [agent] })).toEqual([]);
    expect(problems({ server: { allowedOrigins: ['localhost'] }, agents: [agent] })).toEqual([expect.stringMatching(/allowedOrigins\.0: must be an origin/)]);
  });
});
