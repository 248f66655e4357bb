import { ApiError } from '../http/error-responses.js';
import { readAsset } from '../pages/assets.js';
import type { Handler } from '../http/handler.js';

export const getAsset: Handler<'getAsset'> = async (input, ctx) => {
  const asset = await readAsset(input.path.file);
  if (!asset) throw new ApiError(404, 'No such asset');
  ctx.type = asset.type;
  ctx.set('Cache-Control', 'public, max-age=300');
  ctx.body = asset.body;
};
