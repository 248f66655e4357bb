/** The rules src/accounts/users.ts gives names and addresses that come from elsewhere (an upstream provider). */
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../src/domain/errors.js';
import { emailAddressOf, normalizeEmail, suggestedPublicName } from '../../src/accounts/users.js';

describe('suggestedPublicName', () => {
  it.each([
    ['octocat', 'octocat'],
    ['Ada Lovelace', 'Ada_Lovelace'],
    ['  émile.zola@home  ', 'mile_zola_home'],
    ['__x__', 'x'],
    ['a'.repeat(40), 'a'.repeat(28)],
    ['名前', ''],
    [null, ''],
  ])('%j -> %j', (name, suggested) => {
    expect(suggestedPublicName(name)).toBe(suggested);
  });
});

describe('emailAddressOf and normalizeEmail', () => {
  it('give an address as it is stored: trimmed, lower case', () => {
    expect(emailAddressOf(' Ada@Example.ORG ')).toBe('ada@example.org');
    expect(normalizeEmail(' Ada@Example.ORG ')).toBe('ada@example.org');
  });

  it.each(['ada@localhost', 'ada', 'a b@example.org', '@example.org', `${'a'.repeat(65)}@example.org`, `a@${'b'.repeat(250)}.org`])(
    'refuse %j: undefined, and InvalidInput',
    (raw) => {
      expect(emailAddressOf(raw)).toBeUndefined();
      expect(() => normalizeEmail(raw)).toThrow(new InvalidInput('Email address is not valid'));
    },
  );
});
