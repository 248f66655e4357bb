/**
 * Moderation in Chromium: the public profile page and its report form, and a moderator working
 * through the queue on /moderation (hide a bio, suspend, close the reports), with what the
 * users see afterwards: the suspension's reason at sign-in, the removed-bio notice on the
 * account page. Also the pages' answers without a browser (404, 400, 303, 403) and their width
 * on a phone.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/domain/users.js';
import { Agent, fixturesDir, makeUser, signedInAgent, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';
import { hasChromium, launchChromium, SCREENSHOTS_DIR } from './chromium.js';

let t: TestServer;
let browser: Browser;
const contexts: BrowserContext[] = [];

async function signedIn(who: UserRecord, width = 1000): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 800 } });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(8_000);
  await page.goto(`${t.baseUrl}/signin`);
  await page.fill('input[name=name]', who.name);
  await page.fill('input[name=password]', TEST_PASSWORD);
  await Promise.all([page.waitForURL(`${t.baseUrl}/account`), page.click('button[type=submit]')]);
  return page;
}

/** Whether the page scrolls sideways (it must not, at phone width). */
function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
}

async function report(agent: Agent, target: UserRecord, reason: string, text?: string): Promise<number> {
  const res = await agent.json('POST', `/api/users/${target.id}/reports`, { reason, ...(text ? { text } : {}) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: number }).id;
}

/** Gives `who` a profile picture, uploaded as they would. */
async function upload(who: UserRecord): Promise<void> {
  const agent = new Agent(t);
  await agent.signIn(who);
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(fs.readFileSync(path.join(fixturesDir, 'photo.jpg')))]), 'photo.jpg');
  const res = await agent.fetch('/api/account/picture', { method: 'PUT', body: form, headers: { 'X-CSRF-Token': await agent.csrf() } });
  expect([res.status, res.status === 200 ? '' : await res.text()]).toEqual([200, '']);
}

/** Answers the page's next confirm() (accepting or not), keeping what it asked. */
function answerNextDialog(page: Page, accept: boolean, asked: string[]): void {
  page.once('dialog', (dialog) => void (asked.push(`${dialog.type()}: ${dialog.message()}`), accept ? dialog.accept() : dialog.dismiss()));
}

/** The names in the queue, in its order, of the users given (other tests' reports stay in it). */
async function queueNames(page: Page, ...users: UserRecord[]): Promise<string[]> {
  const names = new Set(users.map((u) => u.name));
  return (await page.locator('#report-queue .queue-entry h3').allTextContents()).filter((n) => names.has(n));
}

