/** `keys list|rotate`: the ID token signing keys (docs/operations.md#signing-key-rotation). */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { InvalidInput } from '../domain/errors.js';
import { KeyRing } from '../oauth/keys.js';
import type { CliContext } from './context.js';

async function keyRing(cli: CliContext): Promise<KeyRing> {
  const config = cli.config();
  // The private keys are stored encrypted under SESSION_SECRET: a key made under a random one
  // would be unreadable to the server.
  if (config.sessionSecretGenerated) {
    throw new InvalidInput('SESSION_SECRET is not set: set it to the server\'s, which encrypts the signing keys');
  }
  const { store, now } = await cli.deps();
  return new KeyRing(store, config.sessionSecrets, now);
}

export function keyCommands(program: Command, cli: CliContext): void {
  const keys = program.command('keys').description('Manage the ID token signing keys');
  keys
    .command('list')
    .description('List the signing keys, newest first (never their private halves)')
    .action(async () => {
      const ring = await keyRing(cli);
      const keys = (await ring.list()).map((k) => ({ kid: k.kid, alg: k.alg, created_at: k.createdAt, retired_at: k.retiredAt, drops_at: k.dropsAt }));
      cli.print({ keys });
    });
  keys
    .command('rotate')
    .description(
      'Add a new signing key (generated, or --key-file) that signs from now on; the keys it replaces stay published for 15 minutes, and keys retired longer ago are deleted',
    )
    .option('--key-file <path>', 'an RSA private key (at least 2048 bits) in PKCS#8 PEM to sign with, instead of a generated one')
    .action(async (o: { keyFile?: string }) => {
      const pem = o.keyFile === undefined ? undefined : await readKeyFile(o.keyFile);
      const rotation = await (await keyRing(cli)).rotate(pem);
      cli.print({ kid: rotation.kid, retired: rotation.retired, retired_until: rotation.retiredUntil, dropped: rotation.dropped });
    });
}

async function readKeyFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new InvalidInput(`Cannot read the key file ${path}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
}
