/**
 * `npm run mock` (scripts/mock.ts: Prism's mock of openapi.yaml with real WebP pictures) answers
 * every operation of the contract: the success example by default, each named example on
 * `Prefer: example=<name>`, and each declared error example on `Prefer: code=N`. The typed
 * client's suite runs against it as against the real service: test/client/mock.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type Prism } from './prism.js';

interface MediaType {
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Response {
  $ref?: string;
  content?: Record<string, MediaType>;
  headers?: Record<string, { example?: unknown }>;
}
interface Parameter {
  $ref?: string;
  name: string;
  in: string;
  example?: unknown;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, Response>;
  security?: Record<string, unknown>[];
}
interface Contract {
  paths: Record<string, Record<string, Operation>>;
  components: { responses: Record<string, Response>; parameters: Record<string, Parameter> };
}

const contract = yaml.load(fs.readFileSync(path.resolve(import.meta.dirname, '../../openapi.yaml'), 'utf8')) as Contract;

function exampleOf(media: MediaType | undefined): unknown {
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const first = Object.values(media.examples ?? {})[0];
  return first?.value;
}

function resolveResponse(r: Response): Response {
  if (!r.$ref) return r;
  return contract.components.responses[r.$ref.split('/').pop()!]!;
}

/** A request that satisfies the contract, built from its examples. */
function requestFor(route: string, method: string, op: Operation): { url: string; init: RequestInit & { headers: Record<string, string> } } {
  let url = route;
  const query = new URLSearchParams();
  for (const ref of op.parameters ?? []) {
    const p = ref.$ref ? contract.components.parameters[ref.$ref.split('/').pop()!]! : ref;
    if (p.in === 'path') url = url.replace(`{${p.name}}`, String(p.example));
    if (p.in === 'query') query.set(p.name, String(p.example));
  }
  const headers: Record<string, string> = {};
  if (op.security?.some((s) => 'bearerAuth' in s)) headers.Authorization = 'Bearer pV8c1kqUe0m3Rz6YbT2nW9sXa4Lh7Jf5Gd0iOy1uQwE';
  if (op.security?.some((s) => 'session' in s)) headers.Cookie = 'idp.sid=example-session-id';
  if (op.security?.some((s) => 'csrf' in s)) headers['X-CSRF-Token'] = 'example-csrf-token';
  let body: string | FormData | undefined;
  const json = op.requestBody?.content['application/json'];
  const form = op.requestBody?.content['application/x-www-form-urlencoded'];
  if (json) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(exampleOf(json));
  } else if (form) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(exampleOf(form) as Record<string, string>).toString();
  } else if (op.requestBody?.content['multipart/form-data']) {
    body = new FormData();
    body.append('file', new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])]), 'picture.png');
  }
  const qs = query.toString();
  return { url: qs ? `${url}?${qs}` : url, init: { method: method.toUpperCase(), headers, body } };
}

/** The first 2xx or 3xx response the operation declares (pages that redirect have no 200). */
function successOf(op: Operation): { status: string; response: Response } {
  const status = Object.keys(op.responses).sort().find((s) => /^[23]/.test(s))!;
  return { status, response: resolveResponse(op.responses[status]!) };
}

const operations = Object.entries(contract.paths).flatMap(([route, methods]) =>
  Object.entries(methods).map(([method, op]) => ({ route, method, op, ...successOf(op) })),
);

let mock: Prism;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(async () => mock?.stop());

