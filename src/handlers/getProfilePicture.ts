import { ApiError } from '../http/error-responses.js';
import { parameterPattern } from '../contract.js';
import type { Handler } from '../http/handler.js';

/** `<id>[-<pfpTimestamp>].webp`, split by the contract's own pattern (already checked by validation; docs/decisions.md#profile-pictures). */
const FILE = parameterPattern('getProfilePicture', 'path', 'file');
const IMMUTABLE = 'public, max-age=31536000, immutable';
const SHORT = 'public, max-age=60';

function notFound(): ApiError {
  return new ApiError(404, 'Profile picture not found');
}

export const getProfilePicture: Handler<'getProfilePicture'> = async (input, ctx, deps) => {
  const { size, file } = input.path;
  const match = FILE.exec(file);
  if (!match) throw notFound();
  const userId = Number(match[1]);
  const ts = match[2] === undefined ? null : Number(match[2]);

  // Only the pfpTimestamp: undefined for no such user, which never equals ts.
  if ((await deps.store.users.getPfpTimestamp(userId)) !== ts) throw notFound();

  let image: Buffer | undefined;
  // Koa's ctx.fresh only compares validators on a 2xx status, and the default status is 404.
  ctx.status = 200;
  if (ts === null) {
    ctx.set('Cache-Control', SHORT);
    ctx.etag = deps.defaults.etag(userId, size);
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    image = await deps.defaults.get(userId, size);
  } else {
    ctx.set('Cache-Control', IMMUTABLE);
    ctx.etag = `"${userId}-${ts}-${size}"`;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    image = await deps.pictures.read(size, userId, ts);
    if (!image) {
      deps.logger.warn({ userId, ts, size }, 'picture missing for the current pfpTimestamp');
      ctx.remove('Cache-Control');
      ctx.remove('ETag');
      throw notFound();
    }
  }
  ctx.type = 'image/webp';
  ctx.body = image;
};
