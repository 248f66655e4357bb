/** The typed client's suite (suite.ts) against the real service, in-process, over HTTP. */
import sharp from 'sharp';
import { createIdentityClient } from '../../client/index.js';
import { registerOAuthApp } from '../../src/oauth/clients.js';
import { decideUserCode } from '../../src/oauth/device.js';
import { setPicture } from '../../src/pictures/pictures.js';
import type { UserRecord } from '../../src/domain/users.js';
import { makeClient, makeCode, makeUser, startServer } from '../helpers.js';
import { clientSuite } from './suite.js';
import type { TargetUser } from './targets.js';

clientSuite(async () => {
  const t = await startServer();
  // Discovery's issuer and jwks_uri are the server's own address once it listens (verifyIdToken fetches them).
  t.config.publicUrl = t.baseUrl;
  const withPicture = await makeUser(t);
  const png = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#884422' } }).png().toBuffer();
  await setPicture(t.app.deps, withPicture.id, png);
  const withoutPicture = await makeUser(t);
  const app = await makeClient(t, withPicture.id);
  // The suite's apps may use refresh tokens; the other app may not (refresh: unauthorized_client).
  await t.store.apps.updateApp(app.clientId, { grantTypes: ['authorization_code', 'refresh_token'] });
  const otherApp = await makeClient(t, withoutPicture.id);
  const publicApp = await registerOAuthApp(
    { store: t.store, now: t.clock.now },
    { ownerId: withPicture.id, name: 'Public App', redirectUris: ['https://spa.example/callback'], public: true, grantTypes: ['authorization_code', 'refresh_token'] },
  );
  const deviceApp = await registerOAuthApp(
    { store: t.store, now: t.clock.now },
    { ownerId: withPicture.id, name: 'Device App', redirectUris: ['https://tv.example/callback'], public: true, grantTypes: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'] },
  );
  const asTarget = async (user: UserRecord): Promise<TargetUser> => {
    const u = (await t.store.users.getUser(user.id))!;
    return {
      id: u.id,
      name: u.name,
      email: u.email,
      ...(u.pfpTimestamp === null ? {} : { pfpTimestamp: u.pfpTimestamp }),
      updatedAt: Math.floor(u.profileUpdatedAt / 1000),
    };
  };
  return {
    baseUrl: t.baseUrl,
    issuer: t.config.publicUrl,
    app,
    otherApp,
    publicApp: { clientId: publicApp.app.clientId, redirectUri: publicApp.app.redirectUris[0]! },
    deviceApp: { clientId: deviceApp.app.clientId },
    users: { withPicture: await asTarget(withPicture), withoutPicture: await asTarget(withoutPicture) },
    code: (request) =>
      makeCode(t, {
        userId: request.user.id,
        clientId: request.publicApp ? publicApp.app.clientId : app.clientId,
        scope: request.scope,
        redirectUri: request.redirectUri ?? null,
        codeChallenge: request.codeChallenge ?? null,
        nonce: request.nonce ?? null,
      }),
    // As /device does, for a person signed in with a password just now.
    decideDevice: async (userCode, user, decision) => {
      const person = (await t.store.users.getUser(user.id))!;
      await decideUserCode(t.app.deps, userCode, { user: person, ip: '127.0.0.1', authTime: t.clock.now(), amr: ['pwd'] }, decision);
    },
    nowSeconds: () => Math.floor(t.clock.now() / 1000),
    advance: (ms) => t.clock.advance(ms),
    // The service needs no steering: each exception's answer is its own.
    client: (options = {}) => createIdentityClient({ baseUrl: t.baseUrl, clientId: app.clientId, clientSecret: app.clientSecret, ...options }),
    serverOnly: () => false,
    close: () => t.close(),
  };
});
