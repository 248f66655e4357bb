/** The real entry point as a process: demo data on a fresh database, config errors, SIGTERM. */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../src/config.js';
import { openStoreAt } from '../src/store/open.js';
import { Agent, fixturesDir, tempDir, type TestServer } from './helpers.js';
import { ServiceExited, spawnService } from './spawn-service.js';

describe('server process', () => {
  it('creates demo data on a fresh database, prints the walk-through, serves it, and stops cleanly on SIGTERM', async () => {
    const dir = tempDir();
    const service = await spawnService({ env: { DATABASE_URL: path.join(dir, 'db.sqlite'), PICTURES_DIR: path.join(dir, 'pics') } });
    expect(service.stdout()).toContain('client_id demo_client / client_secret demo-secret');
    const publicUrl = `http://localhost:${service.port}`;
    expect(service.stdout()).toContain(`client_id demo_tv_game, public, for devices without a browser: run \`PUBLIC_URL=${publicUrl} npm run example:device\` and enter its code at ${publicUrl}/device`);
    expect(service.stdout()).toContain(`SESSION_SECRET is not set: using the key kept in ${path.join(dir, 'session-secret')}, which signs sessions`);
    expect(JSON.parse(await service.line('"msg":"listening"'))).toMatchObject({ port: service.port, host: '127.0.0.1' });

    const info = await fetch(`${service.url}/api/users/info?id=1`);
    expect(info.status).toBe(200);
    const body = (await info.json()) as { user: { name: string; pfpTimestamp: number } };
    expect(body.user.name).toBe('demo');
    const picture = await fetch(`${service.url}/pfp/small/1-${body.user.pfpTimestamp}.webp`);
    expect(picture.status).toBe(200);
    expect(picture.headers.get('content-type')).toBe('image/webp');
    // The demo's device app (public, with the device grant) starts a device sign-in with its client id alone.
    const device = await fetch(`${service.url}/api/oauth/device_authorization`, { method: 'POST', body: new URLSearchParams({ client_id: 'demo_tv_game', scope: 'openid profile userinfo offline_access' }) });
    expect(device.status).toBe(200);
    expect(await device.json()).toMatchObject({ verification_uri: `${publicUrl}/device`, expires_in: 600, interval: 5 });
    // The log line has method, path and status, and never a query string.
    await service.line('"path":"/api/users/info"');
    const requestLines = service.stdout().split('\n').filter((l) => l.includes('"msg":"request"'));
    expect(requestLines.some((l) => l.includes('"path":"/api/users/info"') && l.includes('"status":200'))).toBe(true);
    expect(requestLines.join('\n')).not.toContain('id=1');

    expect(await service.stop()).toBe(0);
    expect(service.stdout()).toContain('"msg":"shutting down"');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('does not seed a database that already has users, nor with DEMO_DATA=false', async () => {
    const dir = tempDir();
    const service = await spawnService({ env: { DATABASE_URL: path.join(dir, 'db.sqlite'), PICTURES_DIR: path.join(dir, 'pics'), DEMO_DATA: 'false' } });
    expect(service.stdout()).not.toContain('Demo data created');
    expect((await fetch(`${service.url}/api/users/info?id=1`)).status).toBe(404);
    expect(await service.stop()).toBe(0);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs the purge in the background every PURGE_INTERVAL_SECONDS and logs what it deleted', async () => {
    const dir = tempDir();
    const databaseUrl = path.join(dir, 'db.sqlite');
    const service = await spawnService({ env: { DATABASE_URL: databaseUrl, PICTURES_DIR: path.join(dir, 'pics'), DEMO_DATA: 'false', PURGE_INTERVAL_SECONDS: '1' } });
    const store = openStoreAt(databaseUrl);
    try {
      await store.knex('sessions').insert({ id_hash: 'a'.repeat(64), data: '{}', expires_at: Date.now() - 1, user_id: null });
      expect(await service.line('"msg":"purged expired rows"', 6)).toContain('"purged":{"tokens":0,"refreshTokens":0,"deviceAuthorizations":0,"codes":0,"sessions":1}');
      expect(await store.knex('sessions').count({ n: '*' }).first()).toEqual({ n: 0 });
    } finally {
      await store.close();
    }
    expect(await service.stop()).toBe(0);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('on SIGTERM refuses new connections, finishes an upload in flight (its body still arriving), then exits 0', async () => {
    const dir = tempDir();
    const picturesDir = path.join(dir, 'pics');
    const service = await spawnService({ env: { DATABASE_URL: path.join(dir, 'db.sqlite'), PICTURES_DIR: picturesDir, SHUTDOWN_TIMEOUT_SECONDS: '20' } });
    const agent = new Agent({ baseUrl: service.url } as TestServer);
    await agent.signIn({ name: 'demo' }, 'demo-password');
    const csrf = await agent.csrf();
    const boundary = 'shutdown-test-boundary';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="photo.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
      fs.readFileSync(path.join(fixturesDir, 'photo.jpg')),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const request = http.request(`${service.url}/api/account/picture`, {
      method: 'PUT',
      headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': body.length, Cookie: agent.cookieHeader(), 'X-CSRF-Token': csrf },
    });
    const answered = new Promise<{ status: number; connection: string | undefined; json: { user: { pfpTimestamp?: number } } }>((resolve, reject) => {
      request.once('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.once('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, json: JSON.parse(text) as { user: { pfpTimestamp?: number } } }));
      });
      request.once('error', reject);
    });
    // Half the upload, then SIGTERM while the rest has not been sent.
    request.write(body.subarray(0, body.length >> 1));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const exited = service.stop();
    await service.line('"msg":"shutting down"');
    // Not ready: a new connection is refused.
    await expect(fetch(`${service.url}/healthz`)).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 300));
    request.end(body.subarray(body.length >> 1));
    const response = await answered;
    expect(response.status).toBe(200);
    expect(response.connection).toBe('close');
    const ts = response.json.user.pfpTimestamp!;
    expect(typeof ts).toBe('number');
    expect(await exited).toBe(0);
    // The upload was committed: its three files are there.
    expect(fs.readdirSync(path.join(picturesDir, 'large'))).toContain(`1-${ts}.webp`);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a port another process holds stops the start with one line naming the variable, exit 1 and no stack: METRICS_PORT, then PORT', async () => {
    // Something on the port that accepts connections and never answers HTTP (not a service to mistake for this one).
    const holder = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const held = (holder.address() as net.AddressInfo).port;
    const dir = tempDir();
    const env = { DATABASE_URL: path.join(dir, 'db.sqlite'), PICTURES_DIR: path.join(dir, 'pics'), DEMO_DATA: 'false' };
    try {
      const started = (options: Parameters<typeof spawnService>[0]) =>
        spawnService(options).then(
          async (service) => {
            await service.stop();
            return undefined;
          },
          (err: unknown) => err,
        );
      const metrics = await started({ env: { ...env, METRICS_PORT: String(held) } });
      expect(metrics).toBeInstanceOf(ServiceExited);
      expect(metrics).toMatchObject({ code: 1, stderr: `Failed to start: METRICS_PORT ${held} is already in use on 127.0.0.1: give each instance its own METRICS_PORT\n` });
      const port = await started({ env, port: held, readySeconds: 60 });
      expect(port).toBeInstanceOf(ServiceExited);
      expect(port).toMatchObject({ code: 1, stderr: `Failed to start: PORT ${held} is already in use on 127.0.0.1: stop what listens there, or give this instance another PORT\n` });
    } finally {
      holder.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('listens on 127.0.0.1 only by default, on every interface with NODE_ENV=production or HOST=0.0.0.0', async () => {
    const dir = tempDir();
    const accepts = (host: string, port: number) =>
      new Promise<boolean>((resolve) => {
        const socket = net.connect(port, host, () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      });
    const base = { DATABASE_URL: path.join(dir, 'db.sqlite'), PICTURES_DIR: path.join(dir, 'pics'), DEMO_DATA: 'false' };
    try {
      for (const [env, host, elsewhere] of [
        // HOST undefined: spawnService's own HOST=127.0.0.1 left out, as a plain `npm start` has none.
        [{ HOST: undefined }, '127.0.0.1', false],
        [{ HOST: undefined, NODE_ENV: 'production', SESSION_SECRET: 'host-test-session-secret-0123456789abcdef' }, '0.0.0.0', true],
        [{ HOST: '0.0.0.0' }, '0.0.0.0', true],
      ] as const) {
        const service = await spawnService({ env: { ...base, ...env } });
        try {
          expect(JSON.parse(await service.line('"msg":"listening"'))).toMatchObject({ host });
          // 127.0.0.2 is this machine as well, but not the address 127.0.0.1 binds.
          expect([host, await accepts('127.0.0.2', service.port)]).toEqual([host, elsewhere]);
        } finally {
          await service.stop();
        }
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('refuses to start on a bad configuration value with one clear line', async () => {
    const refused = await spawnService({ env: { PORT: 'eighty' } }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(ServiceExited);
    expect(refused).toMatchObject({ code: 1, stderr: 'Configuration error: PORT must be an integer from 0 to 65535, got "eighty"\n' });
  });
});

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: './data/service.sqlite',
      database: { dialect: 'sqlite', file: './data/service.sqlite' },
      picturesDir: path.resolve('./data/pictures'),
      pictureSweepAgeSeconds: 600,
      logLevel: 'info',
      publicUrl: 'http://localhost:3000',
      demoData: true,
      sessionSecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      sessionSecrets: [expect.stringMatching(/^[A-Za-z0-9_-]{43}$/)],
      sessionSecretGenerated: true,
      sessionSecretFile: path.resolve('./data/session-secret'),
      production: false,
      smtpUrl: undefined,
      mailFrom: 'Identity <no-reply@localhost>',
      outboxDir: path.resolve('./data/outbox'),
      smtpTimeoutSeconds: 10,
      shutdownTimeoutSeconds: 10,
      trustProxy: false,
      metricsPort: undefined,
      metricsHost: '127.0.0.1',
      purgeIntervalSeconds: 300,
      purgeBatchSize: 250,
      refreshTokenIdleSeconds: 1_209_600,
      refreshTokenAbsoluteSeconds: 7_776_000,
    });
  });

  it('binds 127.0.0.1 by default, 0.0.0.0 by default in production, and HOST when given', () => {
    expect([loadConfig({}).host, loadConfig({ NODE_ENV: 'production' }).host, loadConfig({ HOST: '0.0.0.0' }).host, loadConfig({ NODE_ENV: 'production', HOST: '10.0.0.5' }).host]).toEqual([
      '127.0.0.1',
      '0.0.0.0',
      '0.0.0.0',
      '10.0.0.5',
    ]);
  });

  it('generates a different session secret at each start when SESSION_SECRET is unset', () => {
    expect(loadConfig({}).sessionSecret).not.toBe(loadConfig({}).sessionSecret);
  });

  it('without SESSION_SECRET, keeps the key beside a SQLite file, and nowhere in production, on PostgreSQL or in memory', () => {
    expect(loadConfig({ DATABASE_URL: '/srv/idp/db.sqlite' }).sessionSecretFile).toBe('/srv/idp/session-secret');
    expect(loadConfig({ DATABASE_URL: '/srv/idp/db.sqlite', SESSION_SECRET: 's'.repeat(32) }).sessionSecretFile).toBeUndefined();
    expect(loadConfig({ DATABASE_URL: '/srv/idp/db.sqlite', NODE_ENV: 'production' }).sessionSecretFile).toBeUndefined();
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@h:5432/db' }).sessionSecretFile).toBeUndefined();
    expect(loadConfig({ DATABASE_URL: ':memory:' }).sessionSecretFile).toBeUndefined();
  });

  it('reads every variable', () => {
    expect(
      loadConfig({ PORT: '8080', HOST: '127.0.0.1', DATABASE_URL: '/tmp/x.sqlite', PICTURES_DIR: '/tmp/p', PICTURE_SWEEP_AGE_SECONDS: '0', LOG_LEVEL: 'WARN', LOG_FORMAT: 'TEXT', PUBLIC_URL: 'https://id.example/', DEMO_DATA: 'no', NODE_ENV: 'production', SESSION_SECRET: `${'x'.repeat(40)}, ${'y'.repeat(32)}`, TRUST_PROXY: '10.0.0.0/8, 127.0.0.1', METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0', SMTP_URL: 'smtp://u:p@mail.example:587', MAIL_FROM: 'id@id.example', OUTBOX_DIR: '/tmp/o', SMTP_TIMEOUT_SECONDS: '5', SHUTDOWN_TIMEOUT_SECONDS: '30', PURGE_INTERVAL_SECONDS: '0', PURGE_BATCH_SIZE: '50', DATABASE_POOL_SIZE: '20', REFRESH_TOKEN_IDLE_SECONDS: '3600', REFRESH_TOKEN_ABSOLUTE_SECONDS: '86400' }),
    ).toEqual({
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: '/tmp/x.sqlite',
      database: { dialect: 'sqlite', file: '/tmp/x.sqlite' },
      picturesDir: '/tmp/p',
      pictureSweepAgeSeconds: 0,
      logLevel: 'warn',
      logFormat: 'text',
      publicUrl: 'https://id.example',
      demoData: false,
      sessionSecret: 'x'.repeat(40),
      sessionSecrets: ['x'.repeat(40), 'y'.repeat(32)],
      sessionSecretGenerated: false,
      sessionSecretFile: undefined,
      production: true,
      smtpUrl: 'smtp://u:p@mail.example:587',
      mailFrom: 'id@id.example',
      outboxDir: '/tmp/o',
      smtpTimeoutSeconds: 5,
      shutdownTimeoutSeconds: 30,
      trustProxy: ['10.0.0.0/8', '127.0.0.1'],
      metricsPort: 9464,
      metricsHost: '0.0.0.0',
      purgeIntervalSeconds: 0,
      purgeBatchSize: 50,
      refreshTokenIdleSeconds: 3600,
      refreshTokenAbsoluteSeconds: 86_400,
    });
  });

  it('parses DATABASE_URL into its dialect: PostgreSQL by scheme, anything else a SQLite file', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@h:5432/db' }).database).toEqual({ dialect: 'postgres', url: 'postgres://u:p@h:5432/db', poolSize: 10 });
    expect(loadConfig({ DATABASE_URL: 'postgresql://h/db', DATABASE_POOL_SIZE: '4' }).database).toEqual({ dialect: 'postgres', url: 'postgresql://h/db', poolSize: 4 });
    expect(loadConfig({ DATABASE_URL: 'file:./d/x.sqlite' }).database).toEqual({ dialect: 'sqlite', file: './d/x.sqlite' });
    expect(loadConfig({ DATABASE_URL: 'file:///tmp/x.sqlite' }).database).toEqual({ dialect: 'sqlite', file: '/tmp/x.sqlite' });
    expect(loadConfig({ DATABASE_URL: 'sqlite://x.sqlite' }).database).toEqual({ dialect: 'sqlite', file: 'x.sqlite' });
    expect(loadConfig({ DATABASE_URL: ':memory:' }).database).toEqual({ dialect: 'sqlite', file: ':memory:' });
  });

  it('reads TRUST_PROXY as a hop count, and 0 or false as off', () => {
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'loopback' }).trustProxy).toEqual(['loopback']);
  });

  it.each([
    [{ PICTURE_SWEEP_AGE_SECONDS: '10m' }, 'PICTURE_SWEEP_AGE_SECONDS must be a whole number of seconds, got "10m"'],
    [{ PORT: '70000' }, 'PORT must be an integer from 0 to 65535, got "70000"'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"'],
    [{ LOG_FORMAT: 'pretty' }, 'LOG_FORMAT must be json or text, got "pretty"'],
    [{ PUBLIC_URL: 'ftp://x' }, 'PUBLIC_URL must be an absolute http(s) URL, got "ftp://x"'],
    [{ DEMO_DATA: 'maybe' }, 'DEMO_DATA must be true or false, got "maybe"'],
    [{ SESSION_SECRET: 'short' }, 'SESSION_SECRET must be at least 32 characters, got 5'],
    [{ SESSION_SECRET: `${'x'.repeat(32)},short` }, 'SESSION_SECRET must be at least 32 characters (key 2 of 2), got 5'],
    [{ TRUST_PROXY: 'true' }, 'TRUST_PROXY must be a hop count or a list of proxy addresses/CIDRs, not "true"'],
    [{ TRUST_PROXY: '10.0.0.0/99' }, 'TRUST_PROXY must be a hop count or a comma-separated list of addresses/CIDRs: invalid range on address: 10.0.0.0/99'],
    [{ METRICS_PORT: 'x' }, 'METRICS_PORT must be an integer from 0 to 65535, got "x"'],
    [{ PORT: '8080', METRICS_PORT: '8080' }, 'METRICS_PORT must differ from PORT (8080): metrics are never served on the public port'],
    [{ PURGE_INTERVAL_SECONDS: '-1' }, 'PURGE_INTERVAL_SECONDS must be a whole number of seconds, got "-1"'],
    [{ DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE must be an integer from 1 to 1000, got "0"'],
    [{ DATABASE_POOL_SIZE: 'ten' }, 'DATABASE_POOL_SIZE must be an integer from 1 to 1000, got "ten"'],
    [{ PURGE_BATCH_SIZE: '0' }, 'PURGE_BATCH_SIZE must be an integer from 1 to 100000, got "0"'],
    [{ REFRESH_TOKEN_IDLE_SECONDS: '59' }, 'REFRESH_TOKEN_IDLE_SECONDS must be at least 60'],
    [{ REFRESH_TOKEN_ABSOLUTE_SECONDS: '14d' }, 'REFRESH_TOKEN_ABSOLUTE_SECONDS must be a whole number of seconds, got "14d"'],
    [{ PURGE_BATCH_SIZE: '100001' }, 'PURGE_BATCH_SIZE must be an integer from 1 to 100000, got "100001"'],
  ])('rejects %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(new ConfigError(message));
  });
});
