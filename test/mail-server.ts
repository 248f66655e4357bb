/**
 * A real SMTP server in the test process (smtp-server on 127.0.0.1, port 0, no TLS, no auth
 * required) that the service reaches over TCP through nodemailer; each delivered message is parsed
 * with mailparser, as a mail client would read it.
 */
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

interface Delivered {
  /** Envelope recipients, as the SMTP session named them. */
  to: string[];
  from: string;
  mail: ParsedMail;
  raw: string;
}

export class MailServer {
  readonly messages: Delivered[] = [];
  private readonly waiters: (() => void)[] = [];
  /** When set, every message is refused with this SMTP reply (a mail server that is up but failing). */
  refuse: string | undefined;
  /** When set, each message is accepted only after this many milliseconds (a slow mail server). */
  delayMs = 0;
  private server: SMTPServer;
  port = 0;

  constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          new Promise((resolve) => setTimeout(resolve, this.delayMs))
            .then(() => {
              if (this.refuse) throw Object.assign(new Error(this.refuse), { responseCode: 451 });
              return simpleParser(raw);
            })
            .then((mail) => {
              this.messages.push({
                to: session.envelope.rcptTo.map((r) => r.address),
                from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                mail,
                raw,
              });
              for (const wake of this.waiters.splice(0)) wake();
              callback();
            })
            .catch((err: Error) => callback(err));
        });
      },
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** Waits for a message to `to` (arrived already or within `ms`) and returns the latest one. */
  async next(to: string, ms = 5000): Promise<Delivered> {
    const deadline = Date.now() + ms;
    const seen = () => [...this.messages].reverse().find((m) => m.to.includes(to));
    for (;;) {
      const found = seen();
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no mail to ${to} within ${ms} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Every message delivered to `to` so far. */
  to(to: string): Delivered[] {
    return this.messages.filter((m) => m.to.includes(to));
  }

  clear(): void {
    this.messages.length = 0;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The one link of a message's plain-text part (and checks the HTML part carries the same one). */
export function linkOf(d: Delivered): string {
  const links = [...(d.mail.text ?? '').matchAll(/https?:\/\/\S+/g)].map((m) => m[0]);
  if (links.length !== 1) throw new Error(`expected one link in the text part, got ${links.length}`);
  return links[0]!;
}
