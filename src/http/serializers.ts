/**
 * JSON responses written by functions fast-json-stringify compiles once at start from the
 * contract's response schemas: faster than JSON.stringify for these small objects, and
 * a property the contract does not declare for that status is never written, whatever a handler
 * puts in its body (docs/performance.md#serializers-compiled-from-the-contract).
 */
import fastJson from 'fast-json-stringify';
import type Koa from 'koa';
import type { Operation } from 'openapi-backend';
import type { Api } from './operations.js';

type Serializer = (body: unknown) => string;

interface JsonResponse {
  content?: Record<string, { schema?: object }>;
}

/** operationId, then status ('200', 'default'), to its compiled serializer. */
type Serializers = Map<string, Map<string, Serializer>>;

/**
 * Compiles every JSON response schema of the contract. A schema fast-json-stringify cannot
 * compile stops the start: the contract stays the one description of what is sent.
 */
export function compileSerializers(api: Api): Serializers {
  const all: Serializers = new Map();
  for (const operation of api.router.getOperations()) {
    const byStatus = new Map<string, Serializer>();
    for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, JsonResponse>)) {
      const schema = response.content?.['application/json']?.schema;
      if (!schema) continue;
      try {
        byStatus.set(status, fastJson(schema as Parameters<typeof fastJson>[0]));
      } catch (err) {
        throw new Error(`${operation.operationId} ${status}: the response schema does not compile to a serializer: ${(err as Error).message}`);
      }
    }
    if (byStatus.size > 0 && operation.operationId) all.set(operation.operationId, byStatus);
  }
  return all;
}

/**
 * Writes the JSON body of this response through the operation's serializer for its status (or
 * its `default` response). A body of another kind (a page, picture bytes, a stream, no body) and
 * a status the contract does not declare are left to Koa.
 */
export function serializeBody(serializers: Serializers, operation: Operation | undefined, ctx: Koa.Context): void {
  const body: unknown = ctx.body;
  if (typeof body !== 'object' || body === null || Buffer.isBuffer(body) || typeof (body as { pipe?: unknown }).pipe === 'function') return;
  const byStatus = operation?.operationId === undefined ? undefined : serializers.get(operation.operationId);
  const serialize = byStatus?.get(String(ctx.status)) ?? byStatus?.get('default');
  if (!serialize) return;
  // Setting a string keeps the JSON Content-Type the object body set.
  ctx.body = serialize(body);
}
