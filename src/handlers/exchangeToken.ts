import { DevicePollRefused, DomainError } from '../domain/errors.js';
import type { Metrics } from '../metrics/metrics.js';
import { tokenRequest } from '../oauth/token-endpoint.js';
import type { Handler, JsonBody } from '../http/handler.js';

export const exchangeToken: Handler<'exchangeToken'> = async (input, ctx, deps) => {
  // RFC 6749 5.1: token responses, errors included, must not be cached.
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
  const exchange = tokenRequest(deps, input.body, ctx.get('Authorization') || undefined);
  const body: JsonBody<'exchangeToken', 200> = await (deps.metrics ? counted(deps.metrics, exchange) : exchange);
  // The client was authenticated: a body client_id is its id (a public client always sends one).
  ctx.state.corsApp = input.body.client_id;
  ctx.body = body;
};

/** The refusal reasons the metric counts: RFC 6749 5.2's error names, and `unavailable` (the database). */
const REASONS: Record<string, string> = {
  invalid_input: 'invalid_request',
  unauthenticated: 'invalid_client',
  invalid_grant: 'invalid_grant',
  unavailable: 'unavailable',
};

async function counted<T>(metrics: Metrics, exchange: Promise<T>): Promise<T> {
  try {
    const result = await exchange;
    metrics.tokenExchange('issued');
    return result;
  } catch (err) {
    // A device's poll refused on RFC 8628's terms (authorization_pending, slow_down, ...) is counted by that name.
    const own = err instanceof DevicePollRefused ? err.oauthError : undefined;
    metrics.tokenExchange(own ?? ((err instanceof DomainError && REASONS[err.kind]) || 'error'));
    throw err;
  }
}
