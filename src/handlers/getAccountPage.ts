import { secondFactorStatus } from '../accounts/second-factor.js';
import { recentSignIns } from '../accounts/sign-ins.js';
import { authenticatorSection } from '../pages/authenticator.js';
import { accountEmailSection } from '../pages/email-pages.js';
import { accountPage } from '../pages/pages.js';
import type { Handler } from './types.js';
import { pageContext, redirectToSignIn, sendHtml } from './web.js';

export const getAccountPage: Handler<'getAccountPage'> = async (_input, ctx, deps) => {
  const page = await pageContext(ctx, deps);
  if (!page.user || !page.record) return redirectToSignIn(ctx, '/account', 303);
  const emailSection = accountEmailSection({ csrfToken: page.csrfToken, email: page.record.email, verified: page.record.emailVerifiedAt !== null });
  const signIns = await recentSignIns(deps.store, page.user.id);
  const securitySections = authenticatorSection(await secondFactorStatus(deps, page.user.id));
  sendHtml(ctx, accountPage({ ...page, user: page.user, emailSection, signIns, securitySections }));
};
