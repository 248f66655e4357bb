/** `app create|update|rotate-secret|delete`: the same domain functions as the account's app API, without its ownership check. */
import { Option, type Command } from 'commander';
import { appView, deleteApp, registerOAuthApp, rotateSecret, updateOAuthApp } from '../oauth/clients.js';
import { GRANT_TYPES } from '../oauth/grant-types.js';
import { collect, int } from './arguments.js';
import type { CliContext } from './context.js';

export function appCommands(program: Command, cli: CliContext): void {
  const app = program.command('app').description('Manage apps (OAuth clients)');
  app
    .command('create')
    .description('Register an app; prints its client id and its secret (shown only now; a public app has none)')
    .requiredOption('--owner <userId>', 'id of the owning user', int('--owner'))
    .requiredOption('--name <name>', 'app name, 1-64 characters')
    .requiredOption('--redirect-uri <uri>', 'allowed redirect URI (repeat for up to 10)', collect)
    .option('--public', 'a public client: no secret, PKCE required')
    .option('--post-logout-redirect-uri <uri>', 'allowed post-logout redirect URI (repeat for up to 10)', collect)
    .option('--grant-type <name>', `a grant the app may use: ${GRANT_TYPES.join(', ')} (repeat; default authorization_code alone)`, collect)
    .action(async (o: { owner: number; name: string; redirectUri: string[]; public?: true; postLogoutRedirectUri?: string[]; grantType?: string[] }) => {
      const created = await registerOAuthApp(await cli.deps(), {
        ownerId: o.owner,
        name: o.name,
        redirectUris: o.redirectUri,
        public: o.public === true,
        postLogoutRedirectUris: o.postLogoutRedirectUri ?? [],
        grantTypes: o.grantType,
      });
      cli.print(created.clientSecret === undefined ? { client_id: created.app.clientId } : { client_id: created.app.clientId, client_secret: created.clientSecret });
    });
  app
    .command('update')
    .description("Change an app's name, addresses and/or grants (each list replaces the old one); prints the app as listApps gives it")
    .requiredOption('--client-id <id>', 'client id')
    .option('--name <name>', 'new name, 1-64 characters')
    .option('--redirect-uri <uri>', 'the new redirect URIs (repeat for up to 10)', collect)
    .option('--post-logout-redirect-uri <uri>', 'the new post-logout redirect URIs (repeat for up to 10)', collect)
    .addOption(new Option('--clear-post-logout-redirect-uris', 'remove every post-logout redirect URI').conflicts('postLogoutRedirectUri'))
    .option('--grant-type <name>', `the grants the app may use from now on: ${GRANT_TYPES.join(', ')} (repeat)`, collect)
    .action(
      async (
        o: { clientId: string; name?: string; redirectUri?: string[]; postLogoutRedirectUri?: string[]; clearPostLogoutRedirectUris?: true; grantType?: string[] },
        command: Command,
      ) => {
        const postLogoutRedirectUris = o.clearPostLogoutRedirectUris ? [] : o.postLogoutRedirectUri;
        if (o.name === undefined && o.redirectUri === undefined && postLogoutRedirectUris === undefined && o.grantType === undefined) {
          command.error('error: give at least one of --name, --redirect-uri, --post-logout-redirect-uri, --clear-post-logout-redirect-uris and --grant-type');
        }
        const updated = await updateOAuthApp(await cli.store(), o.clientId, { name: o.name, redirectUris: o.redirectUri, postLogoutRedirectUris, grantTypes: o.grantType });
        cli.print(appView(updated));
      },
    );
  app
    .command('rotate-secret')
    .description('Replace the client secret; the old one stops working at once')
    .requiredOption('--client-id <id>', 'client id')
    .action(async (o: { clientId: string }) => {
      const secret = await rotateSecret(await cli.deps(), o.clientId);
      cli.print({ client_id: o.clientId, client_secret: secret });
    });
  app
    .command('delete')
    .description('Delete an app with its codes and tokens')
    .requiredOption('--client-id <id>', 'client id')
    .action(async (o: { clientId: string }) => {
      await deleteApp(await cli.store(), o.clientId);
      cli.print({});
    });
}
