import { ApiError } from '../errors.js';
import { parseUserId, toPublicUser } from '../users/users.js';
import type { Handler, JsonBody } from './types.js';

export const getUserInfo: Handler = async (_c, ctx, deps) => {
  // The raw string, not the coerced number: "1e3", " 7" or "0x10" would coerce to integers.
  const id = parseUserId(ctx.query.id);
  if (id === undefined) throw new ApiError(400, 'Invalid user ID');
  const user = await deps.store.getPublicUser(id);
  if (!user) throw new ApiError(404, 'User not found');
  const body: JsonBody<'getUserInfo', 200> = { message: 'yes', user: toPublicUser(user) };
  ctx.body = body;
};
