/**
 * Contract test: real requests through `prism proxy openapi.yaml <app> --errors`, which turns any
 * response that breaks the contract into a 500 listing the violations. Every JSON operation's
 * success and error responses go through it. Prism answers contract-invalid requests itself
 * (422, never forwarded), so schema-level bad input is tested against the app directly, in the
 * per-operation suites. Picture bodies are tested directly too: Prism corrupts binary bodies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPicture } from '../../src/pictures/pictures.js';
import { makeClient, makeCode, makeUser, startServer, type TestServer } from '../helpers.js';
import { startPrism, type Prism } from './prism.js';
import sharp from 'sharp';

let t: TestServer;
let prism: Prism;

beforeAll(async () => {
  t = await startServer();
  prism = await startPrism(['proxy', 'openapi.yaml', t.baseUrl, '--errors']);
});
afterAll(async () => {
  await prism?.stop();
  await t?.close();
});

async function through(pathAndQuery: string, init?: RequestInit): Promise<{ status: number; body: unknown; headers: Headers }> {
  const res = await fetch(`${prism.url}${pathAndQuery}`, init);
  const text = await res.text();
  expect(res.headers.get('sl-violations'), `contract violations: ${res.headers.get('sl-violations')}`).toBeNull();
  expect(res.status, `Prism reported: ${text}`).not.toBe(500);
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

function form(params: Record<string, string>): RequestInit {
  return {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  };
}

async function setup(scope = 'userinfo email') {
  const user = await makeUser(t);
  const client = await makeClient(t, user.id);
  const code = await makeCode(t, { userId: user.id, clientId: client.clientId, scope });
  return { user, client, code };
}

describe('through the Prism proxy, responses match the contract', () => {
  it('healthz 200', async () => {
    expect(await through('/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('token exchange 200, then 400 for the replay, and whois 401 for the revoked token', async () => {
    const { client, code } = await setup();
    const params = { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret };
    const ok = await through('/api/oauth/token', form(params));
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 600 });
    const replay = await through('/api/oauth/token', form(params));
    expect(replay).toMatchObject({ status: 400, body: { message: 'Authorization code has already been used; tokens issued from it are revoked' } });
    const token = (ok.body as { access_token: string }).access_token;
    const revoked = await through('/api/oauth/whois', { headers: { Authorization: `Bearer ${token}` } });
    expect(revoked).toMatchObject({ status: 401, body: { message: 'Access token has been revoked' } });
  });

  it('token exchange with HTTP Basic client authentication 200', async () => {
    const { client, code } = await setup();
    const basic = Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64');
    const res = await through('/api/oauth/token', {
      ...form({ grant_type: 'authorization_code', code }),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Basic ${basic}` },
    });
    expect(res.status).toBe(200);
  });

  it('token exchange 400 and 401 errors', async () => {
    const { client, code } = await setup();
    const base = { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret };
    expect(await through('/api/oauth/token', form({ ...base, code: 'not-a-code' }))).toMatchObject({
      status: 400,
      body: { message: 'Invalid authorization code' },
    });
    expect(await through('/api/oauth/token', form({ ...base, grant_type: 'password' }))).toMatchObject({
      status: 400,
      body: { message: 'Unsupported grant_type: only authorization_code is supported' },
    });
    expect(await through('/api/oauth/token', form({ ...base, client_id: 'nobody' }))).toMatchObject({
      status: 401,
      body: { message: 'Unknown client' },
    });
    expect(await through('/api/oauth/token', form({ ...base, client_secret: 'wrong' }))).toMatchObject({
      status: 401,
      body: { message: 'Invalid client secret' },
    });
    t.clock.advance(5 * 60 * 1000);
    expect(await through('/api/oauth/token', form(base))).toMatchObject({
      status: 400,
      body: { message: 'Authorization code has expired' },
    });
  });

  it('whois 200 with and without email, 401 and 403', async () => {
    for (const scope of ['userinfo email', 'userinfo', '']) {
      const { user, client, code } = await setup(scope);
      const ok = await through(
        '/api/oauth/token',
        form({ grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret }),
      );
      const token = (ok.body as { access_token: string }).access_token;
      const whois = await through('/api/oauth/whois', { headers: { Authorization: `Bearer ${token}` } });
      if (scope === '') {
        expect(whois).toMatchObject({ status: 403, body: { message: 'Access token lacks the userinfo scope' } });
      } else {
        expect(whois.status).toBe(200);
        expect(whois.body).toEqual(scope.includes('email') ? { id: user.id, name: user.name, email: user.email } : { id: user.id, name: user.name });
      }
    }
    const unknown = await through('/api/oauth/whois', { headers: { Authorization: 'Bearer unknown-token' } });
    expect(unknown).toMatchObject({ status: 401, body: { message: 'Invalid access token' } });
  });

  it('users/info 200 with and without a picture, 400 and 404', async () => {
    const user = await makeUser(t);
    const plain = await through(`/api/users/info?id=${user.id}`);
    expect(plain.status).toBe(200);
    expect(plain.body).toMatchObject({ message: 'yes', user: { id: user.id, name: user.name } });
    const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#3366cc' } }).png().toBuffer();
    const ts = await setPicture(t.app.deps, user.id, png);
    const withPicture = await through(`/api/users/info?id=${user.id}`);
    expect((withPicture.body as { user: { pfpTimestamp: number } }).user.pfpTimestamp).toBe(ts);
    expect(await through('/api/users/info?id=999999')).toMatchObject({ status: 404, body: { message: 'User not found' } });
    // Valid for the schema (an integer), refused by the service's stricter plain-digits rule.
    expect(await through('/api/users/info?id=1e3')).toMatchObject({ status: 400, body: { message: 'Invalid user ID' } });
  });

  it('picture 404 is a JSON error that matches the contract', async () => {
    const user = await makeUser(t);
    expect(await through(`/pfp/large/${user.id}-123.webp`)).toMatchObject({
      status: 404,
      body: { message: 'Profile picture not found' },
    });
  });

  it('the published contract, the docs page and its assets match the contract', async () => {
    for (const [route, type] of [
      ['/openapi.yaml', 'application/yaml'],
      ['/openapi.json', 'application/json'],
      ['/docs', 'text/html'],
      ['/docs/assets/redoc.standalone.js', 'application/javascript'],
      ['/docs/assets/redoc.standalone.js.LICENSE.txt', 'text/plain'],
    ] as const) {
      const res = await fetch(`${prism.url}${route}`);
      const text = await res.text();
      expect(res.headers.get('sl-violations'), `${route}: ${res.headers.get('sl-violations')}`).toBeNull();
      expect(res.status, `${route}: ${text.slice(0, 500)}`).toBe(200);
      expect(res.headers.get('content-type')).toMatch(new RegExp(`^${type}`));
    }
  });
});

