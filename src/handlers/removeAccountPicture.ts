import { removePicture } from '../pictures/pictures.js';
import { toPublicUser } from '../accounts/users.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { changeOwnAccount, signedInUser } from '../http/signed-in.js';

export const removeAccountPicture: Handler<'removeAccountPicture'> = async (_input, ctx, deps) => {
  const user = signedInUser(ctx);
  const changed = await changeOwnAccount(deps, user.id, () => removePicture(deps, user.id));
  const body: JsonBody<'removeAccountPicture', 200> = { user: toPublicUser(changed) };
  ctx.body = body;
};
