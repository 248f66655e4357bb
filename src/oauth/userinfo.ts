/** OpenID Connect UserInfo (Core 5.3), for GET and POST alike: `sub` and the claims of the token's scopes. */
import type { components } from '../../generated/api.js';
import type { TokenWithUser } from '../domain/apps.js';
import { Unauthenticated } from '../domain/errors.js';
import { requireScope } from './bearer.js';
import { userClaims } from './claims.js';
import type { Store } from '../store/types.js';

/** The claims UserInfo answers for the access token `found` (a token without `openid` is refused, 403). */
export async function userInfo(store: Pick<Store, 'users'>, found: TokenWithUser, issuer: string): Promise<components['schemas']['OidcUserInfo']> {
  requireScope(found, 'openid');
  // The token's read carries only what whois needs; the claims want the whole user.
  const user = await store.users.getUser(found.user.id);
  // Deleting a user deletes their tokens: only a deletion racing this request gets here.
  if (!user) throw new Unauthenticated('Invalid access token', 'Bearer realm="whois", error="invalid_token"');
  return userClaims(user, found.token.scopes, issuer);
}
