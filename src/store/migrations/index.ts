import type { Knex } from 'knex';
import * as m001 from './001_initial.js';
import * as m002 from './002_games_sessions.js';
import * as m003 from './003_rate_limits.js';
import * as m004 from './004_session_owners.js';
import * as m006 from './006_account_control.js';
import * as m007 from './007_email_links.js';
import * as m008 from './008_sign_ins.js';
import * as m009 from './009_code_token.js';
import * as m010 from './010_public_clients.js';
import * as m011 from './011_openid.js';
import * as m012 from './012_passkeys.js';
import * as m013 from './013_totp.js';
import * as m014 from './014_code_amr.js';
import * as m015 from './015_moderation.js';
import * as m016 from './016_picture_store.js';
import * as m017 from './017_redeem_code_function.js';
import * as m018 from './018_recovery_code_slow_hash.js';
import * as m019 from './019_game_removals.js';
import * as m020 from './020_session_addresses.js';
import * as m021 from './021_refresh_tokens.js';
import * as m022 from './022_device_authorizations.js';
import * as m023 from './023_upstream_providers.js';
import * as m024 from './024_upstream_identities.js';
import * as m025 from './025_security_events.js';
import * as m026 from './026_upstream_trust_mfa.js';

/** Migrations are imported, not read from a folder: knex cannot load .ts files itself under tsx or vitest. */
const migrations: Record<string, Knex.Migration> = {
  '001_initial': m001,
  '002_games_sessions': m002,
  '003_rate_limits': m003,
  '004_session_owners': m004,
  '006_account_control': m006,
  '007_email_links': m007,
  '008_sign_ins': m008,
  '009_code_token': m009,
  '010_public_clients': m010,
  '011_openid': m011,
  '012_passkeys': m012,
  '013_totp': m013,
  '014_code_amr': m014,
  '015_moderation': m015,
  '016_picture_store': m016,
  '017_redeem_code_function': m017,
  '018_recovery_code_slow_hash': m018,
  '019_game_removals': m019,
  '020_session_addresses': m020,
  '021_refresh_tokens': m021,
  '022_device_authorizations': m022,
  '023_upstream_providers': m023,
  '024_upstream_identities': m024,
  '025_security_events': m025,
  '026_upstream_trust_mfa': m026,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => {
    const migration = migrations[name];
    if (!migration) throw new Error(`Unknown migration ${name}`);
    return migration;
  },
};
