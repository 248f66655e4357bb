/** The account page, as getAccountPage shows it and postChangeEmail shows it again with a refusal. */
import type Koa from 'koa';
import { authenticatorAppStatus } from '../accounts/second-factor.js';
import { recentSignIns } from '../accounts/sign-ins.js';
import { confirmationStands } from '../accounts/confirmation.js';
import { hasPassword, type UserRecord } from '../domain/users.js';
import type { PageConfirmations } from '../pages/confirmation.js';
import { sessionConfirmations } from '../sessions/session.js';
import type { OfferedUpstream } from '../upstreams/sign-in.js';
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
  const linked = new Set((await deps.store.upstreamIdentities.listUpstreamIdentities(record.id)).map((i) => i.upstreamSlug));
  // Its "Link <name>" and "Confirm with <name>" forms end at the upstreams: offerUpstreams widens this page's form-action for them.
  const offered = await offerUpstreams(ctx, deps);
  const confirmations = await pageConfirmations(ctx, deps, record, offered.filter((u) => linked.has(u.slug)), page.csrfToken);
  const emailSection = accountEmailSection({ csrfToken: page.csrfToken, email: record.email, verified: record.emailVerifiedAt !== null, refusal: emailRefusal, confirmations });
  const signIns = await recentSignIns(deps.store, record.id);
  const securitySections = authenticatorSection({ ...(await authenticatorAppStatus(deps.store, record.id)), confirmations });
  const upstreams = offered.map(({ slug, name }) => ({ slug, name, linked: linked.has(slug) }));
  const linkedAccounts = linkedAccountsSection({ upstreams, linkedCount: linked.size, csrfToken: page.csrfToken, confirmations });
  return accountPage({ ...page, user, emailSection, signIns, securitySections, linkedAccounts, confirmations });
}

/**
 * How this account confirms who it is on the page: with its password, or (without one) through
 * its linked upstreams that can prove a new sign-in (OpenID Connect ones) or a passkey, and whether
 * this session's confirmation stands now.
 */
async function pageConfirmations(ctx: Koa.Context, deps: AppDeps, record: UserRecord, linked: readonly OfferedUpstream[], csrfToken: string): Promise<PageConfirmations> {
  if (hasPassword(record)) return { password: true, upstreams: [], confirmed: false, csrfToken };
  const oidc = new Set((await deps.store.upstreams.listUpstreams()).filter((u) => u.kind === 'oidc').map((u) => u.slug));
  const upstreams = linked.filter((u) => oidc.has(u.slug)).map(({ slug, name }) => ({ slug, name }));
  return { password: false, upstreams, confirmed: confirmationStands(deps.now(), record, sessionConfirmations(ctx, record.id)), csrfToken };
}
