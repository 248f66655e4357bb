/**
 * What the relying-party suites share (test/oauth/relying-parties.test.ts,
 * test/browser/oidc-spa.test.ts): registering an app through the JSON API as its developer would,
 * the consent step of the traditional flow driven over HTTP, and the claims this service puts in
 * ID tokens and UserInfo answers.
 */
import { expect } from 'vitest';
import type { Agent, TestServer } from './helpers.js';
import type { UserRecord } from '../src/domain/users.js';

/** registerApp's answer (201): client_secret only for a confidential app. */
export interface RegisteredApp {
  client_id: string;
  client_secret?: string;
  name: string;
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
  grant_types: string[];
  public: boolean;
  created_at: number;
}

/** POST /api/apps as the signed-in `developer`; expects 201 and the shape the contract gives. */
export async function registerApp(
  developer: Agent,
  body: { name: string; redirect_uris: string[]; public?: boolean; post_logout_redirect_uris?: string[]; grant_types?: string[] },
): Promise<RegisteredApp> {
  const res = await developer.json('POST', '/api/apps', body);
  const created = (await res.json()) as RegisteredApp;
  expect({ status: res.status, body: created }).toEqual({
    status: 201,
    body: {
      client_id: expect.stringMatching(/^[\w-]{11}$/),
      ...(body.public ? {} : { client_secret: expect.stringMatching(/^[\w-]{43}$/) }),
      name: body.name,
      redirect_uris: body.redirect_uris,
      post_logout_redirect_uris: body.post_logout_redirect_uris ?? [],
      grant_types: body.grant_types ?? ['authorization_code'],
      public: body.public ?? false,
      created_at: expect.any(Number),
    },
  });
  return created;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** The hidden fields of the consent form (src/pages/pages.ts consentPage), unescaped. */
export function consentFields(page: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [, name, value] of page.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields[name!] = value!.replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!);
  }
  return fields;
}

/**
 * The browser's part of the traditional flow, for a signed-in `agent`: GET the authorization URL;
 * when the consent page shows, press Authorize (POST /oauth with the form's hidden fields, its
 * CSRF token among them); resolves with the redirect to the client (code, state, iss). A remembered
 * consent answers the GET with that redirect directly. `consented` says whether the page showed.
 */
export async function authorizeOverHttp(agent: Agent, authorizationUrl: URL | string): Promise<{ callbackUrl: URL; consented: boolean; scopes: string[] }> {
  const url = new URL(authorizationUrl);
  expect(url.pathname).toBe('/oauth');
  const first = await agent.fetch(`${url.pathname}${url.search}`);
  if (first.status === 302) {
    await first.arrayBuffer();
    return { callbackUrl: new URL(first.headers.get('location')!), consented: false, scopes: [] };
  }
  const page = await first.text();
  expect(first.status, page).toBe(200);
  const scopes = [...page.matchAll(/<li data-scope="(\w+)">/g)].map((m) => m[1]!);
  const fields = consentFields(page);
  expect(fields._csrf).toMatch(/^[\w-]+$/);
  const decision = await agent.fetch('/oauth', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, decision: 'authorize' }).toString(),
  });
  const body = await decision.text();
  expect(decision.status, body).toBe(302);
  return { callbackUrl: new URL(decision.headers.get('location')!), consented: true, scopes };
}

/** A time in the server's clock as a JWT NumericDate (whole seconds). */
const seconds = (ms: number): number => Math.floor(ms / 1000);

/**
 * The claims of the `profile` scope for `user` (docs/oauth.md#openid-connect): the public name as
 * `name` and `preferred_username`, the profile page's address, the picture's large
 * size under the issuer, with the picture's timestamp when the user has one; updated_at is when
 * the picture last changed (or the account was made).
 */
export function profileClaims(issuer: string, user: Pick<UserRecord, 'id' | 'name' | 'pfpTimestamp' | 'profileUpdatedAt'>): Record<string, unknown> {
  return {
    name: user.name,
    preferred_username: user.name,
    profile: `${issuer}/users/${user.id}`,
    picture: user.pfpTimestamp === null ? `${issuer}/pfp/large/${user.id}.webp` : `${issuer}/pfp/large/${user.id}-${user.pfpTimestamp}.webp`,
    updated_at: seconds(user.profileUpdatedAt),
  };
}

/** The claims of the `email` scope for `user` (whose address makeUser verified). */
export function emailClaims(user: Pick<UserRecord, 'email' | 'emailVerifiedAt'>): Record<string, unknown> {
  return { email: user.email, email_verified: user.emailVerifiedAt !== null };
}

/** The server's clock right now, for the iat/auth_time of tokens issued while it stands still. */
export function serverSeconds(t: TestServer): number {
  return seconds(t.clock.now());
}
