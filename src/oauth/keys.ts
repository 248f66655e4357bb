/**
 * The ID token signing keys (docs/oauth.md#signing-keys): RS256 key pairs kept in the database,
 * so every instance signs with the same key and publishes the same JWKS. The private half is
 * stored only as a JWE (dir, A256GCM) under a key derived from SESSION_SECRET with HKDF; any of
 * the SESSION_SECRET values decrypts, the first encrypts. jose does every JOSE step.
 *
 * A rotation adds a key that signs from then on and retires the one before it; a retired key
 * stays published for RETIRED_KEY_KEPT_MS (longer than any ID token it signed lives), then goes.
 */
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  importPKCS8,
  SignJWT,
  type JWK,
  type JWTPayload,
} from 'jose';
import type { Logger } from 'pino';
import type { components } from '../../generated/api.js';
import { InvalidInput } from '../domain/errors.js';
import { seal, unseal } from '../security/sealed.js';
import type { SigningKeyRecord } from '../domain/signing-keys.js';
import { LIFETIMES } from '../domain/lifetimes.js';
import type { Store } from '../store/types.js';

/** How long an instance keeps signing with the key it last read before it reads the keys again. */
const SIGNING_KEY_CACHE_MS = 30_000;
/**
 * How long a retired key stays in the JWKS (LIFETIMES.retiredSigningKey): an ID token lives 10
 * minutes, an instance may sign with a retired key for up to SIGNING_KEY_CACHE_MS more, and clocks
 * differ; 15 minutes covers all.
 */
export const RETIRED_KEY_KEPT_MS = LIFETIMES.retiredSigningKey;

const ALG = 'RS256';
const KEY_ENCRYPTION_INFO = 'identity-profile-service: ID token signing key encryption';

type PrivateKey = Awaited<ReturnType<typeof importJWK>>;

interface SigningKey {
  kid: string;
  privateKey: PrivateKey;
}

interface Rotation {
  /** The key that signs from now on. */
  kid: string;
  /** Keys this rotation retired (published until they are dropped). */
  retired: string[];
  /** Keys retired long enough ago that this rotation deleted them. */
  dropped: string[];
  /** When the keys retired now will be dropped (by the first rotation after it), ms since epoch. */
  retiredUntil: number;
}

/** The public JWK Set (RFC 7517 5) as the JWKS endpoint publishes it. */
type PublicJwks = components['schemas']['Jwks'];

export class KeyRing {
  private cached: { readAt: number; key: SigningKey } | undefined;
  /** Private keys already decrypted, by kid (a key never changes under its kid). */
  private readonly decrypted = new Map<string, PrivateKey>();
  private creating: Promise<SigningKey> | undefined;

  constructor(
    private readonly store: Pick<Store, 'signingKeys'>,
    /** SESSION_SECRET's values: the first encrypts new keys, any of them decrypts. */
    private readonly secrets: readonly string[],
    private readonly now: () => number,
    private readonly logger?: Pick<Logger, 'warn'>,
  ) {
    if (secrets.length === 0) throw new Error('KeyRing needs at least one secret');
  }

  /** Signs the claims as an ID token: RS256, with the signing key's kid. */
  async sign(claims: JWTPayload): Promise<string> {
    const key = await this.signingKey();
    return new SignJWT(claims).setProtectedHeader({ alg: ALG, kid: key.kid, typ: 'JWT' }).sign(key.privateKey);
  }

  /** The key that signs now: the newest unretired key this instance can decrypt; made at first start. */
  async signingKey(): Promise<SigningKey> {
    const now = this.now();
    if (this.cached && now - this.cached.readAt < SIGNING_KEY_CACHE_MS) return this.cached.key;
    const key = await this.readSigningKey();
    this.cached = { readAt: now, key };
    return key;
  }

  /** The published keys: every key still signing, and the retired ones not yet dropped. */
  async jwks(): Promise<PublicJwks> {
    // A key exists before anything is published (the first start makes it).
    await this.signingKey();
    const cutoff = this.now() - RETIRED_KEY_KEPT_MS;
    const keys = (await this.store.signingKeys.listSigningKeys()).filter((k) => k.retiredAt === null || k.retiredAt > cutoff);
    return { keys: keys.map((k) => JSON.parse(k.publicJwk) as PublicJwks['keys'][number]) };
  }

  /**
   * Adds a new signing key (generated, or the operator's PKCS#8 PEM RSA key), retires the others
   * and drops the keys retired more than RETIRED_KEY_KEPT_MS ago.
   */
  async rotate(pem?: string): Promise<Rotation> {
    const now = this.now();
    const before = (await this.store.signingKeys.listSigningKeys()).filter((k) => k.retiredAt === null).map((k) => k.kid);
    const record = await this.newKey(pem, now);
    await this.store.signingKeys.addSigningKey(record, now);
    const dropped = await this.store.signingKeys.dropSigningKeys(now - RETIRED_KEY_KEPT_MS);
    this.cached = undefined;
    return { kid: record.kid, retired: before, dropped, retiredUntil: now + RETIRED_KEY_KEPT_MS };
  }

