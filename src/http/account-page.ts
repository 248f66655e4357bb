/** The account page, as getAccountPage shows it and postChangeEmail shows it again with a refusal. */
import type Koa from 'koa';
import { authenticatorAppStatus } from '../accounts/second-factor.js';
import { recentSignIns } from '../accounts/sign-ins.js';
import type { UserRecord } from '../domain/users.js';
import { authenticatorSection } from '../pages/authenticator.js';
import { accountEmailSection, type EmailChangeRefusal } from '../pages/email-pages.js';
import { linkedAccountsSection } from '../pages/linked-accounts.js';
import { accountPage } from '../pages/pages.js';
import type { AppDeps } from './handler.js';
import { pageContext } from './pages.js';
import { offerUpstreams } from './upstream-sign-in.js';

/** The account page of `record`; `emailRefusal`: why a change of address was refused, shown beside its form. */
export async function renderAccountPage(ctx: Koa.Context, deps: AppDeps, record: UserRecord, emailRefusal?: EmailChangeRefusal): Promise<string> {
  const page = await pageContext(ctx, deps);
  const user = { id: record.id, name: record.name, modLevel: record.modLevel };
  const emailSection = accountEmailSection({ csrfToken: page.csrfToken, email: record.email, verified: record.emailVerifiedAt !== null, refusal: emailRefusal });
  const signIns = await recentSignIns(deps.store, record.id);
  const securitySections = authenticatorSection(await authenticatorAppStatus(deps.store, record.id));
  const linked = new Set((await deps.store.listUpstreamIdentities(record.id)).map((i) => i.upstreamSlug));
  // Its "Link <name>" forms end at the upstreams: offerUpstreams widens this page's form-action for them.
  const upstreams = (await offerUpstreams(ctx, deps)).map(({ slug, name }) => ({ slug, name, linked: linked.has(slug) }));
  const linkedAccounts = linkedAccountsSection({ upstreams, linkedCount: linked.size, csrfToken: page.csrfToken });
  return accountPage({ ...page, user, emailSection, signIns, securitySections, linkedAccounts });
}
