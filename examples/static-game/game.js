// The static example game: HTML and this module, no server code. It loads the game SDK from the
// identity service, asks who is playing, and on the button signs the player in: the SDK gets an
// authorization code (with a PKCE pair) from the play page that frames this page, and the game
// redeems it itself, from the browser, as a public app (client_id and code_verifier, no secret).
//
// Settings come from the query: ?service=<service origin> and ?client_id=<a public app of the
// game's author> (default demo_game, from the demo data). Without ?service=, the service is the
// page that frames the game where the browser says so (location.ancestorOrigins: Chromium and
// Safari, not Firefox), else the address `npm run example:static` was given (SERVICE_URL, which it
// writes into <html data-service>), else http://localhost:3000.
const query = new URLSearchParams(location.search);
const service = new URL(query.get('service') || location.ancestorOrigins?.[0] || document.documentElement.dataset.service || 'http://localhost:3000').origin;

const form = document.getElementById('settings');
const clientIdInput = document.getElementById('client-id');
const button = document.getElementById('sign-in');
const status = document.getElementById('status');
clientIdInput.value = query.get('client_id') || 'demo_game';

const say = (text) => {
  status.textContent = text;
};

/**
 * What each refusal means for the player (the SDK's error codes: the service's /sdk/game.d.ts).
 * The play page answers one authorize per page load: after any answer, only a reload asks again.
 */
const REASONS = {
  no_account: 'You are not signed in to the service: sign in on the page around this game.',
  access_denied: 'You did not authorize the game. Reload the page to be asked again.',
  already_requested: 'The game already asked on this page load. Reload the page to ask again.',
  invalid_app: 'This app may not sign players in to this game (an unknown client id, or another author’s app).',
  invalid_scopes: 'The game asked for scopes the game flow does not grant.',
  invalid_request: 'The sign-in request was malformed.',
  server_error: 'The service failed. Reload the page to try again.',
  timeout: 'The service did not answer in time. Reload the page to try again.',
  not_framed: `Open this game from the service’s games page (${service}/games): it signs in through the page around it.`,
};

const reason = (err) =>
  err && err.name === 'GameAuthError' ? REASONS[err.code] || `Sign-in failed (${err.code}).` : `Sign-in failed: ${err && err.message}. Reload the page to try again.`;

/** POST /api/oauth/token as a public app: the code, our client_id and the PKCE verifier. */
async function redeem(clientId, code, codeVerifier) {
  const res = await fetch(`${service}/api/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', code, client_id: clientId, code_verifier: codeVerifier }),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(body.message);
  return body.access_token;
}

/** The OpenID Connect claims of the token: sub, and with `profile` preferred_username and picture. */
async function claims(accessToken) {
  const res = await fetch(`${service}/api/oauth/userinfo`, { headers: { Authorization: `Bearer ${accessToken}` } });
  const body = await res.json();
  if (!res.ok) throw new Error(body.message);
  return body;
}

function showPlayer(player) {
  const picture = document.createElement('img');
  picture.id = 'player-picture';
  picture.src = player.picture;
  picture.alt = `Profile picture of ${player.preferred_username}`;
  picture.width = 96;
  picture.height = 96;
  const name = document.getElementById('player-name');
  name.textContent = player.preferred_username;
  name.before(picture);
  document.getElementById('player').hidden = false;
}

let sdk;
try {
  sdk = await import(`${service}/sdk/game.js`);
} catch {
  say(
    `Could not load the game SDK from ${service}/sdk/game.js: is the identity service running at ${service}? ` +
      `If it runs elsewhere, add ?service=<its address> to this page's address (or start npm run example:static with SERVICE_URL=<its address>).`,
  );
}

if (sdk) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    button.disabled = true;
    say('Waiting for you to authorize the game…');
    try {
      const clientId = clientIdInput.value.trim();
      const { code, codeVerifier } = await sdk.authorize({ clientId, scopes: ['openid', 'profile'] });
      say('Signing in…');
      const player = await claims(await redeem(clientId, code, codeVerifier));
      showPlayer(player);
      say(`Signed in as ${player.preferred_username}.`);
    } catch (err) {
      say(reason(err));
    }
  });

  try {
    const { loggedIn } = await sdk.info();
    say(loggedIn ? 'You are signed in to the service. Sign the game in to play as yourself.' : REASONS.no_account);
    button.disabled = !loggedIn;
  } catch (err) {
    say(reason(err));
  }
}
