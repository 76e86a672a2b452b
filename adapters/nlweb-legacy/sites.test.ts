import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSites } from './sites.ts';

describe('parseSites', () => {
  it('reads GET /sites with its hyphenated message-type, the /mcp forms and a bare array', () => {
    expect(parseSites({ 'message-type': 'sites', sites: ['seriouseats', 'npr podcasts'] })).toEqual(['seriouseats', 'npr podcasts']);
    expect(parseSites({ message_type: 'sites', sites: ['a'] })).toEqual(['a']);
    expect(parseSites({ sites: [{ id: 'x', name: 'X' }, { name: 'Y' }, 'x'] })).toEqual(['x', 'Y']);
    expect(parseSites(['a', ' b ', ''])).toEqual(['a', 'b']);
  });

  it('answers undefined for anything else', () => {
    expect(parseSites({ message_type: 'sites' })).toBeUndefined();
    expect(parseSites('sites')).toBeUndefined();
    expect(parseSites({ sites: 'a,b' })).toBeUndefined();
  });

  it('property: never throws; a result holds only trimmed, unique, non-empty names', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.record({ sites: fc.array(fc.oneof(fc.string(), fc.record({ id: fc.string(), name: fc.string() }, { requiredKeys: [] }))) })), (value) => {
        const sites = parseSites(value);
        if (sites === undefined) return;
        expect(new Set(sites).size).toBe(sites.length);
        for (const s of sites) expect(s).toBe(s.trim()), expect(s.length).toBeGreaterThan(0);
      }),
    );
  });
});
