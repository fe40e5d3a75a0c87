import { describe, expect, it, vi } from 'vitest';

// The rein command's bundle holds one copy of rein, and a rules module imports another: an error thrown by either
// copy must be told apart by the other, as `main` does for the exit code (a UsageError exits 2, a crash 1).
const first = await import('../../lib/errors.js');
vi.resetModules();
const second = await import('../../lib/errors.js');

describe('rein error classes across two copies of rein', () => {
  it('are two copies', () => {
    expect(second.UsageError).not.toBe(first.UsageError);
  });

  it('match an error of the other copy by its class, or an ancestor class', () => {
    expect(new second.UsageError('bad flag')).toBeInstanceOf(first.UsageError);
    expect(new second.QueueConnectionError('no redis')).toBeInstanceOf(first.UsageError);
    expect(new second.ModelEndpointError('down')).toBeInstanceOf(first.ReinError);
    expect(new first.UsageError('bad flag')).toBeInstanceOf(second.UsageError);
  });

  it('do not match an error of another class, or one outside rein that shares a name', () => {
    expect(new second.ModelEndpointError('down')).not.toBeInstanceOf(first.UsageError);
    expect(new second.ReinError('plain')).not.toBeInstanceOf(first.UsageError);
    class UsageError extends Error {}
    expect(new UsageError('not rein')).not.toBeInstanceOf(first.UsageError);
    expect(new Error('plain')).not.toBeInstanceOf(first.ReinError);
    expect('UsageError').not.toBeInstanceOf(first.UsageError);
    expect(null).not.toBeInstanceOf(first.ReinError);
  });

  it('still match their own instances and subclasses', () => {
    class Mine extends first.UsageError {}
    expect(new Mine('x')).toBeInstanceOf(first.UsageError);
    expect(new Mine('x')).toBeInstanceOf(first.ReinError);
    expect(new first.UsageError('x')).not.toBeInstanceOf(Mine);
  });
});
