import { describe, expect, it } from 'vitest';
import {
  decodeBase64Content,
  isAuthToken,
  isConversationToken,
  isPromiseToken,
  parseBinarySubformat,
  readLocation,
  readStructuredJson,
  tokenPrefix,
} from './formats.ts';

describe('Table 1 token subformats', () => {
  it('reads the prefix of <prefix>_<suffix> in any case', () => {
    expect(tokenPrefix('conversation_peerA')).toBe('conversation');
    expect(tokenPrefix('Authentication')).toBe('authentication');
    expect(tokenPrefix('')).toBe('');
  });
  it('recognises conversation, authentication/authorization and promise tokens', () => {
    const t = (subformat: string) => ({ format: 'token' as const, subformat, content: 'x' });
    expect(isConversationToken(t('Conversation_x'))).toBe(true);
    expect(isConversationToken({ ...t('conversation'), format: 'text' })).toBe(false);
    expect(isAuthToken(t('authentication'))).toBe(true);
    expect(isAuthToken(t('Authorization_bearer'))).toBe(true);
    expect(isAuthToken(t('conversation'))).toBe(false);
    expect(isPromiseToken(t('promise'))).toBe(true);
    expect(isPromiseToken(t('promises'))).toBe(false);
  });
});

describe('Table 1 binary subformats', () => {
  it.each([
    ['image/png', 'image', 'png', 'image/png'],
    ['audio/.mp3', 'audio', 'mp3', 'audio/mpeg'],
    ['video/.mov', 'video', 'mov', 'video/quicktime'],
    ['jpeg', 'image', 'jpeg', 'image/jpeg'],
    ['image/base64', 'image', '', 'application/octet-stream'],
    ['audio/wav;base64', 'audio', 'wav', 'audio/wav'],
    ['generic/.zip', 'generic', 'zip', 'application/zip'],
    ['sensor/raw', 'sensor', 'raw', 'application/octet-stream'],
    ['image/heic', 'image', 'heic', 'image/heic'],
    ['text/plain', 'text', 'plain', 'text/plain'],
    ['video/mpeg', 'video', 'mpeg', 'video/mpeg'],
    ['audio/bmp', 'audio', 'bmp', 'audio/bmp'],
    ['', 'generic', '', 'application/octet-stream'],
  ])('%s → kind %s, encoding %s, %s', (sub, kind, encoding, mediaType) => {
    expect(parseBinarySubformat(sub)).toEqual({ kind, encoding, mediaType });
  });

  it('decodes standard base64 and tolerates line breaks, URL-safe letters, missing padding, data: URLs', () => {
    expect(decodeBase64Content('AAEC')).toEqual(Buffer.from([0, 1, 2]));
    expect(decodeBase64Content('AA\nEC\n')).toEqual(Buffer.from([0, 1, 2]));
    expect(decodeBase64Content('-_8')).toEqual(Buffer.from([0xfb, 0xff]));
    expect(decodeBase64Content('AAE')).toEqual(Buffer.from([0, 1]));
    expect(decodeBase64Content('data:image/png;base64,AAEC')).toEqual(Buffer.from([0, 1, 2]));
  });
  it('refuses content that is not base64', () => {
    expect(decodeBase64Content('not base64!')).toBeNull();
    expect(decodeBase64Content('A')).toBeNull();
    expect(decodeBase64Content({ a: 1 })).toBeNull();
  });
});

describe('Table 1 location', () => {
  const loc = (subformat: string, content: string | Record<string, unknown>) => ({ format: 'location' as const, subformat, content });
  it('reads a text location', () => {
    expect(readLocation(loc('text', ' Seattle, WA '))).toEqual({ kind: 'text', text: 'Seattle, WA' });
  });
  it('reads GPS as "lat,lon", "lat lon" and objects', () => {
    expect(readLocation(loc('GPS', '47.6,-122.3'))).toEqual({ kind: 'gps', latitude: 47.6, longitude: -122.3 });
    expect(readLocation(loc('gps', '47.6 -122.3'))).toEqual({ kind: 'gps', latitude: 47.6, longitude: -122.3 });
    expect(readLocation(loc('gps', { latitude: 1, longitude: 2 }))).toEqual({ kind: 'gps', latitude: 1, longitude: 2 });
    expect(readLocation(loc('gps', { lat: '1.5', lng: 2 }))).toEqual({ kind: 'gps', latitude: 1.5, longitude: 2 });
  });
  it('returns null for unreadable or out-of-range locations', () => {
    expect(readLocation(loc('gps', 'north'))).toBeNull();
    expect(readLocation(loc('gps', '91,0'))).toBeNull();
    expect(readLocation(loc('text', ''))).toBeNull();
    expect(readLocation({ format: 'text', subformat: 'english', content: 'Seattle' })).toBeNull();
  });
});

describe('Table 1 structured json', () => {
  const s = (subformat: string, content: string | Record<string, unknown>) => ({ format: 'structured' as const, subformat, content });
  it('reads object content as is and string content as JSON text', () => {
    expect(readStructuredJson(s('json', { a: 1 }))).toEqual({ a: 1 });
    expect(readStructuredJson(s('JSON', '[1,2]'))).toEqual([1, 2]);
  });
  it('returns undefined for other subformats and for text that is not JSON', () => {
    expect(readStructuredJson(s('uri', 'https://x'))).toBeUndefined();
    expect(readStructuredJson(s('json', '{oops'))).toBeUndefined();
  });
});
