/**
 * The mail module (src/mail/) on its own: configuration, the outbox mode (the embedded default),
 * SMTP delivery, failures and timeouts, and what is logged (never a link over SMTP, never the
 * credentials of SMTP_URL). What the server process says of its mail at start: server-process.test.ts.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import { simpleParser } from 'mailparser';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { Unavailable } from '../../src/domain/errors.js';
import { createMailer, type MailMessage } from '../../src/mail/mailer.js';
import { verificationMessage } from '../../src/mail/messages.js';
import { Agent, startServer, tempDir } from '../helpers.js';
import { MailServer } from '../mail-server.js';

const TOKEN = 'tok_'.padEnd(43, 'x');

/** A pino logger whose lines land in an array (parsed). */
function capture(): { logger: pino.Logger; lines: Record<string, unknown>[]; text: () => string } {
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      raw.push(chunk.toString());
      done();
    },
  });
  const logger = pino({ level: 'info' }, stream);
  return {
    logger,
    get lines() {
      return raw.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    text: () => raw.join(''),
  };
}

function message(to = 'ada@example.com'): MailMessage {
  return verificationMessage('https://idp.example', to, 'ada_l', TOKEN);
}

describe('configuration', () => {
  it('reads SMTP_URL, MAIL_FROM, OUTBOX_DIR and SMTP_TIMEOUT_SECONDS with their defaults', () => {
    const dir = tempDir();
    const sqlite = loadConfig({ DATABASE_URL: path.join(dir, 'db', 'x.sqlite'), PORT: '3000' });
    expect(sqlite.smtpUrl).toBeUndefined();
    expect(sqlite.outboxDir).toBe(path.join(dir, 'db', 'outbox'));
    expect(sqlite.mailFrom).toBe('Identity <no-reply@localhost>');
    expect(sqlite.smtpTimeoutSeconds).toBe(10);
    expect(loadConfig({}).outboxDir).toBe(path.resolve('data', 'outbox'));
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@h/db' }).outboxDir).toBe(path.resolve('data', 'outbox'));
    const set = loadConfig({
      SMTP_URL: 'smtps://mailer:s3cret@mail.example:465',
      MAIL_FROM: 'Accounts <accounts@idp.example>',
      OUTBOX_DIR: path.join(dir, 'out'),
      SMTP_TIMEOUT_SECONDS: '3',
      PUBLIC_URL: 'https://idp.example',
    });
    expect(set).toMatchObject({ smtpUrl: 'smtps://mailer:s3cret@mail.example:465', mailFrom: 'Accounts <accounts@idp.example>', outboxDir: path.join(dir, 'out'), smtpTimeoutSeconds: 3 });
    expect(loadConfig({ PUBLIC_URL: 'https://idp.example' }).mailFrom).toBe('Identity <no-reply@idp.example>');
  });

  it('refuses bad values with one line, never echoing a password of SMTP_URL', () => {
    const refused = (env: NodeJS.ProcessEnv): string => {
      try {
        loadConfig(env);
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused({ SMTP_URL: 'http://user:hunter2@mail.example' })).toBe('SMTP_URL must be an smtp:// or smtps:// URL with a host, got a http: URL');
    expect(refused({ SMTP_URL: 'smtp://user:hunter2@' })).not.toContain('hunter2');
    expect(refused({ SMTP_URL: 'not a url hunter2' })).toBe('SMTP_URL must be an smtp:// or smtps:// URL');
    expect(refused({ MAIL_FROM: 'nobody' })).toBe('MAIL_FROM must be an address or "Name <address>", got "nobody"');
    expect(refused({ SMTP_TIMEOUT_SECONDS: '0' })).toBe('SMTP_TIMEOUT_SECONDS must be at least 1');
    expect(refused({ SMTP_TIMEOUT_SECONDS: 'soon' })).toBe('SMTP_TIMEOUT_SECONDS must be a whole number of seconds, got "soon"');
  });
});

describe('outbox mode (no SMTP_URL)', () => {
  it('writes each message as an .eml file with a text and an HTML part, and logs where it is and its link', async () => {
    const dir = tempDir();
    const log = capture();
    const mailer = createMailer(loadConfig({ OUTBOX_DIR: path.join(dir, 'outbox'), PUBLIC_URL: 'https://idp.example' }), log.logger);
    expect(mailer.mode).toBe('outbox');
    expect(mailer.describe()).toBe(`no SMTP_URL: mail is written to ${path.join(dir, 'outbox')} as .eml files and each link is logged`);
    await mailer.send(message());
    const files = fs.readdirSync(path.join(dir, 'outbox'));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^\d+-[0-9a-f]{8}-verify\.eml$/);
    const file = path.join(dir, 'outbox', files[0]!);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const parsed = await simpleParser(fs.readFileSync(file));
    expect(parsed.subject).toBe('Confirm your email address');
    expect((parsed.from as { value: unknown[] }).value).toEqual([{ name: 'Identity', address: 'no-reply@idp.example' }]);
    expect((parsed.to as { text: string }).text).toBe('ada@example.com');
    expect(parsed.text).toContain(`https://idp.example/verify-email?token=${TOKEN}`);
    expect(parsed.html).toContain(`href="https://idp.example/verify-email?token=${TOKEN}"`);
    // The file itself has the whole link on one line (no quoted-printable `=` breaks), to copy.
    const raw = fs.readFileSync(file, 'utf8');
    expect(raw.split('\n')).toContain(`https://idp.example/verify-email?token=${TOKEN}`);
    expect(raw).toContain(`href="https://idp.example/verify-email?token=${TOKEN}"`);
    expect(raw).not.toContain('quoted-printable');
    expect(log.lines).toEqual([
      expect.objectContaining({ msg: 'mail written to the outbox (no SMTP_URL)', mail: 'verify', to: 'ada@example.com', file, link: `https://idp.example/verify-email?token=${TOKEN}` }),
    ]);
  });

  it('a folder that cannot be written: Unavailable, logged without the link', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'blocked'), 'a file, not a folder');
    const log = capture();
    const mailer = createMailer(loadConfig({ OUTBOX_DIR: path.join(dir, 'blocked') }), log.logger);
    await expect(mailer.send(message())).rejects.toBeInstanceOf(Unavailable);
    expect(log.lines).toEqual([expect.objectContaining({ msg: 'sending mail failed', mail: 'verify', mode: 'outbox', code: 'EEXIST' })]);
    expect(log.text()).not.toContain(TOKEN);
  });

  it('the app without SMTP_URL puts the sign-up mail in outbox/ beside the SQLite file; its link verifies', async () => {
    const dir = tempDir();
    // SQLite whatever TEST_DATABASE says: the default outbox is derived from the SQLite file's place.
    const t = await startServer({ DATABASE_URL: path.join(dir, 'db.sqlite'), OUTBOX_DIR: '' });
    try {
      expect(t.config.outboxDir).toBe(path.join(path.dirname(t.config.databaseUrl), 'outbox'));
      const agent = new Agent(t);
      expect((await agent.form('/signup', { name: 'outbox_user', email: 'outbox@example.com', password: 'correct horse battery' })).status).toBe(200);
      await t.app.deps.mailer.idle(); // sent after the answer
      const [file] = fs.readdirSync(t.config.outboxDir);
      const parsed = await simpleParser(fs.readFileSync(path.join(t.config.outboxDir, file!)));
      const link = new URL(/https?:\/\/\S+/.exec(parsed.text!)![0]);
      expect(link.origin).toBe(t.config.publicUrl);
      // A link works in a browser signed in to its account (docs/account.md#proving-the-address).
      await agent.signIn({ name: 'outbox_user' }, 'correct horse battery');
      const res = await agent.fetch(link.pathname + link.search);
      expect(res.status).toBe(200);
      expect((await t.store.users.getUserByName('outbox_user'))!.emailVerifiedAt).not.toBeNull();
    } finally {
      await t.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SMTP mode', () => {
  let smtp: MailServer;
  beforeAll(async () => {
    smtp = await new MailServer().start();
  });
  afterAll(async () => smtp?.close());

  it('delivers over TCP and logs that it did, without the link', async () => {
    const log = capture();
    const mailer = createMailer(loadConfig({ SMTP_URL: smtp.url, MAIL_FROM: 'no-reply@idp.example' }), log.logger);
    expect(mailer.mode).toBe('smtp');
    expect(mailer.describe()).toBe(`mail goes over SMTP to smtp://127.0.0.1:${smtp.port}`);
    await mailer.send(message('grace@example.com'));
    const d = await smtp.next('grace@example.com');
    expect(d.mail.text).toContain(TOKEN);
    expect(log.lines).toEqual([expect.objectContaining({ msg: 'mail sent', mail: 'verify', mode: 'smtp' })]);
    expect(log.text()).not.toContain(TOKEN);
  });

  it('a server that refuses the connection: Unavailable, the reason logged without credentials or link', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const log = capture();
    const mailer = createMailer(loadConfig({ SMTP_URL: `smtp://mailer:hunter2@127.0.0.1:${port}` }), log.logger);
    expect(mailer.describe()).not.toContain('hunter2');
    const err = await mailer.send(message()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Unavailable);
    expect((err as Error).message).toBe('The email could not be sent right now; please try again in a few minutes');
    expect(log.lines).toEqual([expect.objectContaining({ msg: 'sending mail failed', mode: 'smtp', code: 'ESOCKET' })]);
    expect(log.text()).not.toContain('hunter2');
    expect(log.text()).not.toContain(TOKEN);
  });

  it('a server that accepts the connection and never speaks: given up after SMTP_TIMEOUT_SECONDS', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    try {
      const port = (silent.address() as net.AddressInfo).port;
      const log = capture();
      const mailer = createMailer(loadConfig({ SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_TIMEOUT_SECONDS: '1' }), log.logger);
      const start = Date.now();
      await expect(mailer.send(message())).rejects.toBeInstanceOf(Unavailable);
      const took = Date.now() - start;
      expect(took).toBeGreaterThanOrEqual(900);
      expect(took).toBeLessThan(3000);
      expect(log.lines).toEqual([expect.objectContaining({ msg: 'sending mail failed', code: 'ETIMEDOUT' })]);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('background work waits for nothing in the answer, logs its failures, and idle() waits for it', async () => {
    const log = capture();
    const mailer = createMailer(loadConfig({ SMTP_URL: smtp.url }), log.logger);
    let done = false;
    mailer.background(async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      done = true;
    });
    mailer.background(async () => {
      throw new Error('a bug');
    });
    expect(done).toBe(false);
    await mailer.idle();
    expect(done).toBe(true);
    expect(log.lines).toEqual([expect.objectContaining({ msg: 'background mail task failed' })]);
  });
});
