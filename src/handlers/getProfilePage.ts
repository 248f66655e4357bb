import { NotFound } from '../domain/errors.js';
import { profilePage } from '../pages/moderation.js';
import { toPublicUser } from '../accounts/users.js';
import type { Handler } from '../http/handler.js';
import { pageContext, sendHtml } from '../http/pages.js';

export const getProfilePage: Handler<'getProfilePage'> = async (input, ctx, deps) => {
  const found = await deps.store.users.getPublicUser(Number(input.path.id));
  if (!found) throw new NotFound('User not found');
  sendHtml(ctx, profilePage({ ...(await pageContext(ctx, deps)), profile: toPublicUser(found) }));
};
