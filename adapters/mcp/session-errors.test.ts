import fc from 'fast-check';
import { SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { isUnknownSession } from './session-errors.ts';

const http = (status: number, text: string | null) => new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'Error POSTing to endpoint', { status, statusText: '', text });

describe('isUnknownSession (MCP 2025-11-25 Session Management)', () => {
  it('is true for 404 and for a 400 session error as server-everything sends it', () => {
    expect(isUnknownSession(http(404, 'Session not found'))).toBe(true);
    expect(isUnknownSession(http(400, JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null })))).toBe(true);
  });

  it('is false for other 400s, other statuses and other errors', () => {
    expect(isUnknownSession(http(400, JSON.stringify({ jsonrpc: '2.0', error: { code: -32602, message: 'Invalid params' }, id: 1 })))).toBe(false);
    expect(isUnknownSession(http(400, null))).toBe(false);
    expect(isUnknownSession(http(500, 'session'))).toBe(false);
    expect(isUnknownSession(new Error('session'))).toBe(false);
  });

  it('never throws, whatever the body (property)', () => {
    fc.assert(fc.property(fc.integer({ min: 100, max: 599 }), fc.option(fc.string()), (status, text) => {
      expect(typeof isUnknownSession(http(status, text))).toBe('boolean');
    }));
  });
});
