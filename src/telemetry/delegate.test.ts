import { describe, expect, it } from 'vitest';
import { delegateTo } from './delegate.ts';

class Base {
  readonly kind = 'base';
  calls = 0;
  hello(name: string): string {
    this.calls++;
    return `hello ${name} from ${this.kind}`;
  }
  get upper(): string {
    return this.kind.toUpperCase();
  }
}
class Derived extends Base {
  bye(): string {
    return this.hello('bye');
  }
}

describe('delegateTo', () => {
  it('answers for the target: inherited methods bound to it, fields and getters read through, instanceof kept', () => {
    const target = new Derived();
    const d = delegateTo(target, () => undefined);
    expect(d.hello('x')).toBe('hello x from base');
    const { bye } = d; // bound: works detached, as a Proxy's bound methods did
    expect(bye()).toBe('hello bye from base');
    expect(d.calls).toBe(2);
    target.calls = 10;
    expect(d.calls).toBe(10);
    expect(d.upper).toBe('BASE');
    expect(d).toBeInstanceOf(Derived);
  });

  it('puts the wrapper in place of a method, once, with the original method to call', () => {
    const target = new Derived();
    const seen: string[] = [];
    const d = delegateTo(target, (key, method) => (key === 'hello' ? (...args: unknown[]) => (seen.push(String(args[0])), method.apply(target, args)) : undefined));
    expect(d.hello('a')).toBe('hello a from base');
    expect(d.hello).toBe(d.hello);
    expect(seen).toEqual(['a']);
    // Calls the target makes itself go to its own method, not through the wrapper.
    d.bye();
    expect(seen).toEqual(['a']);
  });
});
