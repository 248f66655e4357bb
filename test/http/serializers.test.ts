import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeToken, makeUser, startServer, type TestServer } from '../helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => t.close());

type Handlers = Record<string, (...args: unknown[]) => Promise<unknown>>;

/** Replaces a registered handler by one that runs it, then adds `extra` to its JSON body. */
function withStrayProperties(operationId: string, extra: Record<string, unknown>): () => void {
  const handlers = t.app.api.handlers as unknown as Handlers;
  const original = handlers[operationId]!;
  handlers[operationId] = async (...args: unknown[]) => {
    const result = await original(...args);
    const ctx = args[1] as { body: unknown };
    if (typeof ctx.body === 'object' && ctx.body !== null) Object.assign(ctx.body, extra);
    return result;
  };
  return () => {
    handlers[operationId] = original;
  };
}

describe('responses are written by serializers compiled from the contract', () => {
  it("a handler's stray property (a password hash) is not sent: users/info answers exactly the declared fields", async () => {
    const user = await makeUser(t);
    const restore = withStrayProperties('getUserInfo', { passwordHash: 'scrypt$leak', secret: 42 });
    try {
      const res = await fetch(`${t.baseUrl}/api/users/info?id=${user.id}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const text = await res.text();
      expect(text).not.toContain('scrypt$leak');
      expect(text).not.toContain('secret');
      const body = JSON.parse(text) as { message: string; user: Record<string, unknown> };
      expect(body.message).toBe('yes');
      expect(Object.keys(body).sort()).toEqual(['message', 'user']);
      expect(body.user).not.toHaveProperty('passwordHash');
    } finally {
      restore();
    }
  });

  it("a stray property on a nested object and on whois's body is dropped too", async () => {
    const { user, token } = await makeToken(t, 'userinfo');
    const restore = withStrayProperties('getWhois', { email_verified_at: 1, token_hash: 'abc' });
    try {
      const res = await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(JSON.stringify({ id: user.id, name: user.name }));
    } finally {
      restore();
    }
  });

  it('the serialized body is the same bytes JSON.stringify writes for a declared body, with the same length header', async () => {
    const { user, token } = await makeToken(t, 'userinfo');
    const res = await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${token}` } });
    const text = await res.text();
    expect(text).toBe(JSON.stringify({ id: user.id, name: user.name }));
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
  });

  it('error bodies stay {message} exactly', async () => {
    const res = await fetch(`${t.baseUrl}/api/users/info?id=999999`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: expect.any(String) });
  });
});
