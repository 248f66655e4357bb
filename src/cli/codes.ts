/** `code issue`: a code as the consent page would issue it, for scripts and the example client. */
import type { Command } from 'commander';
import { issueCode } from '../oauth/codes.js';
import { int } from './arguments.js';
import type { CliContext } from './context.js';

export function codeCommands(program: Command, cli: CliContext): void {
  program
    .command('code')
    .description('Authorization codes')
    .command('issue')
    .description('Issue an authorization code (as if the user had consented); `email` needs a verified address')
    .requiredOption('--user <id>', 'user id', int('--user'))
    .requiredOption('--client-id <id>', 'client id')
    .requiredOption('--scope <scopes>', 'space-separated scopes: userinfo, email')
    .option('--redirect-uri <uri>', 'bind the code to this registered redirect URI')
    .option('--code-challenge <challenge>', 'PKCE S256 code challenge')
    .action(async (o: { user: number; clientId: string; scope: string; redirectUri?: string; codeChallenge?: string }) => {
      const issued = await issueCode(await cli.deps(), {
        userId: o.user,
        clientId: o.clientId,
        scope: o.scope,
        redirectUri: o.redirectUri ?? null,
        codeChallenge: o.codeChallenge ?? null,
      });
      cli.print({ code: issued.code });
    });
}
