import type { Handler, JsonBody } from '../http/handler.js';
import { startDeviceAuthorization as start } from '../oauth/device.js';

/** `POST /api/oauth/device_authorization` (RFC 8628 3.1): a device without a browser starts a sign-in. */
export const startDeviceAuthorization: Handler<'startDeviceAuthorization'> = async (input, ctx, deps) => {
  // RFC 8628 3.2 answers as the token endpoint does: never cached.
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
  const body: JsonBody<'startDeviceAuthorization', 200> = await start(deps, input.body, ctx.get('Authorization') || undefined, ctx.ip);
  // The client was authenticated: a body client_id is its id (a public client always sends one).
  ctx.state.corsApp = input.body.client_id;
  ctx.body = body;
};
