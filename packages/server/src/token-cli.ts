import { loadOrCreateLocalSecret } from './auth/auth-secret.js';
import { signLocalToken } from './auth/sign-token.js';
import { ConfigError, loadConfig } from './config.js';

const usage = 'usage: pnpm token <userId> [--admin]';

async function main(): Promise<void> {
  const args = process.argv.slice(2).filter((arg) => arg !== '--');
  const admin = args.includes('--admin');
  const positional = args.filter((arg) => !arg.startsWith('--'));
  const userId = positional[0];
  if (!userId || positional.length > 1 || args.some((arg) => arg.startsWith('--') && arg !== '--admin')) {
    process.stderr.write(`${usage}\n`);
    process.exit(64);
  }
  const config = loadConfig();
  if (config.auth.jwksUrl) {
    process.stderr.write(
      'AUTH_JWKS_URL is set: tokens come from your identity provider, not from this command\n',
    );
    process.exit(64);
  }
  const secret = config.auth.jwtSecret ?? loadOrCreateLocalSecret(config.dataDir);
  process.stdout.write(
    `${await signLocalToken(secret, {
      userId,
      admin,
      xmppDomain: config.chat.xmpp?.domain,
      audience: config.auth.audience,
      issuer: config.auth.issuer,
    })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exit(1);
});
