/**
 * Every JSON response checked against the contract, a mismatch turned into a 500 (tests turn this
 * on with `validateResponses`, so a handler that drifts from openapi.yaml fails loudly).
 */
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { Api } from './operations.js';
import { requestOperation } from './request-input.js';

export function responseValidation(api: Api, logger: Logger): Koa.Middleware {
  return async function validateResponse(ctx, next) {
    await next();
    let body: unknown = ctx.body;
    // A JSON body arrives here already written by its serializer (src/http/serializers.ts): what
    // is checked is what the client gets.
    if (typeof body === 'string' && ctx.response.is('json')) body = JSON.parse(body);
    if (typeof body !== 'object' || body === null || Buffer.isBuffer(body)) return;
    // Any operation can meet a database outage, or a request over the size limits: 503, 414 and
    // 431 {message} are declared once for all of them (the contract's conventions), like an
    // unexpected 500.
    if (ctx.status === 503 || ctx.status === 414 || ctx.status === 431) return;
    const operation = requestOperation(api, ctx);
    if (!operation) return;
    const declared = Object.keys(operation.responses ?? {});
    const result = declared.includes(String(ctx.status))
      ? api.validateResponse(body, operation, ctx.status)
      : { errors: [{ message: `status ${ctx.status} is not declared` }] };
    if (result.errors?.length) {
      logger.error({ operationId: operation.operationId, status: ctx.status, errors: result.errors, body }, 'response breaks the contract');
      ctx.status = 500;
      ctx.body = { message: `Response breaks the contract: ${JSON.stringify(result.errors)}` };
    }
  };
}
