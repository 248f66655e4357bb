/**
 * The account page as a person uses it, in Chromium at 1100x800: each form's result said right
 * after that form (in view, announced, the wrong field marked and focused, what was typed kept).
 */
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/domain/users.js';
import sharp from 'sharp';
import { SCOPE_DESCRIPTIONS } from '../../src/oauth/scopes.js';
import { makeClient, makeUser, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';
import path from 'node:path';
import { expectNoAxeViolations } from './axe.js';
import { hasChromium, launchChromium, SCREENSHOTS_DIR } from './chromium.js';

let t: TestServer;
let browser: Browser;

/** A browser signed in as `who`; `forwardedFor` is the address the (trusted) proxy says it has. */
async function signedIn(who: UserRecord, viewport = { width: 1100, height: 800 }, userAgent?: string, forwardedFor?: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, userAgent, ...(forwardedFor === undefined ? {} : { extraHTTPHeaders: { 'X-Forwarded-For': forwardedFor } }) });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${t.baseUrl}/signin`);
  await page.fill('input[name=name]', who.name);
  await page.fill('input[name=password]', TEST_PASSWORD);
  await Promise.all([page.waitForURL(`${t.baseUrl}/account`), page.click('button[type=submit]')]);
  return { context, page };
}

const SAFARI_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0';

/** The page's one date format ("Nov 26, 2026, 2:05 PM"), computed in the page as a reader's browser would. */
function formatted(page: Page, ms: number): Promise<string> {
  return page.evaluate((at) => new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(at)), ms);
}

/** Where an element is in the window: its top and bottom in CSS pixels. */
async function box(locator: Locator): Promise<{ top: number; bottom: number }> {
  return locator.evaluate((e) => {
    const r = e.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom };
  });
}

/**
 * The error `slot` shows: the text, in the window, right below `form` (under 40 px apart), and
 * `field` marked invalid, described by it and focused.
 */
async function expectErrorBeside(page: Page, form: string, slot: string, field: string, text: string): Promise<void> {
  const error = page.locator(`#${slot}-error`);
  await expect.poll(() => error.textContent()).toBe(text);
  expect(await error.getAttribute('role')).toBe('alert');
  expect(await page.textContent(`#${slot}-status`)).toBe('');
  const at = await box(error);
  const formAt = await box(page.locator(form));
  expect(at.top).toBeGreaterThanOrEqual(0);
  expect(at.bottom).toBeLessThanOrEqual(800);
  expect(at.top - formAt.bottom).toBeGreaterThanOrEqual(0);
  expect(at.top - formAt.bottom).toBeLessThan(40);
  expect(await page.getAttribute(field, 'aria-invalid')).toBe('true');
  expect((await page.getAttribute(field, 'aria-describedby'))?.split(' ')).toContain(`${slot}-error`);
  expect(await page.evaluate(() => `#${document.activeElement?.id}`)).toBe(field);
  // The page has no status line of its own any more: nothing is said far from the form.
  expect(await page.locator('#status').count()).toBe(0);
}