  /** Every key with its state, newest first (for the operator; never the private half). */
  async list(): Promise<{ kid: string; alg: string; createdAt: number; retiredAt: number | null; dropsAt: number | null }[]> {
    return (await this.store.signingKeys.listSigningKeys()).map((k) => ({
      kid: k.kid,
      alg: k.alg,
      createdAt: k.createdAt,
      retiredAt: k.retiredAt,
      dropsAt: k.retiredAt === null ? null : k.retiredAt + RETIRED_KEY_KEPT_MS,
    }));
  }

  private async readSigningKey(): Promise<SigningKey> {
    const unreadable: string[] = [];
    for (const record of await this.store.signingKeys.listSigningKeys()) {
      if (record.retiredAt !== null) continue;
      const privateKey = await this.decrypt(record);
      if (privateKey) return { kid: record.kid, privateKey };
      unreadable.push(record.kid);
    }
    if (unreadable.length > 0) {
      this.logger?.warn(
        { kids: unreadable },
        'no SESSION_SECRET value decrypts the signing keys: a new key is made and these are retired (set the same SESSION_SECRET on every instance)',
      );
    }
    // First start (or keys nobody here can read): make one. Concurrent callers share the one made.
    this.creating ??= this.createKey(unreadable).finally(() => (this.creating = undefined));
    return this.creating;
  }

  private async createKey(unreadable: string[]): Promise<SigningKey> {
    const now = this.now();
    const record = await this.newKey(undefined, now);
    await this.store.signingKeys.addSigningKey(record, null);
    for (const kid of unreadable) await this.store.signingKeys.retireSigningKey(kid, now);
    const privateKey = await this.decrypt(record);
    if (!privateKey) throw new Error('a key just made cannot be decrypted');
    return { kid: record.kid, privateKey };
  }

  private async newKey(pem: string | undefined, now: number): Promise<SigningKeyRecord> {
    let privateJwk: JWK;
    if (pem === undefined) {
      const { privateKey } = await generateKeyPair(ALG, { modulusLength: 2048, extractable: true });
      privateJwk = await exportJWK(privateKey);
    } else {
      privateJwk = await exportJWK(await importOperatorKey(pem));
    }
    const kid = await calculateJwkThumbprint(privateJwk);
    const { kty, n, e } = privateJwk;
    const publicJwk = { kty, n, e, kid, use: 'sig', alg: ALG };
    const privateJwe = await seal(this.secrets[0]!, KEY_ENCRYPTION_INFO, JSON.stringify({ ...privateJwk, kid, alg: ALG }));
    return { kid, alg: ALG, publicJwk: JSON.stringify(publicJwk), privateJwe, createdAt: now, retiredAt: null };
  }

  private async decrypt(record: SigningKeyRecord): Promise<PrivateKey | undefined> {
    const known = this.decrypted.get(record.kid);
    if (known) return known;
    const plaintext = await unseal(this.secrets, KEY_ENCRYPTION_INFO, record.privateJwe);
    if (plaintext === undefined) return undefined;
    try {
      const key = await importJWK(JSON.parse(plaintext) as JWK, ALG);
      this.decrypted.set(record.kid, key);
      return key;
    } catch {
      return undefined;
    }
  }
}

async function importOperatorKey(pem: string): Promise<Awaited<ReturnType<typeof importPKCS8>>> {
  let key: Awaited<ReturnType<typeof importPKCS8>>;
  try {
    key = await importPKCS8(pem, ALG, { extractable: true });
  } catch {
    throw new InvalidInput('The key file must hold an RSA private key in PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----")');
  }
  const modulusBits = (key.algorithm as unknown as { modulusLength: number }).modulusLength;
  if (modulusBits < 2048) throw new InvalidInput(`The RSA key must have at least 2048 bits, this one has ${modulusBits}`);
  return key;
}

/**
 * Whether `secrets` are the server's: they open the signing key the server signs with now (the
 * newest key still signing), which only the server's SESSION_SECRET sealed. Undefined when no key
 * signs yet (the server never started on this database): nothing sealed tells.
 */
export async function opensSigningKey(store: Pick<Store, 'signingKeys'>, secrets: readonly string[]): Promise<boolean | undefined> {
  const signing = (await store.signingKeys.listSigningKeys()).find((k) => k.retiredAt === null);
  if (!signing) return undefined;
  return (await unseal(secrets, KEY_ENCRYPTION_INFO, signing.privateJwe)) !== undefined;
}
