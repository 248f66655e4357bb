import { ApiError } from '../http/error-responses.js';
import type { Handler } from '../http/handler.js';

export const getDocsAsset: Handler<'getDocsAsset'> = async (input, ctx, deps) => {
  const { file } = input.path;
  const asset = deps.publication.assets.get(file);
  if (!asset) throw new ApiError(404, 'No such docs asset');
  ctx.set('Cache-Control', 'public, max-age=3600');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = asset.type;
  ctx.body = asset.body;
};
