import { authorizationServerMetadata } from '../oauth/metadata.js';
import type { Handler, JsonBody } from '../http/handler.js';

export const getAuthorizationServerMetadata: Handler<'getAuthorizationServerMetadata'> = async (_input, ctx, deps) => {
  ctx.set('Cache-Control', 'public, max-age=3600');
  const body: JsonBody<'getAuthorizationServerMetadata', 200> = authorizationServerMetadata(deps.config.publicUrl, 'oauth');
  ctx.body = body;
};
