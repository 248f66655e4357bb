import type Koa from 'koa';
import { secondFactorStatus } from '../accounts/second-factor.js';
import { recentSignIns } from '../accounts/sign-ins.js';
import { authenticatorSection } from '../pages/authenticator.js';
import { accountEmailSection, type EmailChangeRefusal } from '../pages/email-pages.js';
import { accountPage } from '../pages/pages.js';
import type { UserRecord } from '../store/types.js';
import type { AppDeps, Handler } from './types.js';
import { pageContext, redirectToSignIn, sendHtml } from './web.js';

/** The account page of `record`; `emailRefusal`: why a change of address was refused, shown beside its form. */
export async function renderAccountPage(ctx: Koa.Context, deps: AppDeps, record: UserRecord, emailRefusal?: EmailChangeRefusal): Promise<string> {
  const page = await pageContext(ctx, deps);
  const user = { id: record.id, name: record.name, modLevel: record.modLevel };
  const emailSection = accountEmailSection({ csrfToken: page.csrfToken, email: record.email, verified: record.emailVerifiedAt !== null, refusal: emailRefusal });
  const signIns = await recentSignIns(deps.store, record.id);
  const securitySections = authenticatorSection(await secondFactorStatus(deps, record.id));
  return accountPage({ ...page, user, emailSection, signIns, securitySections });
}

export const getAccountPage: Handler<'getAccountPage'> = async (_input, ctx, deps) => {
  const page = await pageContext(ctx, deps);
  if (!page.user || !page.record) return redirectToSignIn(ctx, '/account', 303);
  sendHtml(ctx, await renderAccountPage(ctx, deps, page.record));
};
