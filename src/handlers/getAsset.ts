import { ApiError } from '../errors.js';
import { readAsset } from '../pages/assets.js';
import type { Handler } from './types.js';

export const getAsset: Handler = async (c, ctx) => {
  const asset = await readAsset((c.request.params as { file: string }).file);
  if (!asset) throw new ApiError(404, 'No such asset');
  ctx.type = asset.type;
  ctx.set('Cache-Control', 'public, max-age=300');
  ctx.body = asset.body;
};
