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
interface Operation {
  operationId: string;
  parameters?: { name: string; in: string; example?: unknown }[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { $ref?: string; content?: Record<string, MediaType> }>;
  security?: Record<string, unknown>[];
}
interface Contract {
  paths: Record<string, Record<string, Operation>>;
  components: { responses: Record<string, { content?: Record<string, MediaType> }> };
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
  for (const p of op.parameters ?? []) {
    if (p.in === 'path') url = url.replace(`{${p.name}}`, String(p.example));
    if (p.in === 'query') query.set(p.name, String(p.example));
  }
  const headers: Record<string, string> = {};
  if (op.security?.some((s) => 'bearerAuth' in s)) headers.Authorization = 'Bearer pV8c1kqUe0m3Rz6YbT2nW9sXa4Lh7Jf5Gd0iOy1uQwE';
  let body: string | undefined;
  const json = op.requestBody?.content['application/json'];
  if (json) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(exampleOf(json));
  }
  const qs = query.toString();
  return { url: qs ? `${url}?${qs}` : url, init: { method: method.toUpperCase(), headers, body } };
}

const jsonOperations = Object.entries(contract.paths).flatMap(([route, methods]) =>
  Object.entries(methods)
    .filter(([, op]) => resolveResponse(op.responses['200']!).content?.['application/json'])
    .map(([method, op]) => ({ route, method, op })),
);

let mock: Prism;
beforeAll(async () => {
  mock = await startPrism(['mock', 'openapi.yaml']);
});
afterAll(async () => mock?.stop());

describe('the Prism mock', () => {
  it('covers every JSON operation of the contract', () => {
    expect(jsonOperations.map((o) => o.op.operationId).sort()).toEqual(['exchangeToken', 'getHealth', 'getUserInfo', 'getWhois']);
  });

  for (const { route, method, op } of jsonOperations) {
    it(`${op.operationId}: answers 200 with the success example`, async () => {
      const { url, init } = requestFor(route, method, op);
      const res = await fetch(`${mock.url}${url}`, init);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual(exampleOf(resolveResponse(op.responses['200']!).content!['application/json']));
    });

    const errorStatuses = Object.keys(op.responses).filter((s) => s !== '200' && resolveResponse(op.responses[s]!).content?.['application/json']);
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