describe.skipIf(!hasChromium)('the account page in Chromium', () => {
  let user: UserRecord;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    // Behind a trusted proxy (the test's own address): a browser's X-Forwarded-For is its address.
    t = await startServer({ TRUST_PROXY: '127.0.0.1' }, { limits: { signInIp: { points: 1000, seconds: 600 } } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  beforeEach(async () => {
    user = await makeUser(t);
    ({ context, page } = await signedIn(user));
    return () => context.close();
  });

  it('a wrong current password: said below the password form, in view, the typed passwords kept; a right one clears them', async () => {
    await page.fill('#current-password', 'not my password');
    await page.fill('#new-password', 'a new password for the account');
    await page.click('#change-password');
    await expectErrorBeside(page, '#password-form', 'password-result', '#current-password', 'Changing the password failed: The current password is wrong');
    expect(await page.inputValue('#current-password')).toBe('not my password');
    expect(await page.inputValue('#new-password')).toBe('a new password for the account');

    await page.fill('#current-password', TEST_PASSWORD);
    await page.click('#change-password');
    await expect.poll(() => page.textContent('#password-result-status')).toBe('Password changed; every other session was signed out');
    expect(await page.textContent('#password-result-error')).toBe('');
    expect(await page.getAttribute('#current-password', 'aria-invalid')).toBeNull();
    expect(await page.getAttribute('#current-password', 'aria-describedby')).toBeNull();
    expect([await page.inputValue('#current-password'), await page.inputValue('#new-password')]).toEqual(['', '']);
  });

  it('a failed deletion: said below the deletion form, in view, the password and the typed name kept', async () => {
    await page.fill('#delete-password', 'not my password');
    await page.fill('#delete-confirm', user.name);
    await page.click('#delete-account-button');
    await expectErrorBeside(page, '#delete-form', 'delete-result', '#delete-password', 'Deleting the account failed: The password is wrong');
    expect([await page.inputValue('#delete-password'), await page.inputValue('#delete-confirm')]).toEqual(['not my password', user.name]);

    await page.fill('#delete-password', TEST_PASSWORD);
    await page.fill('#delete-confirm', 'not my name');
    await page.click('#delete-account-button');
    await expectErrorBeside(page, '#delete-form', 'delete-result', '#delete-confirm', 'Deleting the account failed: Type your name exactly to confirm');
    // The password is no longer what is wrong.
    expect(await page.getAttribute('#delete-password', 'aria-invalid')).toBeNull();
    expect(await t.store.users.getUser(user.id)).toBeDefined();
  });

  it('a refused upload (a text file as picture): said below the picture form, in view, the file still chosen', async () => {
    await page.setInputFiles('#picture-file', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a picture') });
    await page.click('#picture-form button[type=submit]');
    await expectErrorBeside(page, '#picture-form', 'picture-result', '#picture-file', 'Uploading the picture failed: The picture must be a JPEG, PNG, WebP, GIF or AVIF image');
    expect(await page.locator('#picture-file').evaluate((input: HTMLInputElement) => input.files?.[0]?.name)).toBe('notes.txt');
  });

  it('a refused change of address: the account page again, the reason beside the form, the typed address kept and its field focused', async () => {
    const other = await makeUser(t);
    const cases: [string, string, number, string, string][] = [
      ['moved@new.example', 'not my password', 403, '#change-email-password', 'The current password is wrong'],
      [other.email, TEST_PASSWORD, 409, '#new-email', 'Email address is already registered'],
      [user.email, TEST_PASSWORD, 400, '#new-email', 'This already is your email address'],
    ];
    for (const [address, password, status, field, message] of cases) {
      await page.fill('#new-email', address);
      await page.fill('#change-email-password', password);
      const [answer] = await Promise.all([page.waitForResponse(`${t.baseUrl}/account/email`), page.click('#change-email')]);
      expect(answer.status()).toBe(status);
      await page.waitForLoadState();
      expect(await page.textContent('h1')).toBe('Your account');
      expect(await page.inputValue('#new-email')).toBe(address);
      await expectErrorBeside(page, '#change-email-form', 'change-email-result', field, `Changing the address failed: ${message}`);
      // Only the wrong field is marked.
      expect(await page.locator('#email-section [aria-invalid]').count()).toBe(1);
    }
    expect((await t.store.users.getUser(user.id))!.email).toBe(user.email);
  });

  it('no flair badge for "none"; a flair equipped shows one', async () => {
    await page.waitForFunction(() => document.querySelectorAll('#flair option').length > 0);
    expect(await page.isHidden('#profile-flair')).toBe(true);
    await t.store.users.updateUser(user.id, { flairs: ['none', 'gold'] });
    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll('#flair option').length === 2);
    await page.selectOption('#flair', 'gold');
    await page.click('#flair-form button[type=submit]');
    await expect.poll(() => page.textContent('#flair-result-status')).toBe('Equipping the flair: done');
    expect([await page.isVisible('#profile-flair'), await page.textContent('#profile-flair')]).toEqual([true, 'gold']);
  });

  it('Remove picture is offered only with a picture; removing says so beside it, and a picture gone meanwhile is said as it is', async () => {
    await page.waitForFunction(() => document.querySelectorAll('#flair option').length > 0);
    expect(await page.isHidden('#remove-picture')).toBe(true);
    const png = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#3366cc' } }).png().toBuffer();
    const upload = async () => {
      await page.setInputFiles('#picture-file', { name: 'me.png', mimeType: 'image/png', buffer: png });
      await page.click('#picture-form button[type=submit]');
      await expect.poll(() => page.textContent('#picture-result-status')).toBe('Uploading the picture: done');
      expect(await page.isVisible('#remove-picture')).toBe(true);
    };
    await upload();
    await page.click('#remove-picture');
    await expect.poll(() => page.textContent('#picture-result-status')).toBe('Picture removed: your profile shows the default picture again');
    expect(await page.isHidden('#remove-picture')).toBe(true);
    expect((await t.store.users.getUser(user.id))!.pfpTimestamp).toBeFalsy();

    // Removed elsewhere (another tab) while this page still offers it.
    await upload();
    expect(await page.evaluate(() => fetch('/api/account/picture', { method: 'DELETE', headers: { 'X-CSRF-Token': document.querySelector('meta[name="csrf-token"]')!.getAttribute('content')! } }).then((r) => r.status))).toBe(200);
    await page.click('#remove-picture');
    await expect.poll(() => page.textContent('#picture-result-error')).toBe('You have no picture to remove');
    expect(await page.textContent('#picture-result-status')).toBe('');
    expect(await page.isHidden('#remove-picture')).toBe(true);
  });

  it('sessions and sign-ins by device name (raw user agent in the title), two of a kind told apart by their address and times; every date in one format', async () => {
    await page.waitForLoadState('networkidle');
    const others: BrowserContext[] = [];
    // The same Chrome again, from another address; then two other browsers.
    for (const [agent, address] of [[undefined, '198.51.100.23'], [SAFARI_IPHONE, undefined], [FIREFOX_WINDOWS, '2001:db8::7']] as const) {
      t.clock.advance(7 * 60_000);
      const other = await signedIn(user, undefined, agent, address);
      // Its page's calls done before the clock moves on: each session is last seen when it started.
      await other.page.waitForLoadState('networkidle');
      await other.page.goto('about:blank');
      others.push(other.context);
    }
    const owner = await makeUser(t);
    const client = await makeClient(t, owner.id);
    await t.store.grants.saveGrant({ userId: user.id, clientId: client.clientId, scopes: ['userinfo', 'email'] }, t.clock.now());
    // This page's session is seen again later than the others were.
    t.clock.advance(7 * 60_000);
    await page.reload();
    await page.waitForSelector('#sessions li.session >> nth=3');
    const sessions = await page.$$eval('#sessions li.session', (items) =>
      items.map((li) => ({
        name: li.querySelector('.session-agent')!.textContent,
        title: li.querySelector('.session-agent')!.getAttribute('title'),
        from: li.querySelector('.session-ip')?.textContent,
        text: li.textContent,
      })),
    );
    const chrome = await page.evaluate(() => navigator.userAgent);
    // Most recently seen first: this page's own session was seen just now.
    expect(sessions.map((s) => [s.name, s.title])).toEqual([
      ['Chrome on Linux', chrome],
      ['Firefox on Windows', FIREFOX_WINDOWS],
      ['Safari on iPhone', SAFARI_IPHONE],
      ['Chrome on Linux', chrome],
    ]);
    const listed = (await page.evaluate(() => fetch('/api/account/sessions').then((r) => r.json() as Promise<{ sessions: { started_at: number; last_seen_at: number }[] }>))).sessions;
    for (const [i, s] of listed.entries()) {
      expect(sessions[i]!.text).toContain(`Signed in ${await formatted(page, s.started_at)}, last seen ${await formatted(page, s.last_seen_at)}`);
    }
    const chromes = sessions.filter((s) => s.name === 'Chrome on Linux').map((s) => s.text);
    expect(new Set(chromes).size).toBe(2);
    // Each says where it signed in from (this page's browser sent no forwarded address: the proxy's own).
    expect(sessions.map((s) => s.from)).toEqual([' from 127.0.0.1', ' from 2001:db8::7', ' from 127.0.0.1', ' from 198.51.100.23']);
    expect(sessions[0]!.text).toMatch(/^Chrome on Linux \(this browser\) from 127\.0\.0\.1Signed in /);
    expect(sessions[3]!.text).toMatch(/^Chrome on Linux from 198\.51\.100\.23Signed in /);

    // The sign-in history: the same names and format, the raw user agent in the title.
    const signIns = await page.$$eval('#sign-ins tbody tr', (rows: HTMLTableRowElement[]) =>
      rows.map((r) => ({
        at: r.querySelector('time')!.getAttribute('datetime')!,
        when: r.querySelector('time')!.textContent,
        ip: r.cells[1]!.textContent,
        name: r.cells[2]!.textContent,
        title: r.cells[2]!.title,
      })),
    );
    // The same addresses as the sessions those sign-ins began.
    expect(signIns.map((r) => [r.name, r.title, r.ip])).toEqual([
      ['Firefox on Windows', FIREFOX_WINDOWS, '2001:db8::7'],
      ['Safari on iPhone', SAFARI_IPHONE, '127.0.0.1'],
      ['Chrome on Linux', chrome, '198.51.100.23'],
      ['Chrome on Linux', chrome, '127.0.0.1'],
    ]);
    for (const r of signIns) expect(r.when).toBe(await formatted(page, Date.parse(r.at)));

    // The connected app: what each scope lets it do, in the consent page's words, and its dates in the same format.
    const grant = page.locator(`.grant[data-client-id="${client.clientId}"]`);
    await grant.waitFor();
    expect(await grant.locator('.grant-scopes li').allTextContents()).toEqual([SCOPE_DESCRIPTIONS.userinfo, SCOPE_DESCRIPTIONS.email]);
    const at = await formatted(page, t.clock.now() - 7 * 60_000);
    expect(await grant.locator('.grant-times').textContent()).toBe(`Granted ${at}, last used ${at}`);
    for (const other of others) await other.close();
  });

  it('a list of its sections at the top leads to each; every section and profile control has a heading; no two fields share a label (desktop and phone)', async () => {
    await page.waitForSelector('#sessions li.session');
    const links = await page.locator('#account-nav a').evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute('href')]));
    expect(links).toEqual([
      ['Profile', '#profile-settings'],
      ['Email', '#email-section'],
      ['Recent sign-ins', '#sign-ins'],
      ['Connected apps', '#connected-apps'],
      ['Password', '#password'],
      ['Passkeys', '#passkeys'],
      ['Authenticator app', '#authenticator'],
      ['Sessions', '#sessions-section'],
      ['Your data', '#your-data'],
      ['Delete account', '#delete-account'],
    ]);
    // Each link's section exists, in the page's order, and starts with its heading. On a desktop
    // the sections stand in two columns: the page's order is down the first, then the second.
    const tops: [number, number][] = [];
    for (const [, href] of links) {
      const section = page.locator(`section${href!}`);
      expect(await section.count(), href!).toBe(1);
      expect(await section.locator('h2').first().isVisible(), href!).toBe(true);
      const box = (await section.boundingBox())!;
      tops.push([box.x, box.y]);
    }
    expect(tops).toEqual([...tops].sort((a, b) => a[0] - b[0] || a[1] - b[1]));
    expect(await page.locator('#profile-settings h3').allTextContents()).toEqual(['Bio', 'Flair', 'Profile picture']);

    // Following a link brings its section's heading into view.
    await page.click('#account-nav a[href="#delete-account"]');
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#delete-account');
    const heading = (await page.locator('#delete-account h2').boundingBox())!;
    expect(heading.y).toBeGreaterThanOrEqual(0);
    expect(heading.y).toBeLessThan(800);

    // Every field's name (its label) is the page's only one of that name, shown or hidden.
    const names = await page.locator('main input:not([type=hidden]), main textarea, main select').evaluateAll((fields) =>
      fields.map((f) => (f as HTMLInputElement).labels?.[0]?.textContent?.replace(/\s+/g, ' ').trim() ?? ''),
    );
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    expect(names).toEqual(expect.arrayContaining(['Your password, to make new recovery codes', 'Your password, to switch the app off']));

    // At phone width the list wraps inside the screen: nothing scrolls sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    const nav = (await page.locator('#account-nav').boundingBox())!;
    expect(nav.x + nav.width).toBeLessThanOrEqual(390);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  });

  it('Sign out everywhere ends on the home page saying so; deletion likewise; the notice comes from a fixed list', async () => {
    await page.click('#signout-everywhere');
    await page.waitForURL(`${t.baseUrl}/?done=signed-out-everywhere`);
    expect(await page.textContent('#notice')).toBe('You are signed out everywhere: every browser that was signed in to your account is signed out.');
    expect(await page.getAttribute('#notice', 'role')).toBe('status');
    expect(await page.textContent('h1')).toBe('Identity');

    const doomed = await makeUser(t);
    const other = await signedIn(doomed);
    await other.page.fill('#delete-password', TEST_PASSWORD);
    await other.page.fill('#delete-confirm', doomed.name);
    await other.page.click('#delete-account-button');
    await other.page.waitForURL(`${t.baseUrl}/?done=account-deleted`);
    expect(await other.page.textContent('#notice')).toBe('Your account has been deleted, with your apps, games and profile picture.');
    await other.context.close();

    await page.goto(`${t.baseUrl}/?done=${encodeURIComponent('<b>you were hacked</b>')}`);
    expect(await page.locator('#notice').count()).toBe(0);
    expect(await page.content()).not.toContain('hacked');
  });

  for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    it(`axe finds nothing with the messages shown, at ${viewport.width}x${viewport.height}`, async () => {
      const size = `${viewport.width}x${viewport.height}`;
      const tab = (await signedIn(user, viewport)).page;
      await tab.waitForSelector('#sessions li.session');
      // Errors beside three forms and a result beside a fourth, all at once.
      await tab.fill('#current-password', 'not my password');
      await tab.fill('#new-password', 'a new password for the account');
      await tab.click('#change-password');
      await tab.waitForSelector('#password-result-error:not(:empty)');
      await tab.fill('#delete-password', TEST_PASSWORD);
      await tab.fill('#delete-confirm', 'not my name');
      await tab.click('#delete-account-button');
      await tab.waitForSelector('#delete-result-error:not(:empty)');
      await tab.setInputFiles('#picture-file', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a picture') });
      await tab.click('#picture-form button[type=submit]');
      await tab.waitForSelector('#picture-result-error:not(:empty)');
      await tab.fill('#bio', 'Hello');
      await tab.click('#bio-form button[type=submit]');
      await tab.waitForSelector('#bio-result-status:not(:empty)');
      await tab.screenshot({ path: path.join(SCREENSHOTS_DIR, `account-messages-${size}.png`), fullPage: true });
      await expectNoAxeViolations(tab, `account page with messages (${size})`);

      // A refused change of address: the page served with the reason in place.
      await tab.fill('#new-email', 'moved@new.example');
      await tab.fill('#change-email-password', 'not my password');
      await Promise.all([tab.waitForURL(`${t.baseUrl}/account/email`), tab.click('#change-email')]);
      await tab.waitForSelector('#sessions li.session');
      await expectNoAxeViolations(tab, `account page, change of address refused (${size})`);

      await tab.goto(`${t.baseUrl}/?done=account-deleted`);
      await expectNoAxeViolations(tab, `home page with a notice (${size})`);
      await tab.context().close();
    });
  }
});
