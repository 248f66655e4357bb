/** The slug rule of upstream names (src/domain/upstreams.ts): the callback address and every lookup by name use it. */
import { describe, expect, it } from 'vitest';
import { upstreamSlug } from '../../src/domain/upstreams.js';

describe('upstreamSlug', () => {
  it.each([
    ['Google', 'google'],
    ['My Company SSO', 'my-company-sso'],
    ['  GitHub  ', 'github'],
    ['Café Login', 'cafe-login'],
    ['A -- B__C', 'a-b-c'],
    ['-Edge-', 'edge'],
    ['Zone 51', 'zone-51'],
  ])('%j -> %j', (name, slug) => {
    expect(upstreamSlug(name)).toBe(slug);
  });

  it('is empty when no a-z or 0-9 is left', () => {
    expect(upstreamSlug('Вход')).toBe('');
    expect(upstreamSlug(' - ')).toBe('');
  });

  it('keeps at most 64 characters, without a dash at the end', () => {
    expect(upstreamSlug('a'.repeat(70))).toBe('a'.repeat(64));
    expect(upstreamSlug(`${'a'.repeat(63)} b`)).toBe('a'.repeat(63));
  });
});
