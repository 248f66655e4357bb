/**
 * The presets against what each provider publishes (checked in their documentation, not called:
 * Google's OpenID Connect discovery document, Discord's OAuth2 topic and user object, GitHub's
 * "Authorizing OAuth apps" and REST users endpoints). A change here is a change of what the
 * service asks each provider, so every value is spelled out.
 */
import { describe, expect, it } from 'vitest';
import { UPSTREAM_PRESET_NAMES } from '../../src/domain/upstreams.js';
import { UPSTREAM_PRESETS } from '../../src/upstreams/presets.js';

describe('upstream presets', () => {
  it('are exactly google, discord and github', () => {
    expect(Object.keys(UPSTREAM_PRESETS).sort()).toEqual([...UPSTREAM_PRESET_NAMES].sort());
  });

  it('google: OpenID Connect at the issuer https://accounts.google.com, asking openid email profile', () => {
    expect(UPSTREAM_PRESETS.google).toEqual({
      kind: 'oidc',
      issuer: 'https://accounts.google.com',
      authorizationEndpoint: null,
      tokenEndpoint: null,
      userinfoEndpoint: null,
      claimMapping: null,
      scopes: ['openid', 'email', 'profile'],
    });
  });

  it('discord: OAuth 2.0 endpoints, identify email, and the user object mapped (id, username, email, verified)', () => {
    expect(UPSTREAM_PRESETS.discord).toEqual({
      kind: 'oauth2',
      issuer: null,
      authorizationEndpoint: 'https://discord.com/oauth2/authorize',
      tokenEndpoint: 'https://discord.com/api/oauth2/token',
      userinfoEndpoint: 'https://discord.com/api/users/@me',
      claimMapping: { subject: 'id', name: 'username', email: 'email', emailVerified: 'verified' },
      scopes: ['identify', 'email'],
    });
  });

  it('github: OAuth 2.0 endpoints, read:user user:email, and /user mapped (id, login, email) with no verified flag', () => {
    expect(UPSTREAM_PRESETS.github).toEqual({
      kind: 'oauth2',
      issuer: null,
      authorizationEndpoint: 'https://github.com/login/oauth/authorize',
      tokenEndpoint: 'https://github.com/login/oauth/access_token',
      userinfoEndpoint: 'https://api.github.com/user',
      claimMapping: { subject: 'id', name: 'login', email: 'email', emailVerified: null },
      scopes: ['read:user', 'user:email'],
    });
  });
});
