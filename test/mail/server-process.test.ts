/**
 * The mail module in the real service process: without SMTP_URL it says at start where mail goes,
 * and a mail it sends lands in the outbox with its link logged. In the `slow` project
 * (vitest.config.ts): it starts a real process; the module itself is tested in mailer.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { spawnService } from '../spawn-service.js';

describe('the server process without SMTP_URL', () => {
  it('says at start where mail goes, and a reset requested for the demo user lands in the outbox with its link logged', async () => {
    const dir = tempDir();
    const service = await spawnService({ env: { DATABASE_URL: path.join(dir, 'db.sqlite'), PICTURES_DIR: path.join(dir, 'pics') } });
    try {
      expect(await service.line('Mail: ')).toBe(`Mail: no SMTP_URL: mail is written to ${path.join(dir, 'outbox')} as .eml files and each link is logged (set SMTP_URL to send real mail)`);

      const base = service.url;
      const session = await fetch(`${base}/api/session`);
      const cookie = session.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      const { csrf_token } = (await session.json()) as { csrf_token: string };
      const res = await fetch(`${base}/forgot-password`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
        body: new URLSearchParams({ _csrf: csrf_token, login: 'demo' }).toString(),
      });
      expect(res.status).toBe(200);
      const logged = JSON.parse(await service.line('mail written to the outbox', 5)) as { link: string; file: string; to: string };
      expect(logged.to).toBe('demo@example.com');
      expect(fs.existsSync(logged.file)).toBe(true);
      // PUBLIC_URL defaults to localhost on PORT.
      expect(logged.link).toMatch(new RegExp(`^http://localhost:${service.port}/reset-password\\?token=[\\w-]{43}$`));
      const reset = await fetch(`${base}${new URL(logged.link).pathname}${new URL(logged.link).search}`);
      expect(reset.status).toBe(200);
    } finally {
      await service.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
