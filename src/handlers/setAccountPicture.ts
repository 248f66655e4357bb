import { ApiError } from '../http/error-responses.js';
import { readFilePart } from '../http/multipart.js';
import { MAX_UPLOAD_BYTES } from '../pictures/images.js';
import { setPicture } from '../pictures/pictures.js';
import { toPublicUser } from '../accounts/users.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { changeOwnAccount, signedInUser } from '../http/signed-in.js';

export const setAccountPicture: Handler<'setAccountPicture'> = async (_input, ctx, deps) => {
  const user = signedInUser(ctx);
  if (!ctx.request.is('multipart/form-data')) {
    throw new ApiError(415, 'Upload the picture as multipart/form-data with a file part');
  }
  // Counted before the body is read: every attempt costs, a refused one too (the CLI is not limited).
  await deps.limits.pictureUpload.consume(String(user.id));
  // Read only now, after the session and CSRF checks: no one streams 8 MB at us unauthenticated.
  const file = await readFilePart(ctx.req, { field: 'file', maxBytes: MAX_UPLOAD_BYTES, tooLarge: 'The picture is larger than 8 MB' });
  const changed = await changeOwnAccount(deps, user.id, () => setPicture(deps, user.id, file));
  const body: JsonBody<'setAccountPicture', 200> = { user: toPublicUser(changed) };
  ctx.body = body;
};
