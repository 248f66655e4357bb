import { ApiError } from '../http/error-responses.js';
import { toPublicUser } from '../accounts/users.js';
import type { Handler, JsonBody } from '../http/handler.js';

export const getUserInfo: Handler<'getUserInfo'> = async (input, ctx, deps) => {
  // The contract's Id pattern admits only plain digits up to 2^53 - 1: Number() is exact here
  // (docs/decisions.md#public-user-lookup).
  const user = await deps.store.users.getPublicUser(Number(input.query.id));
  if (!user) throw new ApiError(404, 'User not found');
  const body: JsonBody<'getUserInfo', 200> = { message: 'yes', user: toPublicUser(user) };
  ctx.body = body;
};