describe.skipIf(!hasChromium)('moderation in Chromium', () => {
  beforeAll(async () => {
    t = await startServer({}, { limits: { signInIp: { points: 1000, seconds: 600 } } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await t?.close();
  });

  it('the profile page: escaped bio, flair, picture; 404 and 400 pages; a visitor is asked to sign in instead of a form', async () => {
    const b = await makeUser(t);
    await t.store.users.updateUser(b.id, { bio: '<b>loud</b> & "proud"', flairs: ['none', 'gold'], equippedFlair: 'gold', playMinutes: 75 });
    const res = await fetch(`${t.baseUrl}/users/${b.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await res.text();
    expect(page).toContain(`<h1 id="profile-name">${b.name}</h1>`);
    expect(page).toContain('<p id="profile-bio" class="bio">&lt;b&gt;loud&lt;/b&gt; &amp; &quot;proud&quot;</p>');
    expect(page).toContain('<span id="profile-flair" class="flair">gold</span>');
    expect(page).toContain(`<img id="profile-picture" src="/pfp/large/${b.id}.webp" alt="Profile picture of ${b.name}" width="128" height="128">`);
    expect(page).toContain('Played <span id="play-minutes">75</span> minutes');
    expect(page).toContain(`<a href="/signin?return_to=%2Fusers%2F${b.id}">Sign in</a> to report this profile`);
    expect(page).not.toContain('report-form');
    expect(page).not.toContain('<script');

    const missing = await fetch(`${t.baseUrl}/users/999999`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('<p id="error-message">User not found</p>');
    const bad = await fetch(`${t.baseUrl}/users/abc`);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  it('reporting a profile: the thanks in the result slot, then the 409 message with the typed values kept; not on one\'s own profile', async () => {
    const a = await makeUser(t);
    const b = await makeUser(t);
    const page = await signedIn(a, 360);
    await page.goto(`${t.baseUrl}/users/${b.id}`);
    expect(await page.locator('#profile-flair').count()).toBe(0);
    expect(await page.locator('#report-reason option').allTextContents()).toEqual([
      'Choose a reason',
      'Spam',
      'Harassment: abuse aimed at people',
      'Hate speech',
      'Sexual content',
      'Pretends to be someone else',
      'Something else (say what below)',
    ]);
    await page.selectOption('#report-reason', 'harassment');
    await page.fill('#report-text', 'Insults me in the game chat.');
    await page.click('#report-submit');
    await expect.poll(() => page.textContent('#report-result-status')).toBe('Thanks. A moderator will look at this profile.');
    expect(await page.getAttribute('#report-result-status', 'role')).toBe('status');
    expect(await page.textContent('#report-result-error')).toBe('');
    expect(await scrollsSideways(page)).toBe(false);

    const [again] = await Promise.all([page.waitForResponse((r) => r.url().endsWith(`/api/users/${b.id}/reports`)), page.click('#report-submit')]);
    expect(again.status()).toBe(409);
    const { message } = (await again.json()) as { message: string };
    await expect.poll(() => page.textContent('#report-result-error')).toBe(`Reporting failed: ${message}`);
    expect(await page.getAttribute('#report-result-error', 'role')).toBe('alert');
    expect(await page.textContent('#report-result-status')).toBe('');
    expect(await page.inputValue('#report-reason')).toBe('harassment');
    expect(await page.inputValue('#report-text')).toBe('Insults me in the game chat.');

    await page.goto(`${t.baseUrl}/users/${a.id}`);
    expect(await page.locator('#report-form').count()).toBe(0);
    expect(await page.textContent('main')).toContain('This is your public profile.');
  });

  it('a moderator works through the queue: hides a bio, removes a picture, suspends (once asked), closes the reports; the users see why', async () => {
    const rude = await makeUser(t);
    const spammer = await makeUser(t);
    await t.store.users.updateUser(rude.id, { bio: 'You are all idiots' });
    await upload(spammer);
    const mod = await makeUser(t);
    await t.store.users.updateUser(mod.id, { modLevel: 1 });
    const { agent: c } = await signedInAgent(t);
    const { agent: d } = await signedInAgent(t);
    const first = await report(c, rude, 'harassment', 'Calls everyone idiots.');
    t.clock.advance(1000);
    const second = await report(d, spammer, 'spam');
    t.clock.advance(1000);
    const third = await report(c, spammer, 'spam', 'Links to a shop.');

    const page = await signedIn(mod);
    expect(await page.getAttribute('header a[href="/moderation"]', 'href')).toBe('/moderation');
    await page.goto(`${t.baseUrl}/moderation`);
    await expect.poll(() => queueNames(page, rude, spammer)).toEqual([rude.name, spammer.name]);
    expect(await page.locator(`#report-queue .queue-entry[data-user-id="${spammer.id}"] > p`).textContent()).toMatch(/^Mod level 0, 2 reports, first reported .+$/);

    await page.click(`#report-queue a:text-is("${rude.name}")`);
    await page.waitForURL(`${t.baseUrl}/moderation?user=${rude.id}`);
    await expect.poll(() => page.textContent('#moderation-user-heading')).toBe(`${rude.name} (id ${rude.id})`);
    expect(await page.textContent('#moderation-bio')).toBe('You are all idiots');
    expect(await page.locator('#lift-suspension').count()).toBe(0);
    expect(await page.locator('#mod-level').count()).toBe(0);
    // A bio and no picture: Hide bio, not Remove picture.
    expect(await page.isVisible('#hide-bio')).toBe(true);
    expect(await page.locator('#remove-picture').count()).toBe(0);
    await page.click('#hide-bio');
    await expect.poll(() => page.textContent('#moderation-result-error')).toBe('Hiding the bio: write the reason first; the user is shown it.');
    expect(await page.getAttribute('#action-reason', 'aria-invalid')).toBe('true');
    expect(await page.getAttribute('#action-reason', 'aria-describedby')).toBe('moderation-result-error');
    await page.fill('#action-reason', 'Insults other players.');
    await page.click('#hide-bio');
    await expect.poll(() => page.textContent('#moderation-result-status')).toBe('Hiding the bio: done.');
    expect(await page.textContent('#moderation-result-error')).toBe('');
    expect(await page.textContent('#moderation-bio')).toBe('empty');
    expect(await page.locator('#hide-bio').count()).toBe(0);
    expect(await page.textContent('#moderation-bio-removed')).toContain(': Insults other players.');
    expect(await page.locator('#moderation-history li').first().textContent()).toMatch(new RegExp(`^Hid the bio: Insults other players\\. \\(by ${mod.name}, .+\\)$`));
    await page.selectOption(`#close-outcome-${first}`, 'bio_hidden');
    await page.click(`#close-report-${first}`);
    await expect.poll(() => page.textContent('#moderation-result-status')).toBe(`Report #${first} closed: Bio hidden.`);
    expect(await page.textContent('#moderation-reports')).toBe('No open reports.');
    await expect.poll(() => queueNames(page, rude, spammer)).toEqual([spammer.name]);

    await page.click(`#report-queue a:text-is("${spammer.name}")`);
    await expect.poll(() => page.textContent('#moderation-user-heading')).toBe(`${spammer.name} (id ${spammer.id})`);
    // A picture and no bio: Remove picture, not Hide bio.
    expect(await page.locator('#hide-bio').count()).toBe(0);
    await page.fill('#action-reason', 'Advertising in every game.');
    await page.click('#remove-picture');
    await expect.poll(() => page.textContent('#moderation-result-status')).toBe('Removing the picture: done.');
    expect(await page.locator('#remove-picture').count()).toBe(0);
    expect(await page.locator('#moderation-history li').first().textContent()).toMatch(new RegExp(`^Removed the picture: Advertising in every game\\. \\(by ${mod.name}, .+\\)$`));

    // Suspending asks first, naming the user and the end; dismissed, nothing is done.
    const asked: string[] = [];
    await page.fill('#action-reason', 'Advertising in every game.');
    answerNextDialog(page, false, asked);
    await page.click('#suspend');
    await expect.poll(() => asked).toEqual([`confirm: Suspend ${spammer.name} until lifted? They are signed out everywhere and cannot sign in while it lasts.`]);
    expect(await page.textContent('#moderation-suspension')).toBe('Not suspended');
    expect(await page.textContent('#moderation-result-status')).toBe('Removing the picture: done.');
    answerNextDialog(page, true, asked);
    await page.click('#suspend');
    await expect.poll(() => page.textContent('#moderation-result-status')).toBe('Suspending: done.');
    expect(asked).toHaveLength(2);
    expect(await page.textContent('#moderation-suspension')).toMatch(/^Since .+ until lifted: Advertising in every game\.$/);
    expect(await page.isVisible('#lift-suspension')).toBe(true);
    // Changing it asks again, with the new end as the page writes dates.
    const end = '2030-06-01T12:00';
    const endWritten = await page.evaluate((v) => new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(v)), end);
    await page.fill('#action-reason', 'Advertising in every game.');
    await page.fill('#suspend-until', end);
    answerNextDialog(page, true, asked);
    await page.click('#suspend');
    await expect.poll(() => page.locator('#moderation-suspension time').nth(1).textContent()).toBe(endWritten);
    expect(asked[2]).toBe(`confirm: Change the suspension of ${spammer.name} to last until ${endWritten}?`);
    for (const id of [second, third]) {
      await page.selectOption(`#close-outcome-${id}`, 'suspended');
      await page.click(`#close-report-${id}`);
      await expect.poll(() => page.textContent('#moderation-result-status')).toBe(`Report #${id} closed: Suspended.`);
    }
    await expect.poll(() => queueNames(page, rude, spammer)).toEqual([]);
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/moderation-user.png`, fullPage: true });

    // The suspended user's password sign-in says why.
    const visitor = await browser.newContext();
    contexts.push(visitor);
    const signin = await visitor.newPage();
    await signin.goto(`${t.baseUrl}/signin`);
    await signin.fill('input[name=name]', spammer.name);
    await signin.fill('input[name=password]', TEST_PASSWORD);
    const [refused] = await Promise.all([signin.waitForResponse((r) => r.url().endsWith('/signin') && r.request().method() === 'POST'), signin.click('button[type=submit]')]);
    expect(refused.status()).toBe(403);
    expect(await signin.textContent('#error-message')).toContain('Advertising in every game.');
    expect(new URL(signin.url()).pathname).toBe('/signin');

    // The hidden bio's owner sees the notice beside the bio field.
    const owner = await signedIn(rude);
    await expect.poll(() => owner.textContent('#bio-removed')).toMatch(/^A moderator removed your bio on .+: Insults other players\.$/);
    expect(await owner.isVisible('#bio-removed')).toBe(true);
    expect(await owner.inputValue('#bio')).toBe('');
    // A new bio ends the notice.
    await owner.fill('#bio', 'Sorry, everyone.');
    await owner.click('#bio-form button[type=submit]');
    await expect.poll(() => owner.isHidden('#bio-removed')).toBe(true);
    expect(await owner.textContent('#bio-removed')).toBe('');
  });

  it('search, look-only for a peer, an admin setting the level from the page; 303 signed out, 403 page for a user; fits a phone', async () => {
    const mod = await makeUser(t, `mod_search_${process.pid}`);
    const peer = await makeUser(t, `mod_peer_${process.pid}`);
    await t.store.users.updateUser(mod.id, { modLevel: 1 });
    await t.store.users.updateUser(peer.id, { modLevel: 1 });
    const page = await signedIn(mod, 360);
    await page.goto(`${t.baseUrl}/moderation`);
    await page.fill('#moderation-search', 'mod_peer_');
    await page.click('#moderation-search-submit');
    await expect.poll(() => page.locator('#moderation-results li').allTextContents()).toEqual([
      `${peer.name} (id ${peer.id}, mod level 1, 0 open reports)`,
    ]);
    await page.click(`#moderation-results a:text-is("${peer.name}")`);
    await expect.poll(() => page.textContent('#moderation-user-heading')).toBe(`${peer.name} (id ${peer.id})`);
    expect(await page.textContent('#moderation-cannot-act')).toBe("Your mod level (1) is not above this user's (1): you may look, not act.");
    expect(await page.locator('#action-reason, #hide-bio, #suspend').count()).toBe(0);
    expect(await page.textContent('#moderation-history')).toBe('No moderator actions yet.');
    expect(await scrollsSideways(page)).toBe(false);

    // Made an admin, the same moderator opens the peer by address and may now set their level.
    await t.store.users.updateUser(mod.id, { modLevel: 2 });
    await page.goto(`${t.baseUrl}/moderation?user=${peer.id}`);
    await expect.poll(() => page.textContent('#moderation-user-heading')).toBe(`${peer.name} (id ${peer.id})`);
    expect(await page.locator('#mod-level option').allTextContents()).toEqual(['0', '1']);
    expect(await page.inputValue('#mod-level')).toBe('1');
    await page.selectOption('#mod-level', '0');
    await page.fill('#action-reason', 'Stepped down.');
    await page.click('#set-mod-level');
    await expect.poll(() => page.textContent('#moderation-result-status')).toBe('Setting the mod level: done.');
    expect(await page.locator('#moderation-history li').first().textContent()).toMatch(new RegExp(`^Set the mod level to 0: Stepped down\\. \\(by ${mod.name}, .+\\)$`));
    expect((await t.store.users.getUser(peer.id))!.modLevel).toBe(0);
    expect(await scrollsSideways(page)).toBe(false);

    const out = await fetch(`${t.baseUrl}/moderation`, { redirect: 'manual' });
    expect([out.status, out.headers.get('location')]).toEqual([303, '/signin?return_to=%2Fmoderation']);
    const { agent } = await signedInAgent(t);
    const refused = await agent.fetch('/moderation');
    expect(refused.status).toBe(403);
    const body = await refused.text();
    expect(body).toContain('<p class="error" id="error-message">Only moderators may see this page</p>');
    expect(body).not.toContain('href="/moderation"');
  });
});
