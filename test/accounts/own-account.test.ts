/** The signed-in user's account: getAccount, updateAccount, setAccountPicture, removeAccountPicture, postHeartbeat, getAccountPage. */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicUser } from '../fixtures/users.js';
import { Agent, fixturesDir, signedInAgent, startServer, type TestServer } from '../helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => t?.close());

function upload(agent: Agent, file: Buffer, csrf: string, field = 'file'): Promise<Response> {
  const form = new FormData();
  form.append(field, new Blob([new Uint8Array(file)]), 'upload.bin');
  return agent.fetch('/api/account/picture', { method: 'PUT', body: form, headers: { 'X-CSRF-Token': csrf } });
}

describe('getAccount', () => {
  it('returns the public user and the email, not cached', async () => {
    const { agent, user } = await signedInAgent(t);
    const res = await agent.fetch('/api/account');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({
      user: publicUser(user),
      email: user.email,
    });
  });

  it('is 401 without a session', async () => {
    const res = await new Agent(t).fetch('/api/account');
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ message: 'Sign in first' });
  });
});

describe('updateAccount', () => {
  it('sets the bio and equips an owned flair', async () => {
    const { agent, user } = await signedInAgent(t);
    await t.store.users.updateUser(user.id, { flairs: ['none', 'gold'] });
    const res = await agent.json('PATCH', '/api/account', { bio: 'Plays chess <b>badly</b>', equippedFlair: 'gold' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { user: unknown }).user).toMatchObject({ bio: 'Plays chess <b>badly</b>', equippedFlair: 'gold', flairs: ['none', 'gold'] });
  });

  it('refuses a flair the user does not own, a bio over 1024 characters and other fields', async () => {
    const { agent } = await signedInAgent(t);
    const notOwned = await agent.json('PATCH', '/api/account', { equippedFlair: 'gold' });
    expect([notOwned.status, await notOwned.json()]).toEqual([400, { message: 'The user does not own the flair "gold"' }]);
    const long = await agent.json('PATCH', '/api/account', { bio: 'x'.repeat(1025) });
    expect([long.status, await long.json()]).toEqual([400, { message: 'Body field bio must NOT have more than 1024 characters' }]);
    const flairs = await agent.json('PATCH', '/api/account', { flairs: ['gold'] });
    expect([flairs.status, await flairs.json()]).toEqual([400, { message: 'Body field flairs is not allowed' }]);
  });

  it('is 403 without the CSRF token, and 401 before that without a session', async () => {
    const { agent } = await signedInAgent(t);
    const res = await agent.fetch('/api/account', { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: '{"bio":"x"}' });
    expect([res.status, await res.json()]).toEqual([403, { message: 'Invalid CSRF token' }]);
    const wrong = await agent.fetch('/api/account', { method: 'PATCH', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': 'forged' }, body: '{"bio":"x"}' });
    expect(wrong.status).toBe(403);
    const anon = await new Agent(t).json('PATCH', '/api/account', { bio: 'x' });
    expect([anon.status, await anon.json()]).toEqual([401, { message: 'Sign in first' }]);
  });
});

describe('setAccountPicture and removeAccountPicture', () => {
  it('uploads any image sharp reads (multipart), serves it at the new address, then removes it', async () => {
    const { agent, user } = await signedInAgent(t);
    const csrf = await agent.csrf();
    const res = await upload(agent, fs.readFileSync(path.join(fixturesDir, 'photo.jpg')), csrf);
    expect(res.status).toBe(200);
    const { user: after } = (await res.json()) as { user: { pfpTimestamp: number } };
    expect(after.pfpTimestamp).toBeGreaterThan(0);
    const image = await fetch(`${t.baseUrl}/pfp/large/${user.id}-${after.pfpTimestamp}.webp`);
    expect(image.status).toBe(200);
    expect(await sharp(Buffer.from(await image.arrayBuffer())).metadata()).toMatchObject({ format: 'webp', width: 256, height: 256 });

    const removed = await agent.json('DELETE', '/api/account/picture');
    expect(removed.status).toBe(200);
    expect(((await removed.json()) as { user: object }).user).not.toHaveProperty('pfpTimestamp');
    expect((await fetch(`${t.baseUrl}/pfp/large/${user.id}-${after.pfpTimestamp}.webp`)).status).toBe(404);
  });

  it('refuses a non-image (400), a missing file part (400), a non-multipart body (415) and over 8 MB (413)', async () => {
    const { agent } = await signedInAgent(t);
    const csrf = await agent.csrf();
    const text = await upload(agent, fs.readFileSync(path.join(fixturesDir, 'picture.png')), csrf);
    expect([text.status, await text.json()]).toEqual([400, { message: 'The picture must be a JPEG, PNG, WebP, GIF or AVIF image' }]);
    const wrongField = await upload(agent, fs.readFileSync(path.join(fixturesDir, 'photo.jpg')), csrf, 'picture');
    expect([wrongField.status, await wrongField.json()]).toEqual([400, { message: 'The upload has no file part' }]);
    const json = await agent.json('PUT', '/api/account/picture', { file: 'x' });
    expect([json.status, await json.json()]).toEqual([415, { message: 'Upload the picture as multipart/form-data with a file part' }]);
    const big = await upload(agent, Buffer.alloc(8 * 1024 * 1024 + 1), csrf);
    expect([big.status, await big.json()]).toEqual([413, { message: 'The picture is larger than 8 MB' }]);
  });

  it('is 403 without the CSRF token and reads nothing then', async () => {
    const { agent, user } = await signedInAgent(t);
    const res = await upload(agent, fs.readFileSync(path.join(fixturesDir, 'photo.jpg')), 'forged');
    expect([res.status, await res.json()]).toEqual([403, { message: 'Invalid CSRF token' }]);
    expect((await t.store.users.getUser(user.id))?.pfpTimestamp).toBeNull();
  });

  it('multipart is refused on any other route (415)', async () => {
    const { agent } = await signedInAgent(t);
    const form = new FormData();
    form.append('bio', 'x');
    const res = await agent.fetch('/api/account', { method: 'PATCH', body: form, headers: { 'X-CSRF-Token': await agent.csrf() } });
    expect(res.status).toBe(415);
  });
});

describe('postHeartbeat', () => {
  it('starts a play session, then adds whole elapsed minutes (remainder carried), never across a gap', async () => {
    const { agent, user } = await signedInAgent(t);
    const beat = async () => (await agent.json('POST', '/api/account/heartbeat')).json();
    const start = t.clock.now();
    expect(await beat()).toEqual({ addedMinutes: 0, playMinutes: 0, lastHeartbeat: start });
    t.clock.advance(30_000);
    expect(await beat()).toEqual({ addedMinutes: 0, playMinutes: 0, lastHeartbeat: start });
    t.clock.advance(61_000); // 91 s since the start
    expect(await beat()).toEqual({ addedMinutes: 1, playMinutes: 1, lastHeartbeat: start + 60_000 });
    t.clock.advance(150_000); // 241 s since the start: 4 minutes in all, never more
    expect(await beat()).toEqual({ addedMinutes: 3, playMinutes: 4, lastHeartbeat: start + 240_000 });
    t.clock.advance(6 * 60_000); // a gap: not played
    expect(await beat()).toEqual({ addedMinutes: 0, playMinutes: 4, lastHeartbeat: t.clock.now() });
    expect((await t.store.users.getUser(user.id))?.playMinutes).toBe(4);
  });

  it('counts concurrent heartbeats once', async () => {
    const { agent, user } = await signedInAgent(t);
    await agent.json('POST', '/api/account/heartbeat');
    t.clock.advance(120_000);
    const results = (await Promise.all([1, 2, 3].map(() => agent.json('POST', '/api/account/heartbeat').then((r) => r.json())))) as { addedMinutes: number }[];
    expect(results.map((r) => r.addedMinutes).reduce((a, b) => a + b, 0)).toBe(2);
    expect((await t.store.users.getUser(user.id))?.playMinutes).toBe(2);
  });

  it('is 401 signed out', async () => {
    expect((await new Agent(t).json('POST', '/api/account/heartbeat')).status).toBe(401);
  });
});

describe('getAccountPage', () => {
  it('sends a visitor to sign in and back; shows a signed-in user the account page', async () => {
    const res = await new Agent(t).fetch('/account');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/signin?return_to=%2Faccount');
    const { agent, user } = await signedInAgent(t);
    const page = await agent.fetch('/account');
    expect(page.status).toBe(200);
    const body = await page.text();
    expect(body).toContain(`<strong id="profile-name">${user.name}</strong>`);
    expect(body).toContain('<script src="/assets/account.js"></script>');
  });
});
