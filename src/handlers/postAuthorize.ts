import { Forbidden } from '../domain/errors.js';
import { authorizationSession, sendAuthorizationAnswer } from '../http/authorization.js';
import type { Handler } from '../http/handler.js';
import { answerAuthorizationRequest, answerConsent, type AuthorizationRequest } from '../oauth/authorization-policy.js';
import { AUTHORIZE_FIELDS, authorizeAddressOf } from '../oauth/authorize.js';
import { INVALID_CSRF_TOKEN, sentValidCsrfToken } from '../sessions/csrf.js';

/**
 * `POST /oauth` is two things (docs/oauth.md#the-authorization-endpoint-get-and-post): with a
 * `decision`, the consent page's form, which needs its CSRF token; without one, an authorization
 * request sent as a form (OpenID Connect Core 3.1.2.1), answered exactly as `GET /oauth` answers
 * the same parameters. Only the consent form carries `decision`, and a form posted from another
 * site without it can do no more than a link to `GET /oauth` can.
 */
export const postAuthorize: Handler<'postAuthorize'> = async (input, ctx, deps) => {
  const form = input.body;
  const { decision } = form;
  if (decision === undefined) {
    const params: AuthorizationRequest = { request: form.request, request_uri: form.request_uri };
    for (const name of AUTHORIZE_FIELDS) params[name] = form[name];
    const address = authorizeAddressOf(params);
    const answer = await answerAuthorizationRequest(deps, params, authorizationSession(ctx, deps, address));
    return sendAuthorizationAnswer(ctx, deps, answer, address);
  }
  if (!sentValidCsrfToken(ctx, form)) throw new Forbidden(INVALID_CSRF_TOKEN);
  const address = authorizeAddressOf(form);
  const answer = await answerConsent(deps, { ...form, decision }, authorizationSession(ctx, deps, address));
  await sendAuthorizationAnswer(ctx, deps, answer, address);
};
