/**
 * `upstream add|list|enable|disable|update|test|remove`: the upstream identity providers people will sign in
 * through (docs/operations.md#upstream-identity-providers). Never prints a client secret. `add`
 * and `test` check the upstream as the server will use it (src/upstreams/checks.ts).
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { InvalidInput } from '../domain/errors.js';
import { UPSTREAM_PRESET_NAMES, type ClaimMapping, type UpstreamPresetName, type UpstreamRecord } from '../domain/upstreams.js';
import { discoveryCheck, sessionKeyCheck, upstreamChecks } from '../upstreams/checks.js';
import { addUpstream, removeUpstream, upstreamByName, setUpstreamEnabled, setUpstreamTrustMfa, upstreamCallback, upstreamView, type UpstreamSource } from '../upstreams/upstreams.js';
import { collect } from './arguments.js';
import type { CliContext } from './context.js';

/** `--claim <fact>=<member>`: the facts a claim mapping has, by their CLI names. */
const CLAIM_FACTS = { subject: 'subject', name: 'name', email: 'email', email_verified: 'emailVerified' } as const;
type ClaimFact = keyof typeof CLAIM_FACTS;
type Claims = Partial<Record<ClaimFact, string>>;

function claim(value: string, previous: Claims = {}): Claims {
  const at = value.indexOf('=');
  const fact = value.slice(0, Math.max(at, 0));
  if (at < 1 || !Object.hasOwn(CLAIM_FACTS, fact)) {
    throw new InvalidArgumentError(`--claim must be <fact>=<member>, the fact one of ${Object.keys(CLAIM_FACTS).join(', ')}`);
  }
  if (previous[fact as ClaimFact] !== undefined) throw new InvalidArgumentError(`--claim ${fact} is given twice`);
  return { ...previous, [fact]: value.slice(at + 1) };
}

interface AddOptions {
  name: string;
  issuer?: string;
  preset?: UpstreamPresetName;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  userinfoEndpoint?: string;
  claim?: Claims;
  scope?: string[];
  clientId: string;
  clientSecret: string;
  /** false with --no-check */
  check: boolean;
}

/** Which provider `add` was given: exactly one of --issuer, --preset and the endpoint triple, or a usage error. */
function source(o: AddOptions, command: Command): UpstreamSource {
  const triple = [o.authorizationEndpoint, o.tokenEndpoint, o.userinfoEndpoint];
  const given = [o.issuer !== undefined, o.preset !== undefined, triple.some((e) => e !== undefined)].filter(Boolean).length;
  if (given !== 1) command.error('error: give exactly one of --issuer, --preset, or --authorization-endpoint with --token-endpoint and --userinfo-endpoint');
  if (o.issuer !== undefined || o.preset !== undefined) {
    if (o.claim !== undefined) command.error('error: --claim is for an OAuth 2.0 upstream given by its endpoints');
    return o.issuer !== undefined ? { issuer: o.issuer } : { preset: o.preset! };
  }
  const [authorizationEndpoint, tokenEndpoint, userinfoEndpoint] = triple;
  if (authorizationEndpoint === undefined || tokenEndpoint === undefined || userinfoEndpoint === undefined) {
    command.error('error: give --authorization-endpoint, --token-endpoint and --userinfo-endpoint together');
  }
  const claims = o.claim ?? {};
  if (claims.subject === undefined || claims.name === undefined || claims.email === undefined) {
    command.error('error: an OAuth 2.0 upstream needs --claim subject=<member>, --claim name=<member> and --claim email=<member>');
  }
  const claimMapping: ClaimMapping = { subject: claims.subject, name: claims.name, email: claims.email, emailVerified: claims.email_verified ?? null };
  return { authorizationEndpoint, tokenEndpoint, userinfoEndpoint, claimMapping };
}

/**
 * What `upstream add` checks before it stores the upstream (unless --no-check): the key it seals
 * the client secret with is the running server's, and an OpenID Connect issuer's discovery
 * document is reachable and valid. A failure refuses with its reason (exit 1); a key that cannot
 * be compared yet passes with a note.
 */
async function checkBeforeAdding(cli: CliContext, record: UpstreamRecord): Promise<void> {
  const key = await sessionKeyCheck(await cli.store(), cli.config().sessionSecrets);
  if (!key.ok) throw new InvalidInput(key.says);
  if (key.nothingSealed) cli.note(`SESSION_SECRET: ${key.says}`);
  if (record.kind === 'oidc' && record.issuer) {
    const discovery = await discoveryCheck(record.issuer);
    if (!discovery.ok) throw new InvalidInput(`discovery failed: ${discovery.says} (add it anyway with --no-check)`);
  }
}

