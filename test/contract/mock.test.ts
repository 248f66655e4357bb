/**
 * `npm run mock` (Prism's mock of openapi.yaml) answers every JSON operation with the contract's
 * examples: the success example by default, and each declared error example on `Prefer: code=N`.
 */
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrism, type Prism } from './prism.js';

interface MediaType {
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
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
  responses: Record<string, { $ref?: string; content?: Record<string, MediaType> }>;
  security?: Record<string, unknown>[];
}
interface Contract {
  paths: Record<string, Record<string, Operation>>;
  components: { responses: Record<string, { content?: Record<string, MediaType> }>; parameters: Record<string, Parameter> };
}

const contract = yaml.load(fs.readFileSync(path.resolve(import.meta.dirname, '../../openapi.yaml'), 'utf8')) as Contract;

function exampleOf(media: MediaType | undefined): unknown {
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const first = Object.values(media.examples ?? {})[0];
  return first?.value;
}

function resolveResponse(r: { $ref?: string; content?: Record<string, MediaType> }) {
  if (!r.$ref) return r;
  return contract.components.responses[r.$ref.split('/').pop()!]!;
}

/** A request that satisfies the contract, built from its examples. */
function requestFor(route: string, method: string, op: Operation): { url: string; init: RequestInit } {
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
  if (json) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(exampleOf(json));
  } else if (op.requestBody?.content['multipart/form-data']) {
    body = new FormData();
    body.append('file', new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])]), 'picture.png');
  }
  const qs = query.toString();
  return { url: qs ? `${url}?${qs}` : url, init: { method: method.toUpperCase(), headers, body } };
}

/** The success status of an operation: its first 2xx (pages that only redirect have none). */
function successOf(op: Operation): string {
  return Object.keys(op.responses).find((s) => s.startsWith('2')) ?? '';
}

const jsonOperations = Object.entries(contract.paths).flatMap(([route, methods]) =>
  Object.entries(methods)
    .filter(([, op]) => successOf(op) !== '' && resolveResponse(op.responses[successOf(op)]!).content?.['application/json'])
    .map(([method, op]) => ({ route, method, op, success: successOf(op) })),
);

let mock: Prism;
beforeAll(async () => {
  mock = await startPrism(['mock', 'openapi.yaml']);
});
afterAll(async () => mock?.stop());

describe('the Prism mock', () => {
  it('covers every JSON operation of the contract', () => {
    expect(jsonOperations.map((o) => o.op.operationId).sort()).toEqual([
      'exchangeToken',
      'getAccount',
      'getGameApp',
      'getHealth',
      'getSession',
      'getUserInfo',
      'getWhois',
      'issueGameCode',
      'listApps',
      'listGames',
      'postHeartbeat',
      'registerApp',
      'registerGame',
      'removeAccountPicture',
      'rotateAppSecret',
      'setAccountPicture',
      'updateAccount',
    ]);
  });

  for (const { route, method, op, success } of jsonOperations) {
    it(`${op.operationId}: answers ${success} with the success example`, async () => {
      const { url, init } = requestFor(route, method, op);
      const res = await fetch(`${mock.url}${url}`, init);
      expect(res.status).toBe(Number(success));
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual(exampleOf(resolveResponse(op.responses[success]!).content!['application/json']));
    });

    const errorStatuses = Object.keys(op.responses).filter((s) => s !== success && resolveResponse(op.responses[s]!).content?.['application/json']);
    for (const status of errorStatuses) {
      it(`${op.operationId}: answers ${status} with its example on Prefer: code=${status}`, async () => {
        const { url, init } = requestFor(route, method, op);
        const res = await fetch(`${mock.url}${url}`, { ...init, headers: { ...(init.headers as Record<string, string>), Prefer: `code=${status}` } });
        expect(res.status).toBe(Number(status));
        expect(await res.json()).toEqual(exampleOf(resolveResponse(op.responses[status]!).content!['application/json']));
      });
    }
  }
});