describe('npm run mock', () => {
  it('covers every operation of the contract', () => {
    expect(operations.map((o) => o.op.operationId).sort()).toEqual([
      'addPasskey',
      'changePassword',
      'closeReport',
      'confirmLogout',
      'confirmTotpSetup',
      'deleteAccount',
      'deleteApp',
      'deleteGame',
      'disableTotp',
      'endSession',
      'exchangeToken',
      'exportAccount',
      'findModerationUsers',
      'finishUpstreamSignIn',
      'getAccount',
      'getAccountPage',
      'getAppsPage',
      'getAsset',
      'getAuthorizationServerMetadata',
      'getAuthorize',
      'getContractJson',
      'getContractYaml',
      'getDevicePage',
      'getDocs',
      'getDocsAsset',
      'getForgotPassword',
      'getGameApp',
      'getGameSdk',
      'getGameSdkTypes',
      'getGamesPage',
      'getHealth',
      'getHome',
      'getJwks',
      'getLogout',
      'getModerationPage',
      'getModerationUser',
      'getOidcUserInfo',
      'getOpenIdConfiguration',
      'getPlayPage',
      'getProfilePage',
      'getProfilePicture',
      'getResetPassword',
      'getSecondFactor',
      'getSession',
      'getSignIn',
      'getSignInSecondStep',
      'getSignUp',
      'getUpstreamLink',
      'getUpstreamSignUp',
      'getUserInfo',
      'getVerifyEmail',
      'getWhois',
      'hideBio',
      'introspectToken',
      'issueGameCode',
      'liftSuspension',
      'listApps',
      'listGames',
      'listGrants',
      'listModerationActions',
      'listPasskeys',
      'listReports',
      'listSessions',
      'listUpstreamIdentities',
      'passkeyReauthOptions',
      'passkeyRegistrationOptions',
      'passkeySignInOptions',
      'postAuthorize',
      'postChangeEmail',
      'postDevice',
      'postForgotPassword',
      'postHeartbeat',
      'postLogout',
      'postOidcUserInfo',
      'postResendVerification',
      'postResetPassword',
      'postSignIn',
      'postSignInSecondStep',
      'postSignOut',
      'postSignUp',
      'postUpstreamLink',
      'postUpstreamSignUp',
      'reauthWithPasskey',
      'registerApp',
      'registerGame',
      'removeAccountPicture',
      'removeGame',
      'removePasskey',
      'removePicture',
      'renamePasskey',
      'replaceRecoveryCodes',
      'reportUser',
      'revokeGrant',
      'revokeToken',
      'rotateAppSecret',
      'setAccountPicture',
      'setFirstPassword',
      'setModLevel',
      'signInWithPasskey',
      'signOutEverywhere',
      'startDeviceAuthorization',
      'startTotpSetup',
      'startUpstreamSignIn',
      'suspendUser',
      'unlinkUpstreamIdentity',
      'updateAccount',
      'updateApp',
      'updateGame',
    ]);
  });

  for (const { route, method, op, status: successStatus, response: success } of operations) {
    const [mediaType, media] = Object.entries(success.content ?? {})[0] ?? [undefined, undefined];

    if (mediaType === undefined) {
      it(`${op.operationId}: answers ${successStatus} with the declared headers`, async () => {
        const { url, init } = requestFor(route, method, op);
        const res = await fetch(`${mock.url}${url}`, { ...init, redirect: 'manual' });
        expect(res.status).toBe(Number(successStatus));
      });
    } else if (mediaType === 'image/webp') {
      it(`${op.operationId}: answers 200 with a real WebP of the requested size (not Prism's text "string")`, async () => {
        for (const [size, pixels] of [['large', 256], ['medium', 64], ['small', 16]] as const) {
          for (const file of ['12-1733707565493.webp', '13.webp']) {
            const res = await fetch(`${mock.url}/pfp/${size}/${file}`);
            expect(res.status).toBe(200);
            expect(res.headers.get('content-type')).toBe('image/webp');
            const bytes = Buffer.from(await res.arrayBuffer());
            expect(bytes.subarray(0, 4).toString('latin1')).toBe('RIFF');
            const meta = await sharp(bytes).metadata();
            expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({ format: 'webp', width: pixels, height: pixels });
          }
        }
      });
      it(`${op.operationId}: sends the headers the contract declares`, async () => {
        const res = await fetch(`${mock.url}/pfp/medium/12-1733707565493.webp`);
        await res.arrayBuffer();
        for (const [name, header] of Object.entries(success.headers ?? {})) expect(res.headers.get(name)).toBe(header.example);
      });
    } else if (mediaType === 'application/json') {
      it(`${op.operationId}: answers ${successStatus} with the success example`, async () => {
        const { url, init } = requestFor(route, method, op);
        const res = await fetch(`${mock.url}${url}`, init);
        expect(res.status).toBe(Number(successStatus));
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(await res.json()).toEqual(exampleOf(media));
      });
    } else {
      it(`${op.operationId}: answers ${successStatus} with the ${mediaType} example`, async () => {
        const { url, init } = requestFor(route, method, op);
        const res = await fetch(`${mock.url}${url}`, init);
        expect(res.status).toBe(Number(successStatus));
        expect(res.headers.get('content-type')).toBe(mediaType);
        expect(await res.text()).toBe(exampleOf(media));
      });
    }

    for (const [name, example] of Object.entries(media?.examples ?? {})) {
      it(`${op.operationId}: answers ${successStatus} with the "${name}" example on Prefer: example=${name}`, async () => {
        const { url, init } = requestFor(route, method, op);
        const res = await fetch(`${mock.url}${url}`, { ...init, headers: { ...init.headers, Prefer: `example=${name}` } });
        expect(res.status).toBe(Number(successStatus));
        expect(await res.json()).toEqual(example.value);
      });
    }

    const errorStatuses = Object.keys(op.responses).filter((s) => s !== successStatus && resolveResponse(op.responses[s]!).content?.['application/json']);
    for (const status of errorStatuses) {
      const errorMedia = resolveResponse(op.responses[status]!).content!['application/json']!;
      const named = Object.entries(errorMedia.examples ?? {});
      it(`${op.operationId}: answers ${status} with its example on Prefer: code=${status}`, async () => {
        const { url, init } = requestFor(route, method, op);
        const res = await fetch(`${mock.url}${url}`, { ...init, headers: { ...init.headers, Prefer: `code=${status}` } });
        expect(res.status).toBe(Number(status));
        expect(await res.json()).toEqual(exampleOf(errorMedia));
      });
      for (const [name, example] of named.slice(1)) {
        it(`${op.operationId}: answers ${status} "${name}" on Prefer: code=${status}, example=${name}`, async () => {
          const { url, init } = requestFor(route, method, op);
          const res = await fetch(`${mock.url}${url}`, { ...init, headers: { ...init.headers, Prefer: `code=${status}, example=${name}` } });
          expect(res.status).toBe(Number(status));
          expect(await res.json()).toEqual(example.value);
        });
      }
    }
  }

  it('sends CORS headers where the service does, and none on the token endpoint', async () => {
    const info = await fetch(`${mock.url}/api/users/info?id=12`, { headers: { Origin: 'https://game.example' } });
    expect(info.headers.get('access-control-allow-origin')).toBe('*');
    const token = await fetch(`${mock.url}/api/oauth/token`, {
      method: 'POST',
      headers: { Origin: 'https://game.example', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=authorization_code&code=c&client_id=i&client_secret=s',
    });
    expect(token.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers an invalid request with the declared error example, or a 422 problem report when none is declared', async () => {
    const missingId = await fetch(`${mock.url}/api/users/info`);
    expect(missingId.status).toBe(400);
    expect(await missingId.json()).toEqual({ message: 'Invalid user ID' });
    const noToken = await fetch(`${mock.url}/api/oauth/whois`);
    expect(noToken.status).toBe(401);
    expect(await noToken.json()).toEqual({ message: 'Missing Authorization header' });
    // The real service answers 404 here; the picture route declares no 400, so Prism reports 422.
    const badSize = await fetch(`${mock.url}/pfp/huge/12.webp`);
    expect(badSize.status).toBe(422);
    expect(badSize.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});
