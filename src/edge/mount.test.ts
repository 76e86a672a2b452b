import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MOUNT_ENV_KEY, mountedEnv, normalizeMount, pathBelow, unmountedRequest } from './mount.ts';

const segment = fc.stringMatching(/^[a-z0-9._~-]{1,8}$/);
const mountPath = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => `/${s.join('/')}`);
const routePath = fc.array(segment, { maxLength: 4 }).map((s) => `/${s.join('/')}`);

describe('mount paths', () => {
  it('normalizes a trailing slash and the root, and refuses what is not an absolute path', () => {
    expect(normalizeMount('/gateway/')).toBe('/gateway');
    expect(normalizeMount('/')).toBe('');
    expect(normalizeMount(undefined)).toBe('');
    expect(pathBelow('/t/a%20b/gw/ask', '/t/a b/gw')).toBe('/ask');
    for (const bad of ['gateway', '//evil.example', '/a b', '/x?y', '/x#y', 'http://x/y']) expect(() => normalizeMount(bad), bad).toThrow(/basePath/);
  });

  it('a path under the mount comes back below it; a path that merely starts with its letters does not', () => {
    fc.assert(
      fc.property(mountPath, routePath, (mount, path) => {
        expect(pathBelow(`${mount}${path === '/' ? '' : path}`, mount)).toBe(path);
        expect(pathBelow(`${mount}x${path}`, mount)).toBeUndefined();
        expect(pathBelow(path, '')).toBe(path);
        expect(pathBelow(`${mount}${path}`.split('/').map(encodeURIComponent).join('/'), mount)).toBe(path.split('/').map(encodeURIComponent).join('/'));
      }),
    );
  });

  it('rewrites a request below the mount, keeping method, headers and body; the env carries the mount', async () => {
    const req = new Request('http://h.test/gateway/ask?x=1', { method: 'POST', headers: { 'x-a': '1' }, body: 'hello' });
    const below = unmountedRequest(req, '/gateway')!;
    expect(below.url).toBe('http://h.test/ask?x=1');
    expect(below.method).toBe('POST');
    expect(below.headers.get('x-a')).toBe('1');
    expect(await below.text()).toBe('hello');
    expect(unmountedRequest(new Request('http://h.test/other'), '/gateway')).toBeUndefined();
    expect(mountedEnv({ incoming: 1 }, '/gateway')).toEqual({ incoming: 1, [MOUNT_ENV_KEY]: '/gateway' });
  });
});
