import { authorizationServerMetadata } from '../oauth/metadata.js';
import type { Handler, JsonBody } from './types.js';

export const getOpenIdConfiguration: Handler<'getOpenIdConfiguration'> = async (_input, ctx, deps) => {
  ctx.set('Cache-Control', 'public, max-age=3600');
  const body: JsonBody<'getOpenIdConfiguration', 200> = authorizationServerMetadata(deps.config.publicUrl);
  ctx.body = body;
};