export function upstreamCommands(program: Command, cli: CliContext): void {
  const upstream = program.command('upstream').description('Manage the upstream identity providers people sign in through');
  upstream
    .command('add')
    .description(
      'Add an upstream, enabled: an OpenID Connect provider by --issuer, a --preset, or an OAuth 2.0 provider by its three endpoints and --claim mapping; prints the callback address to register there',
    )
    .requiredOption('--name <name>', 'the name shown ("Sign in with <name>"), 1-64 characters; its slug names the upstream')
    .option('--issuer <url>', 'an OpenID Connect issuer (https, or http on localhost)')
    .addOption(new Option('--preset <preset>', 'a provider whose settings the service knows').choices(UPSTREAM_PRESET_NAMES))
    .option('--authorization-endpoint <url>', "an OAuth 2.0 provider's authorization endpoint")
    .option('--token-endpoint <url>', "an OAuth 2.0 provider's token endpoint")
    .option('--userinfo-endpoint <url>', "an OAuth 2.0 provider's user-info endpoint")
    .option('--claim <fact=member>', 'which user-info member gives subject, name, email and email_verified (repeat; all but email_verified needed)', claim)
    .option('--scope <scope>', "a scope to ask for (repeat; default: the preset's, openid email profile for OpenID Connect, none for OAuth 2.0)", collect)
    .requiredOption('--client-id <id>', 'the client id the upstream gave')
    .requiredOption('--client-secret <secret>', 'the client secret the upstream gave (stored sealed, never printed)')
    .option('--no-check', "add it without checking that SESSION_SECRET is the server's and that the issuer's discovery document is reachable and valid")
    .action(async (o: AddOptions, command: Command) => {
      const from = source(o, command);
      const config = cli.config();
      // Sealed under SESSION_SECRET: one sealed under a random value would be unreadable to the server.
      if (config.sessionSecretGenerated) {
        throw new InvalidInput("SESSION_SECRET is not set: set it to the server's, which seals the upstreams' client secrets");
      }
      const { store, now } = await cli.deps();
      const added = await addUpstream(
        { store, now, secrets: config.sessionSecrets },
        { name: o.name, source: from, scopes: o.scope, clientId: o.clientId, clientSecret: o.clientSecret },
        o.check ? (record) => checkBeforeAdding(cli, record) : undefined,
      );
      cli.print({ slug: added.slug, name: added.name, kind: added.kind, preset: added.preset, callback: upstreamCallback(config.publicUrl, added.slug) });
    });
  upstream
    .command('list')
    .description('List the upstreams, oldest first, with their callback addresses (never a client secret)')
    .action(async () => {
      const upstreams = await (await cli.store()).upstreams.listUpstreams();
      cli.print({ upstreams: upstreams.map((u) => upstreamView(u, cli.config().publicUrl)) });
    });
  for (const [verb, enabled] of [['enable', true], ['disable', false]] as const) {
    upstream
      .command(verb)
      .description(`${enabled ? 'Offer' : 'Stop offering'} sign-in through an upstream (its settings kept); prints it as list gives it`)
      .requiredOption('--name <name>', 'its name, in any case')
      .action(async (o: { name: string }) => {
        const changed = await setUpstreamEnabled(await cli.store(), o.name, enabled);
        cli.print(upstreamView(changed, cli.config().publicUrl));
      });
  }
  upstream
    .command('update')
    .description("Change an upstream's settings: whether its amr mfa counts as a second factor here; prints it as list gives it")
    .requiredOption('--name <name>', 'its name, in any case')
    .option('--trust-mfa', "its ID token's amr mfa spares the account's authenticator-app step and counts as two factors (acr 2)")
    .option('--no-trust-mfa', "the account's own second factor is asked, and the upstream's mfa is not passed on (the default)")
    .action(async (o: { name: string; trustMfa?: boolean }, command: Command) => {
      if (o.trustMfa === undefined) command.error('error: give --trust-mfa or --no-trust-mfa');
      const changed = await setUpstreamTrustMfa(await cli.store(), o.name, o.trustMfa);
      cli.print(upstreamView(changed, cli.config().publicUrl));
    });
  upstream
    .command('test')
    .description(
      "Check an upstream as the server will use it, one line per check (ok or failed, and why): SESSION_SECRET is the server's, the client secret unseals, the issuer's discovery document (OpenID Connect), the token endpoint takes the client id and secret; exit 1 when one fails",
    )
    .argument('<name>', 'its name, in any case')
    .action(async (name: string) => {
      const { store, now } = await cli.deps();
      const upstream = await upstreamByName(store, name);
      const config = cli.config();
      const checks = await upstreamChecks({ store, secrets: config.sessionSecrets, now }, upstream, upstreamCallback(config.publicUrl, upstream.slug));
      for (const check of checks) cli.line(`${check.name}: ${check.ok ? 'ok' : 'failed'}: ${check.says}`);
      const failed = checks.filter((c) => !c.ok).map((c) => c.name);
      if (failed.length > 0) throw new InvalidInput(`${upstream.name}: ${failed.length} of ${checks.length} checks failed (${failed.join(', ')})`);
    });
  upstream
    .command('remove')
    .description('Remove an upstream with its settings')
    .requiredOption('--name <name>', 'its name, in any case')
    .action(async (o: { name: string }) => {
      await removeUpstream(await cli.store(), o.name);
      cli.print({});
    });
}
