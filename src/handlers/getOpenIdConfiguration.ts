import { authorizationServerMetadata } from '../oauth/metadata.js';
import type { Handler, JsonBody } from '../http/handler.js';

export const getOpenIdConfiguration: Handler<'getOpenIdConfiguration'> = async (_input, ctx, deps) => {
  ctx.set('Cache-Control', 'public, max-age=3600');
  const body: JsonBody<'getOpenIdConfiguration', 200> = authorizationServerMetadata(deps.config.publicUrl, 'openid');
  ctx.body = body;
};
