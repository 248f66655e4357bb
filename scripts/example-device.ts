/**
 * `npm run example:device`: a command-line game that signs its player in with the device flow
 * (RFC 8628) through the typed client, against a running server: it shows a code, the player
 * enters it on the service's /device page from any browser and approves, and the game, polling
 * meanwhile, gets its tokens and shows the player's profile.
 *
 * The service is PUBLIC_URL (from the environment, as the server reads it); the app is the demo's
 * public device app, demo_tv_game, unless `--client-id <id>` names another whose grant_types
 * include urn:ietf:params:oauth:grant-type:device_code. Exits 0 once signed in, 1 when the player
 * denies, the code expires (10 minutes) or the service refuses, 130 on Ctrl-C.
 */
import { createIdentityClient, IdentityServiceError } from '../client/index.js';
import { loadConfig } from '../src/config.js';
import { DEMO } from '../src/demo.js';

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

const clientId = option('--client-id', DEMO.deviceApp.clientId);
const { publicUrl } = loadConfig(process.env);
const say = (line: string) => process.stdout.write(`${line}\n`);

const idp = createIdentityClient({ baseUrl: publicUrl, clientId });
const stop = new AbortController();
process.once('SIGINT', () => stop.abort());

async function main(): Promise<void> {
  say(`Service: ${publicUrl} (app ${clientId})`);
  const started = await idp.startDeviceAuthorization({ scope: ['openid', 'profile', 'userinfo', 'offline_access'] });
  say(`To sign in, open ${started.verification_uri} and enter the code ${started.user_code}`);
  say(`Or open ${started.verification_uri_complete}`);
  say('Waiting for you to approve...');
  const tokens = await idp.pollDeviceToken(started, { signal: stop.signal });

  const me = await idp.whois(tokens.access_token);
  say(`whois: ${JSON.stringify({ id: me.id, name: me.name })}`);
  const profile = await idp.userInfo(me.id);
  say(`users/info: ${JSON.stringify({ name: profile.name, bio: profile.bio, pfpTimestamp: profile.pfpTimestamp })}`);
  say(`Signed in as ${me.name}`);
}

main().catch((err: unknown) => {
  if (stop.signal.aborted) {
    process.stderr.write('Cancelled\n');
    process.exit(130);
  }
  // The player's own answer (or none in time): said as it is.
  if (err instanceof IdentityServiceError && (err.oauthError === 'access_denied' || err.oauthError === 'expired_token')) {
    process.stderr.write(`Not signed in: ${err.message}\n`);
  } else if (err instanceof IdentityServiceError) process.stderr.write(`error: ${err.status} ${err.message}\n`);
  else if (err instanceof TypeError && /fetch failed/.test(err.message)) {
    process.stderr.write(`error: no server answers at ${publicUrl}: start it with \`npm start\` (same PUBLIC_URL)\n`);
  } else process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
