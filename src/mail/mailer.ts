/**
 * Sending mail: over SMTP with nodemailer when SMTP_URL is set, otherwise into an outbox folder as
 * .eml files (the development default, so a fresh install works without a mail server). Either way
 * a caller gets one call that resolves when the message is handed over and throws Unavailable when
 * it could not be; the reason is logged without the message, whose link is a secret.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { Unavailable } from '../domain/errors.js';

export type MailKind = 'verify' | 'reset' | 'change' | 'change_notice' | 'security_notice' | 'sign_up_attempt' | 'suspension_notice';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The one-time link the message carries (the outbox logs it; SMTP never does). */
  link?: string;
  /** What the message is for, named in the log lines and the outbox file name. */
  kind: MailKind;
}

export interface Mailer {
  readonly mode: 'smtp' | 'outbox';
  /** Hands the message over; throws Unavailable (after logging why) when that fails. */
  send(message: MailMessage): Promise<void>;
  /**
   * Runs work after the request has been answered (so its duration tells the client nothing);
   * a failure is logged, never thrown.
   */
  background(task: () => Promise<void>): void;
  /** Resolves once every background task started so far has finished (tests, shutdown). */
  idle(): Promise<void>;
  /** One line for the start-up banner: where mail goes. */
  describe(): string;
}

/** The parts of a transport error that say what went wrong and nothing of the message or credentials. */
function failureFields(err: unknown): Record<string, unknown> {
  const e = err as { code?: unknown; responseCode?: unknown; command?: unknown };
  return { code: e?.code, responseCode: e?.responseCode, command: e?.command };
}

abstract class BaseMailer implements Mailer {
  abstract readonly mode: 'smtp' | 'outbox';
  private readonly pending = new Set<Promise<void>>();

  constructor(
    protected readonly config: Config,
    protected readonly logger: Logger,
  ) {}

  protected abstract deliver(message: MailMessage): Promise<void>;
  abstract describe(): string;

  async send(message: MailMessage): Promise<void> {
    try {
      await this.deliver(message);
    } catch (err) {
      this.logger.error({ mail: message.kind, mode: this.mode, ...failureFields(err) }, 'sending mail failed');
      throw new Unavailable('The email could not be sent right now; please try again in a few minutes');
    }
  }

  background(task: () => Promise<void>): void {
    const run: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(task)
      .catch((err: unknown) => {
        // Unavailable was logged by send(); anything else is a bug worth its stack.
        if (!(err instanceof Unavailable)) this.logger.error({ err }, 'background mail task failed');
      })
      .finally(() => this.pending.delete(run));
    this.pending.add(run);
  }

  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  protected envelope(message: MailMessage) {
    return { from: this.config.mailFrom, to: message.to, subject: message.subject, text: message.text, html: message.html };
  }
}

class SmtpMailer extends BaseMailer {
  readonly mode = 'smtp';
  private readonly transport;

  constructor(config: Config, logger: Logger) {
    super(config, logger);
    const timeout = config.smtpTimeoutSeconds * 1000;
    // nodemailer reads host, port, TLS and credentials from the URL; STARTTLS is used whenever the
    // server offers it (smtps:// is TLS from the first byte).
    this.transport = nodemailer.createTransport({
      url: config.smtpUrl,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
    });
  }

  protected async deliver(message: MailMessage): Promise<void> {
    await this.transport.sendMail(this.envelope(message));
    this.logger.info({ mail: message.kind, mode: this.mode }, 'mail sent');
  }

  describe(): string {
    const url = new URL(this.config.smtpUrl!);
    return `mail goes over SMTP to ${url.protocol}//${url.hostname}:${url.port || (url.protocol === 'smtps:' ? 465 : 587)}`;
  }
}

/**
 * A part of an outbox file as 8bit: its lines as written (up to RFC 5322's 998 characters), where
 * nodemailer would choose quoted-printable and break a long link into `=`-ended pieces that cannot
 * be copied from the file. A longer line keeps nodemailer's own encoding.
 */
function readable(type: string, body: string): string | { raw: string } {
  if (body.split('\n').some((line) => Buffer.byteLength(line) > 998)) return body;
  return { raw: `Content-Type: ${type}; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n${body}` };
}

class OutboxMailer extends BaseMailer {
  readonly mode = 'outbox';
  // Builds the complete RFC 5322 message (both parts, headers) without sending it anywhere.
  private readonly transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });

  protected async deliver(message: MailMessage): Promise<void> {
    const built = await this.transport.sendMail({ ...this.envelope(message), text: readable('text/plain', message.text), html: readable('text/html', message.html) });
    await fs.mkdir(this.config.outboxDir, { recursive: true });
    const file = path.join(this.config.outboxDir, `${Date.now()}-${randomBytes(4).toString('hex')}-${message.kind}.eml`);
    await fs.writeFile(file, built.message as Buffer, { flag: 'wx', mode: 0o600 });
    // Without a mail server the log is the only way a person reaches the link; the outbox is for
    // development, and with SMTP_URL set no link is ever logged.
    this.logger.info({ mail: message.kind, to: message.to, file, link: message.link }, 'mail written to the outbox (no SMTP_URL)');
  }

  describe(): string {
    return `no SMTP_URL: mail is written to ${this.config.outboxDir} as .eml files and each link is logged`;
  }
}

export function createMailer(config: Config, logger: Logger): Mailer {
  return config.smtpUrl ? new SmtpMailer(config, logger) : new OutboxMailer(config, logger);
}
