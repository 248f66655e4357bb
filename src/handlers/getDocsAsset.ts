import { ApiError } from '../errors.js';
import type { Handler } from './types.js';

export const getDocsAsset: Handler = async (c, ctx, deps) => {
  const { file } = c.request.params as { file: string };
  const asset = deps.publication.assets.get(file);
  if (!asset) throw new ApiError(404, 'No such docs asset');
  ctx.set('Cache-Control', 'public, max-age=3600');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = asset.type;
  ctx.body = asset.body;
};
