import fc from 'fast-check';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { describe, expect, it } from 'vitest';
import { mountBinding, onBindingError } from './mount.ts';

/** What one handler of a route does: answer, pass on, throw (an Error or not), before or after `next()`. */
type Step = 'answer' | 'next' | 'throw' | 'reject' | 'throw-value' | 'next-then-throw' | 'answer-async';
const stepArb = fc.constantFrom<Step>('answer', 'next', 'throw', 'reject', 'throw-value', 'next-then-throw', 'answer-async');

function handlerFor(step: Step, i: number): MiddlewareHandler {
  switch (step) {
    case 'answer':
      return (c) => Promise.resolve(c.text(`answer ${i}`, 201));
    case 'answer-async':
      return async (c) => c.text(`late answer ${i}`, 202);
    case 'next':
      return (_c, next) => next();
    case 'throw':
      return () => {
        throw new Error(`thrown ${i}`);
      };
    case 'reject':
      return async () => {
        throw new TypeError(`rejected ${i}`);
      };
    case 'throw-value':
      return async () => {
        throw `a string ${i}`;
      };
    case 'next-then-throw':
      return async (_c, next) => {
        await next();
        throw new RangeError(`after next ${i}`);
      };
  }
}

/** A binding app: one route of the given handlers, a renderer of its own, and a middleware of its own first. */
function bindingApp(steps: Step[], withRenderer: boolean): Hono {
  const sub = new Hono();
  if (withRenderer) onBindingError(sub, (err, c: Context) => c.json({ rendered: err.message, seen: c.error === err }, 418));
  sub.use('*', async (c, next) => {
    c.header('x-binding', 'yes');
    await next();
  });
  // One registration a handler: Hono chains them in order, as it chains `post(path, a, b)`.
  steps.forEach((step, i) => sub.post('/ask', handlerFor(step, i)));
  return sub;
}

/** The gateway app around it: its own error handler, as app.ts has. */
function gatewayApp(mount: (app: Hono, sub: Hono) => void, sub: Hono): Hono {
  const app = new Hono();
  mount(app, sub);
  app.onError((err, c) => c.json({ gateway: err.message }, 500));
  return app;
}

async function outcome(app: Hono, path: string) {
  try {
    const res = await app.request(path, { method: 'POST' });
    return { status: res.status, body: await res.text(), header: res.headers.get('x-binding') };
  } catch (err) {
    return { thrown: String(err) };
  }
}

describe('mountBinding', () => {
  it('answers every route exactly as Hono’s route() does (any mix of answers, throws and rejections, with or without a renderer)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 4 }), fc.boolean(), fc.constantFrom('/', '/agents/:agent'), async (steps, withRenderer, base) => {
        const path = base === '/' ? '/ask' : '/agents/up/ask';
        const ours = await outcome(gatewayApp((app, sub) => mountBinding(app, base, sub), bindingApp(steps, withRenderer)), path);
        const hono = await outcome(gatewayApp((app, sub) => app.route(base, sub), bindingApp(steps, withRenderer)), path);
        expect(ours).toStrictEqual(hono);
      }),
      { numRuns: 300 },
    );
  });

  it('renders a handler’s Error with the binding’s renderer, not the gateway’s', async () => {
    const app = gatewayApp((a, sub) => mountBinding(a, '/agents/:agent', sub), bindingApp(['next', 'reject'], true));
    const res = await app.request('/agents/up/ask', { method: 'POST' });
    expect(res.status).toBe(418);
    expect(await res.json()).toStrictEqual({ rendered: 'rejected 1', seen: true });
  });

  it('makes fewer promises than Hono’s route() (regression: its per-handler compose cost about 11 of the 104 promises an NLWeb /ask made)', async () => {
    const { promiseHooks } = await import('node:v8');
    const count = async (app: Hono) => {
      await app.request('/ask', { method: 'POST' });
      let made = 0;
      const stop = promiseHooks.onInit(() => void made++);
      try {
        await app.request('/ask', { method: 'POST' });
      } finally {
        stop();
      }
      return made;
    };
    const ours = await count(gatewayApp((app, sub) => mountBinding(app, '/', sub), bindingApp(['next', 'answer'], true)));
    const hono = await count(gatewayApp((app, sub) => app.route('/', sub), bindingApp(['next', 'answer'], true)));
    // Hono's route() adds an async wrapper and a compose of its own around each of the three handlers.
    expect(hono - ours).toBeGreaterThanOrEqual(9);
  });
});
