/** What {@link ejabberdConfiguration} needs to know. */
export interface EjabberdConfigurationInput {
  domain: string;
  mucDomain: string;
  /** Path of the JWK file holding the HS256 key. */
  jwkPath: string;
  c2sPort: number;
  apiPort: number;
  webSocketPort: number;
  /**
   * Who may run API commands: callers on loopback (no credentials), or only this account (a JID),
   * with HTTP basic authentication (its password being a JWT, under JWT authentication).
   * @default 'loopback'
   */
  apiAccess?: 'loopback' | { user: string };
}

/** The JSON Web Key (`kty: oct`) ejabberd's `jwt_key` reads to check HS256 tokens signed with `secret`. */
export function hs256JsonWebKey(secret: string): { kty: 'oct'; k: string } {
  return { kty: 'oct', k: Buffer.from(secret, 'utf8').toString('base64url') };
}

/**
 * An ejabberd.yml for the chat mirror: JWT authentication only (the token's `jid` claim names the
 * user), every listener on 127.0.0.1, mod_http_api open to loopback callers only, persistent
 * members-only MUC rooms with MAM and MUC/Sub (members post and receive without joining), and no
 * room creation by users (rooms are made through the API).
 */
export function ejabberdConfiguration(input: EjabberdConfigurationInput): string {
  const quote = (value: string) => JSON.stringify(value);
  const apiAccess = input.apiAccess ?? 'loopback';
  return `hosts:
  - ${quote(input.domain)}
loglevel: warning
log_rotate_count: 0
auth_method: [jwt]
jwt_key: ${quote(input.jwkPath)}
jwt_jid_field: "jid"
default_db: mnesia
acl:
  loopback:
    ip:
      - 127.0.0.0/8
access_rules:
  c2s:
    allow: all
  nobody:
    deny: all
shaper_rules:
  max_user_sessions: 10
api_permissions:
  "chat mirror administration":
    from:
      - mod_http_api
    who:
${apiAccess === 'loopback' ? '      ip: 127.0.0.1/8' : `      user: ${quote(apiAccess.user)}`}
    what: "*"
listen:
  -
    port: ${input.c2sPort}
    ip: "127.0.0.1"
    module: ejabberd_c2s
    max_stanza_size: 262144
    access: c2s
  -
    port: ${input.apiPort}
    ip: "127.0.0.1"
    module: ejabberd_http
    request_handlers:
      /api: mod_http_api
  -
    port: ${input.webSocketPort}
    ip: "127.0.0.1"
    module: ejabberd_http
    request_handlers:
      /ws: ejabberd_http_ws
modules:
  mod_disco: {}
  mod_ping: {}
  mod_stream_mgmt: {}
  mod_http_api: {}
  mod_muc_admin: {}
  mod_admin_extra: {}
  mod_mam:
    assume_mam_usage: true
    default: always
  mod_muc:
    host: ${quote(input.mucDomain)}
    access: all
    access_create: nobody
    access_persistent: nobody
    access_mam: all
    max_user_conferences: 10000
    default_room_options:
      persistent: true
      members_only: true
      mam: true
      allow_subscription: true
      public: false
      public_list: false
      anonymous: false
      allow_change_subj: false
      allow_user_invites: false
      moderated: false
`;
}

/**
 * Replaces what `pattern` matches in the documented configuration, which must match exactly once:
 * when the document changes shape, the error names the line it no longer finds.
 */
function replaceOnce(text: string, pattern: RegExp, replacement: string): string {
  const count = text.match(new RegExp(pattern.source, 'g'))?.length ?? 0;
  if (count !== 1) {
    throw new Error(`expected ${pattern} once in the documented ejabberd.yml but found it ${count} times`);
  }
  return text.replace(pattern, () => replacement);
}

/**
 * The documented configuration (`docs/deployment/ejabberd.yml`) with only names, ports and paths
 * changed: `hosts`, the MUC `host`, `jwt_key`, the three listener ports and, with `apiAccess` an
 * account, the `api_permissions` caller. Everything else runs exactly as documented.
 * @throws Error when a line to substitute is missing or repeated
 */
export function ejabberdConfigurationFromDocument(
  document: string,
  input: EjabberdConfigurationInput,
): string {
  const quote = (value: string) => JSON.stringify(value);
  const apiAccess = input.apiAccess ?? 'loopback';
  const substitutions: [RegExp, string][] = [
    [/- "chat\.example\.com"/, `- ${quote(input.domain)}`],
    [/host: "muc\.@HOST@"/, `host: ${quote(input.mucDomain)}`],
    [/jwt_key: "[^"]+"/, `jwt_key: ${quote(input.jwkPath)}`],
    [/port: 5222\b/, `port: ${input.c2sPort}`],
    [/port: 5281\b/, `port: ${input.apiPort}`],
    [/port: 5280\b/, `port: ${input.webSocketPort}`],
    ...(apiAccess === 'loopback'
      ? []
      : [[/\n {6}ip: 127\.0\.0\.0\/8\n/, `\n      user: ${quote(apiAccess.user)}\n`] as [RegExp, string]]),
  ];
  return substitutions.reduce(
    (configuration, [pattern, replacement]) => replaceOnce(configuration, pattern, replacement),
    document,
  );
}
