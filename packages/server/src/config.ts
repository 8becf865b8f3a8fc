import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import path from 'node:path';
import { type IceServer, iceServerSchema } from '@collab-suite/webrtc-sfu';
import { z } from 'zod';
import { redactSettingValue } from './http/redact.js';
import {
  type MeetingBandwidthOptions,
  meetingBandwidthOptions,
  meetingBandwidthVariables,
} from './meeting-bandwidth-config.js';

const integer = (minimum: number) => z.coerce.number().int().min(minimum);

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** What Express's `trust proxy` takes: a boolean, hops, or addresses, CIDR ranges and named ranges. */
function isTrustedProxySetting(value: string): boolean {
  if (/^(true|false|\d+)$/.test(value)) return true;
  return value.split(',').every((part) => {
    const [address, bits, extra] = part.trim().split('/');
    if (extra !== undefined || address === undefined) return false;
    if (PROXY_NAMES.has(address) && bits === undefined) return true;
    const family = isIP(address);
    if (family === 0) return false;
    return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
  });
}
/** An `http(s)://host[:port]` origin, optionally with a trailing slash: nothing else of a URL. */
function isOrigin(value: string): boolean {
  return /^https?:\/\/[^/?#@]+\/?$/i.test(value) && URL.canParse(value);
}
const booleanText = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');
const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));

/**
 * A database setting: a SQLite file path (optionally `sqlite:`-prefixed) or a `postgres://` URL.
 * Any other `scheme://` is a mistake (e.g. `mysql://` or a misspelt `postgress://`), never a file name.
 */
const databaseLocation = optionalText.pipe(
  z
    .string()
    .superRefine((value, context) => {
      const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1];
      if (scheme === undefined || /^(postgres|postgresql|sqlite)$/i.test(scheme)) return;
      context.addIssue({
        code: 'custom',
        message: `expected a SQLite file path or a postgres:// URL but received a ${scheme}:// URL`,
      });
    })
    .optional(),
);

/** A URL with one of `schemes`. */
const urlWith = (schemes: readonly string[]) =>
  optionalText.pipe(
    z
      .url()
      // Unparsable values are left to url(), whose message says so.
      .refine(
        (value) => !URL.canParse(value) || schemes.includes(new URL(value).protocol.replace(/:$/, '')),
        {
          message: `expected a ${schemes.map((scheme) => `${scheme}://`).join(' or ')} URL`,
        },
      )
      .optional(),
  );

/** A lower-case DNS name, as XMPP domains are written. */
const xmppDomain = z
  .string()
  .regex(/^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/, {
    message: 'expected a lower-case domain name like chat.example.com',
  });

/** A comma-separated variable: its trimmed, non-empty entries checked by `list`; unset stays undefined. */
function commaList<Output>(list: z.ZodType<Output, string[]>) {
  return optionalText.pipe(
    z
      .string()
      .transform((value) =>
        value
          .split(',')
          .map((entry) => entry.trim())
          .filter((entry) => entry !== ''),
      )
      .pipe(list)
      .optional(),
  );
}

const addressList = commaList(
  z.array(z.union([z.ipv4(), z.ipv6()], { message: 'expected comma-separated IP addresses' })),
);

/**
 * Every environment variable the server reads, with its default. Parsed once at start-up by
 * {@link loadConfig}; the README's configuration table mirrors this schema.
 */
export const environmentSchema = z.object({
  /** TCP port to listen on. */
  PORT: integer(0).max(65535).default(8080),
  /** Interface to bind. */
  HOST: z.string().min(1).default('0.0.0.0'),
  /** Folder for the embedded defaults (SQLite files, generated secrets, blobs). */
  DATA_DIR: z.string().min(1).default('./data'),
  /** Folder of stored files to preview; default `<DATA_DIR>/storage`. */
  STORAGE_DIR: optionalText,
  /** Base URL of an HTTP storage service (`GET /download?node=&version=&type=`); overrides STORAGE_DIR. */
  STORAGE_URL: urlWith(['http', 'https']),
  /** Time allowed for one storage download, in milliseconds. */
  STORAGE_TIMEOUT_MS: integer(1).default(10_000),
  /** Largest stored file the server downloads, in bytes. */
  STORAGE_MAX_BYTES: integer(1).default(100 * 1024 * 1024),
  /** Largest uploaded file accepted by the preview routes, in bytes (413 past it). */
  PREVIEW_MAX_UPLOAD_BYTES: integer(1).default(50 * 1024 * 1024),
  /** Largest input image, in pixels (width x height), refused before decoding (400 past it). */
  PREVIEW_MAX_INPUT_PIXELS: integer(1).default(100_000_000),
  /** Largest side of a requested output image, in pixels (400 past it). */
  PREVIEW_MAX_OUTPUT_SIDE: integer(1).default(10_000),
  /** Renders running at once. */
  PREVIEW_MAX_CONCURRENT_RENDERS: integer(1).default(4),
  /** Renders waiting for a slot; past it requests get 503 with Retry-After. */
  PREVIEW_MAX_QUEUED_RENDERS: integer(0).default(32),
  /** Longest one image render, PDF render or page copy may work, in seconds (400 past it). */
  PREVIEW_RENDER_TIMEOUT_SECONDS: integer(1).max(3600).default(20),
  /** Worker threads for PDF work (mupdf, pdf-lib); default one per core. */
  PREVIEW_PDF_WORKERS: integer(1).max(256).optional(),
  /** Most pages one PDF or document preview may copy (the whole document is never limited). */
  PREVIEW_MAX_PDF_PAGES: integer(1).default(500),
  /** Most pixels of a rendered PDF page for a thumbnail; larger renders are scaled down. */
  PREVIEW_MAX_RENDER_PIXELS: integer(1).default(16_000_000),
  /** Office documents -> PDF: `libreoffice` (warm local pool), `remote` (DOCUMENT_CONVERTER_URL) or `none`. */
  DOCUMENT_CONVERTER: z.enum(['libreoffice', 'remote', 'none']).default('libreoffice'),
  /** Base URL of a Collabora Online compatible converter (`POST /cool/convert-to/pdf`), for `remote`. */
  DOCUMENT_CONVERTER_URL: urlWith(['http', 'https']),
  /** Longest one conversion may take, in milliseconds (then 503; a local instance is restarted). */
  DOCUMENT_CONVERSION_TIMEOUT_MS: integer(1).default(30_000),
  /** Locale for number and date formats when a request has no `locale`. */
  DOCUMENT_DEFAULT_LOCALE: z.string().min(2).default('en-US'),
  /** Bytes of converted PDFs kept in memory, in front of the disk cache (0 turns it off). */
  DOCUMENT_CACHE_MAX_BYTES: integer(0).default(64 * 1024 * 1024),
  /** Seconds a document that crashed or timed out the converter twice is refused without converting. */
  DOCUMENT_FAILURE_MEMORY_SECONDS: integer(1).default(3600),
  /** Folder of the preview result cache; default `<DATA_DIR>/preview-cache`. */
  PREVIEW_CACHE_DIR: optionalText,
  /** Bytes of renders and converted PDFs kept on disk, least recently used out first (0: no disk cache). */
  PREVIEW_CACHE_MAX_BYTES: integer(0).default(1024 * 1024 * 1024),
  /**
   * Who may GET/HEAD previews of stored files: `none` (anyone who reaches the server: only for a
   * preview service the public cannot reach, as the original behind its product's proxy), `token`
   * (a valid bearer token or ZM_AUTH_TOKEN cookie) or `signed` (a path signed with PREVIEW_URL_SIGNING_KEY).
   */
  PREVIEW_STORED_AUTH: z.enum(['none', 'token', 'signed']).default('none'),
  /**
   * How long the storage's answer that a stored version exists is reused before a kept render of it
   * is served again, in milliseconds (0: ask every time); at most 10 s, so a deletion shows quickly.
   */
  PREVIEW_STORED_EXISTENCE_TTL_MS: integer(0).max(10_000).default(2000),
  /** HMAC-SHA256 key of signed preview paths, at least 32 bytes; needed by PREVIEW_STORED_AUTH=signed. */
  PREVIEW_URL_SIGNING_KEY: optionalText.pipe(
    z
      .string()
      .refine((value) => Buffer.byteLength(value) >= 32, {
        message:
          'expected at least 32 bytes: HMAC-SHA256 needs a key as long as its hash (e.g. openssl rand -base64 48)',
      })
      .optional(),
  ),
  /** Serve a Collabora compatible `POST /cool/convert-to/pdf` so other nodes can convert here. */
  DOCUMENT_CONVERT_ENDPOINT: booleanText.default(false),
  /** The `soffice` program (name on PATH or path) of the local pool. */
  LIBREOFFICE_PATH: z.string().min(1).default('soffice'),
  /** A python 3 with the `uno` module (python3-uno); default Debian's /usr/bin/python3. */
  LIBREOFFICE_PYTHON: optionalText,
  /** Warm soffice instances; default one per core. */
  LIBREOFFICE_INSTANCES: optionalText.pipe(
    z
      .string()
      .regex(/^[1-9][0-9]{0,3}$/, 'expected a whole number of instances, at least 1')
      .transform(Number)
      .optional(),
  ),
  /** Conversions waiting for a free instance; past it 503 with Retry-After. */
  LIBREOFFICE_MAX_QUEUED: integer(0).default(16),
  /** An instance is restarted after this many conversions (LibreOffice's memory grows). */
  LIBREOFFICE_RESTART_AFTER: integer(1).default(100),
  /** Chat database: a SQLite file path or a `postgres://` URL; default `<DATA_DIR>/chat.db`. */
  CHAT_DATABASE_URL: databaseLocation,
  /**
   * Longest wait for a PostgreSQL connection (chat and SAML), in milliseconds: while PostgreSQL is
   * away, requests that need it answer 503 `dependency_unavailable` with Retry-After within this.
   */
  DATABASE_CONNECT_TIMEOUT_MS: integer(1).max(600_000).default(2000),
  /**
   * Longest wait for one PostgreSQL statement's answer, in milliseconds (then 503); 0: no limit.
   * Every statement of the pools (requests and background work, all short and batched) is bound by
   * it; schema migrations at start-up run on a connection of their own without it.
   */
  DATABASE_QUERY_TIMEOUT_MS: integer(0).max(3_600_000).default(2000),
  /** Folder of chat attachment and room picture bytes; default `<DATA_DIR>/chat-blobs`. */
  CHAT_BLOB_DIR: optionalText,
  /** Redis URL carrying chat events between server instances; default: events stay in this process. */
  CHAT_REDIS_URL: urlWith(['redis', 'rediss']),
  /** Most chat events kept in memory while Redis is away (published in order once it returns); past it users are told to resync. */
  CHAT_EVENT_BACKLOG_MAX: integer(1).default(10_000),
  /** Oldest a kept chat event may be when Redis returns, in seconds; older ones are dropped and their users told to resync. */
  CHAT_EVENT_BACKLOG_SECONDS: integer(1).default(60),
  /** Longest wait for a Redis command of the chat event bus and the rate limits, in milliseconds; commands are refused at once while Redis is down. */
  CHAT_REDIS_TIMEOUT_MS: integer(100).max(60_000).default(2000),
  /** Base URL of a user service asked whether invitees exist (`GET /users/id/{id}`); default: every UUID is a user. */
  CHAT_USER_DIRECTORY_URL: urlWith(['http', 'https']),
  /**
   * Upload leftovers (temporary files, blobs whose row was never written because the process died)
   * older than this are removed at start-up and then every this many seconds; 0 turns the sweep off.
   */
  CHAT_BLOB_SWEEP_SECONDS: integer(0).default(3600),
  /** Largest chat attachment, in bytes (413 past it, refused before it is stored). */
  CHAT_MAX_ATTACHMENT_BYTES: integer(1).default(50 * 1024 * 1024),
  /** Largest room picture, in bytes (400 past it). */
  CHAT_MAX_PICTURE_BYTES: integer(1).default(512 * 1024),
  /** Most rooms one user may be a member of (409 `too_many_rooms` past it): bounds one `GET /rooms`. */
  CHAT_MAX_ROOMS_PER_USER: integer(1).default(10_000),
  /** Rooms one user may create per minute (429 with Retry-After past it), across instances with Redis. */
  CHAT_ROOM_CREATIONS_PER_MINUTE: integer(1).default(60),
  /** Most messages one `POST /rooms/{id}/forward` carries (400 past it); the body is at most 2 MB too. */
  CHAT_MAX_FORWARDED_MESSAGES: integer(1).default(500),
  /** Most people in a group or temporary room. */
  CHAT_MAX_ROOM_MEMBERS: integer(2).default(128),
  /**
   * Base URL of ejabberd's mod_http_api (e.g. `http://127.0.0.1:5281/api`): rooms are mirrored into
   * MUC rooms and room messages sent as stanzas. Unset, chat runs without XMPP (messages are events).
   */
  CHAT_XMPP_URL: urlWith(['http', 'https']),
  /** XMPP domain of users (`<userId>@domain`); required with CHAT_XMPP_URL. */
  CHAT_XMPP_DOMAIN: optionalText.pipe(xmppDomain.optional()),
  /** Domain of the MUC service (`<roomId>@domain`); default `muc.<CHAT_XMPP_DOMAIN>`. */
  CHAT_XMPP_MUC_DOMAIN: optionalText.pipe(xmppDomain.optional()),
  /** Account (a JID) for HTTP basic authentication to mod_http_api; unset: ejabberd trusts this address. */
  CHAT_XMPP_API_USER: optionalText,
  /** Password of CHAT_XMPP_API_USER; set both or neither. */
  CHAT_XMPP_API_PASSWORD: optionalText,
  /** XMPP over WebSocket URL that browsers use (given to the chat page); unset: the page cannot chat. */
  CHAT_XMPP_WEBSOCKET_URL: urlWith(['ws', 'wss']),
  /**
   * How long the mirror's lease on the outbox holds, in milliseconds: one process drains at a time,
   * and when it dies another takes over once its lease has run out.
   */
  CHAT_XMPP_LEASE_MS: integer(1000).max(3_600_000).default(30_000),
  /** How often an idle drainer looks at the outbox, in milliseconds (renewing its lease). */
  CHAT_XMPP_POLL_MS: integer(50).max(3_600_000).default(1000),
  /** A JSON file `{ "<userId>": "<display name>" }` the chat page shows names from; unset: token names and ids. */
  CHAT_PAGE_DIRECTORY: optionalText,
  /** Public IPv4/IPv6 addresses of a 1:1 NAT in front of this server, comma-separated, announced as media candidates. */
  MEETING_ICE_ANNOUNCED_ADDRESSES: addressList,
  /** Extra local addresses to gather media candidates on, comma-separated (loopback is skipped unless listed). */
  MEETING_ICE_HOST_ADDRESSES: addressList,
  /** When set, only candidate pairs between these addresses are tried (single-homed servers, tests). */
  MEETING_ICE_ONLY_ADDRESSES: addressList,
  /** UDP port range of media sockets, `MIN-MAX` (open it in the firewall); default: any free port. */
  MEETING_ICE_PORT_RANGE: optionalText.pipe(
    z
      .string()
      .regex(/^\d{4,5}-\d{4,5}$/, 'expected MIN-MAX, e.g. 40000-40999')
      .transform((value) => value.split('-').map(Number) as [number, number])
      .refine(([min, max]) => min >= 1024 && max <= 65535 && min < max, 'expected 1024 <= MIN < MAX <= 65535')
      .optional(),
  ),
  /** STUN/TURN servers handed to meeting clients: a JSON array of RTCIceServer (`urls`, `username`, `credential`). */
  MEETING_ICE_SERVERS: optionalText.pipe(
    z
      .string()
      .transform((value, context) => {
        try {
          return JSON.parse(value) as unknown;
        } catch {
          context.addIssue({ code: 'custom', message: 'expected a JSON array of RTCIceServer objects' });
          return z.NEVER;
        }
      })
      .pipe(z.array(iceServerSchema))
      .optional(),
  ),
  /**
   * STUN server the SFU itself asks for its public address, as `stun:host:port` (at most one); unset,
   * the media process contacts no outside server. Separate from MEETING_ICE_SERVERS (for clients).
   */
  MEETING_SFU_STUN_SERVERS: commaList(
    z
      .array(z.string().regex(/^stun:[^\s/]+$/, 'expected a stun:host:port URL'))
      .max(1, 'expected at most one STUN server (the SFU asks only one)'),
  ),
  /** Most participants of one meeting (each costs a decode in the audio mix and a stream per watcher). */
  MEETING_MAX_PARTICIPANTS: integer(1).default(100),
  /** How often scheduled meetings past their expiration are looked for and removed, in milliseconds. */
  MEETING_EXPIRY_SWEEP_MS: integer(1000).default(60_000),
  /**
   * The least time between two keyframe requests the SFU sends one publisher for one layer, in
   * milliseconds: subscribers' requests within it are answered by the same keyframe.
   */
  MEETING_KEYFRAME_REQUEST_INTERVAL_MS: integer(0).max(60_000).default(500),
  /**
   * How long an `/events` session that dropped stays resumable with its queue id, keeping its
   * meeting participations, in seconds; 0 ends them when the socket closes.
   */
  MEETING_RECONNECT_GRACE_SECONDS: integer(0).max(3600).default(15),
  /**
   * Stop meetings left active by a previous run at start (their media lived in that process).
   * `auto`: only with SQLite, which one process owns; PostgreSQL may be shared by running instances.
   */
  MEETING_STOP_ACTIVE_AT_START: z.enum(['auto', 'true', 'false']).default('auto'),
  /** The SFU's bandwidth estimation and layer allocation (`MEETING_BANDWIDTH_*`). */
  ...meetingBandwidthVariables,
  /** Bandwidth probes before a subscriber's stream climbs a layer; unset: the SFU's default (on). */
  MEETING_BANDWIDTH_PROBES: booleanText.optional(),
  /** Most participants heard at once in the audio mix, the loudest; unset: the SFU's default (3). */
  MEETING_AUDIO_MIXED_SPEAKERS: integer(1).max(1_000).optional(),
  /**
   * What this process runs, comma-separated: `api` (the HTTP API; alone it needs PostgreSQL and
   * Redis and drives media nodes), `media` (alone: a media node on Redis, serving only `/health/`).
   */
  NODE_ROLES: z
    .string()
    .transform((value) => [...new Set(value.split(',').map((role) => role.trim()))].sort().join(','))
    .pipe(z.enum(['api', 'media', 'api,media'], { message: 'expected api, media or api,media' }))
    .default('api,media'),
  /** This node's id in the cluster (letters, digits, `.`, `_`, `-`); default: a random UUID per start. */
  NODE_ID: optionalText.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, 'expected 1 to 64 letters, digits, dots, underscores or dashes')
      .optional(),
  ),
  /** Participants a media node takes at most; API nodes place no meeting on a full one. */
  MEDIA_NODE_CAPACITY: integer(1).default(500),
  /** How a media node names where its media is reached, for operators; default its announced or host address. */
  MEDIA_NODE_ADDRESS: optionalText,
  /**
   * Heartbeat period of API and media nodes in Redis, in milliseconds; a node is taken for dead
   * after 5 periods without one and its meetings or sessions are cleaned up by the others.
   */
  CLUSTER_HEARTBEAT_MS: integer(100).max(5000).default(2000),
  /** Prefix of every Redis key and channel of the cluster, so deployments can share one Redis. */
  CLUSTER_REDIS_PREFIX: z.string().min(1).default('collab-suite:cluster:'),
  /** URL path the SAML configuration API is mounted under. */
  SAML_BASE_PATH: z
    .string()
    .regex(/^(\/[A-Za-z0-9._~-]+)+$/)
    .default('/admin/auth'),
  /** SAML property store: a SQLite file path or a `postgres://` URL; default `<DATA_DIR>/saml.db`. */
  SAML_DATABASE_URL: databaseLocation,
  /** Largest SAML document accepted, in the body (413 past it) or downloaded from a URL (400 past it). */
  SAML_MAX_DOCUMENT_BYTES: integer(1).default(1024 * 1024),
  /** Time allowed to fetch a SAML document from a URL, redirects included, in milliseconds. */
  SAML_FETCH_TIMEOUT_MS: integer(1).default(10_000),
  /** Comma-separated private IPs or CIDR ranges SAML URL imports may reach anyway; default none. */
  SAML_FETCH_ALLOWED_ADDRESSES: optionalText,
  /** /saml-validate warns about certificates expiring within this many days. */
  SAML_CERT_EXPIRY_WARNING_DAYS: integer(0).default(30),
  /** HS256 secret for bearer tokens; default: a random secret kept in `<DATA_DIR>/auth-secret`. */
  AUTH_JWT_SECRET: optionalText.pipe(
    z
      .string()
      .refine((value) => Buffer.byteLength(value) >= 32, {
        message:
          'expected at least 32 bytes: HS256 needs a key as long as its hash (e.g. openssl rand -base64 48)',
      })
      .optional(),
  ),
  /** JWKS URL for RS256/ES256 tokens, used instead of the HS256 secret when set. */
  AUTH_JWKS_URL: urlWith(['http', 'https']),
  /** The `aud` every token must carry (HS256 and JWKS); unset: not checked. Set it with a JWKS in production. */
  AUTH_JWT_AUDIENCE: optionalText,
  /** The `iss` every token must carry (HS256 and JWKS); unset: not checked. Set it with a JWKS in production. */
  AUTH_JWT_ISSUER: optionalText,
  /** Accept tokens without `exp` (valid forever); default: refused with 401. */
  AUTH_ALLOW_TOKENS_WITHOUT_EXPIRY: booleanText.default(false),
  /** Refuse tokens issued (`iat`) more than this many seconds ago, whatever their `exp`; unset: no bound. */
  AUTH_MAX_TOKEN_AGE: integer(1).optional(),
  /** Longest one fetch of AUTH_JWKS_URL may take, in milliseconds; a failed fetch is then remembered 5 s (503). */
  AUTH_JWKS_TIMEOUT_MS: integer(1).max(60_000).default(3000),
  /**
   * Origins (`https://app.example.com`), comma-separated, whose pages may make requests authenticated
   * by the ZM_AUTH_TOKEN cookie besides PUBLIC_URL (or, without it, the server's own origin).
   */
  ALLOWED_ORIGINS: commaList(
    z.array(
      z
        .string()
        .refine(isOrigin, {
          message: 'expected origins like https://app.example.com (scheme, host and port only)',
        })
        .transform((entry) => new URL(entry).origin),
    ),
  ),
  /**
   * Which proxies in front are trusted to name the client (X-Forwarded-For), as Express reads it:
   * `false`, `true`, a number of hops, or comma-separated addresses/CIDRs (`loopback`, `10.0.0.0/8`).
   * The client address is what per-client limits count and request logs show.
   */
  TRUST_PROXY: z
    .string()
    .default('false')
    .refine(isTrustedProxySetting, {
      message:
        'expected true, false, a number of hops, or comma-separated IP addresses, CIDR ranges or the names loopback, linklocal, uniquelocal',
    })
    .transform((value): boolean | number | string =>
      value === 'true' ? true : value === 'false' ? false : /^\d+$/.test(value) ? Number(value) : value,
    ),
  /** Uploads to the preview routes per client address and minute (429 with Retry-After past it); 0: no limit. */
  PREVIEW_UPLOADS_PER_MINUTE: integer(0).default(120),
  /**
   * A second port serving `/metrics` and `/health/` with every detail and no auth, for a private
   * network (bound to MANAGEMENT_HOST); `/metrics` then leaves the public port.
   */
  MANAGEMENT_PORT: integer(0).max(65535).optional(),
  /** Interface of MANAGEMENT_PORT. */
  MANAGEMENT_HOST: z.string().default('127.0.0.1'),
  /** Show `/health/` details to anyone; default: names and states for all, details for admin tokens. */
  HEALTH_DETAILS_PUBLIC: booleanText.default(false),
  /** Serve `/metrics` to anyone (e.g. a scraper on a private network); default: admin tokens only. */
  METRICS_PUBLIC: booleanText.default(false),
  /** Public base URL of this server, used where absolute URLs are produced. */
  PUBLIC_URL: urlWith(['http', 'https']),
  /** pino log level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Level of the line each successful request (2xx, 3xx) logs; `debug` leaves them out at the default level. */
  LOG_REQUEST_LEVEL: z.enum(['info', 'debug', 'trace']).default('info'),
  /**
   * The whole time from SIGTERM to exit, in milliseconds: requests in flight get all but min(2 s,
   * half) of it, closing the features the rest; past it the process exits anyway (code 1). Ten
   * seconds lets an upload of a large image finish and stays well under systemd's TimeoutStopSec.
   */
  SHUTDOWN_TIMEOUT_MS: integer(0).default(10_000),
  /** Serve the interactive API docs at /docs. */
  DOCS_ENABLED: booleanText.default(true),
});

/** The server's configuration, fully defaulted. */
export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  /** Bounds of every PostgreSQL pool (chat and SAML), in milliseconds. */
  database: { connectTimeoutMs: number; queryTimeoutMs: number };
  storage: { directory: string; url: string | undefined; timeoutMs: number; maxBytes: number };
  preview: {
    maxUploadBytes: number;
    maxInputPixels: number;
    maxOutputSide: number;
    maxConcurrentRenders: number;
    maxQueuedRenders: number;
    renderTimeoutSeconds: number;
    /** Undefined: one per core. */
    pdfWorkers: number | undefined;
    uploadsPerMinute: number;
    maxPdfPages: number;
    maxRenderPixels: number;
    /** The on-disk cache of renders of stored files and of converted PDFs. */
    cache: { directory: string; maxBytes: number };
    /** Who may read previews of stored files (PREVIEW_STORED_AUTH), and the key of signed paths. */
    storedAccess: StoredPreviewAccess;
    /** How long an answer of the storage that a version exists is reused, in milliseconds. */
    storedExistenceTtlMs: number;
  };
  document: {
    converter: 'libreoffice' | 'remote' | 'none';
    converterUrl: string | undefined;
    conversionTimeoutMs: number;
    defaultLocale: string;
    cacheMaxBytes: number;
    failureMemorySeconds: number;
    convertEndpoint: boolean;
    libreOffice: {
      sofficePath: string;
      pythonPath: string | undefined;
      instances: number | undefined;
      maxQueued: number;
      restartAfterConversions: number;
    };
  };
  chat: {
    databaseUrl: string;
    blobDirectory: string;
    redisUrl: string | undefined;
    /** The event bus's backlog while Redis is away, and its command timeout. */
    eventBacklog: { maxEvents: number; maxSeconds: number };
    redisTimeoutMs: number;
    /** Age past which upload leftovers are swept, and the sweep period, in seconds; 0: no sweep. */
    blobSweepSeconds: number;
    userDirectoryUrl: string | undefined;
    maxAttachmentBytes: number;
    maxPictureBytes: number;
    maxRoomMembers: number;
    maxRoomsPerUser: number;
    maxForwardedMessages: number;
    roomCreationsPerMinute: number;
    /** The XMPP mirror (ejabberd), when configured. */
    xmpp: XmppConfig | undefined;
    /** The chat page's directory of display names (a JSON file), when configured. */
    pageDirectoryFile: string | undefined;
  };
  meetings: {
    announcedAddresses: string[];
    hostAddresses: string[];
    onlyAddresses: string[];
    portRange: [number, number] | undefined;
    iceServers: IceServer[];
    /** STUN server(s) the SFU asks for its own public address; empty: none. */
    sfuStunServers: string[];
    maxParticipants: number;
    /** Least time between keyframe requests to one publisher's layer (the SFU's `limits.keyframeRequestIntervalMs`). */
    keyframeRequestIntervalMs: number;
    /** Most participants mixed in one audio frame (the SFU's `audio.mixedSpeakers`); unset: its default. */
    audioMixedSpeakers: number | undefined;
    expirySweepMs: number;
    /** How long a dropped `/events` session can be resumed with its queue id, in milliseconds. */
    reconnectGraceMs: number;
    stopActiveAtStart: boolean;
    /** The SFU's `bandwidth` options that were set; the SFU defaults the rest. */
    bandwidth: MeetingBandwidthOptions;
  };
  cluster: {
    /** What this process runs. */
    roles: NodeRole[];
    nodeId: string;
    mediaCapacity: number;
    mediaAddress: string;
    heartbeatMs: number;
    redisPrefix: string;
  };
  saml: {
    basePath: string;
    databaseUrl: string;
    maxDocumentBytes: number;
    fetchTimeoutMs: number;
    fetchAllowedAddresses: string[];
    expiryWarningDays: number;
  };
  auth: {
    jwtSecret: string | undefined;
    jwksUrl: string | undefined;
    jwksTimeoutMs: number;
    audience: string | undefined;
    issuer: string | undefined;
    allowTokensWithoutExpiry: boolean;
    /** Seconds; undefined: `iat` is not bounded. */
    maxTokenAge: number | undefined;
    /** Origins besides PUBLIC_URL allowed to use the cookie. */
    allowedOrigins: string[];
  };
  publicUrl: string | undefined;
  /** Express's `trust proxy` setting. */
  trustProxy: boolean | number | string;
  /** `/metrics` without an admin token. */
  metricsPublic: boolean;
  /** `/health/` details without an admin token. */
  healthDetailsPublic: boolean;
  /** Port of `/metrics` and the detailed `/health/`, when they have one of their own. */
  managementPort: number | undefined;
  managementHost: string;
  logLevel: z.infer<typeof environmentSchema>['LOG_LEVEL'];
  requestLogLevel: z.infer<typeof environmentSchema>['LOG_REQUEST_LEVEL'];
  /** `SHUTDOWN_TIMEOUT_MS`: the whole bound from SIGTERM to exit. */
  shutdownTimeoutMs: number;
  docsEnabled: boolean;
}

/** Who may read previews of stored files: anyone, token holders, or holders of a signed path. */
export type StoredPreviewAccess =
  | { mode: 'none' }
  | { mode: 'token' }
  | { mode: 'signed'; signingKey: string };

/** PREVIEW_STORED_AUTH with its key. @throws ConfigError when `signed` has no key */
function storedPreviewAccessOf(values: z.output<typeof environmentSchema>): StoredPreviewAccess {
  const mode = values.PREVIEW_STORED_AUTH;
  if (mode !== 'signed') return { mode };
  const signingKey = values.PREVIEW_URL_SIGNING_KEY;
  if (signingKey === undefined) {
    throw new ConfigError(
      'invalid configuration:\n  PREVIEW_STORED_AUTH=signed needs PREVIEW_URL_SIGNING_KEY (at least 32 bytes)',
    );
  }
  return { mode, signingKey };
}

/** Thrown by {@link loadConfig}; its message names every bad variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A part a process plays in a deployment. */
export type NodeRole = 'api' | 'media';

/** Where and how the chat mirror reaches ejabberd. */
export interface XmppConfig {
  apiUrl: string;
  domain: string;
  mucDomain: string;
  credentials: { user: string; password: string } | undefined;
  webSocketUrl: string | undefined;
  /** How long the drainer's lease on the outbox holds, in milliseconds. */
  leaseMs: number;
  /** How often an idle drainer looks at the outbox, in milliseconds. */
  pollIntervalMs: number;
}

/** The XMPP settings, all or nothing. @throws ConfigError when they do not fit together */
function xmppConfigOf(values: z.output<typeof environmentSchema>): XmppConfig | undefined {
  const { CHAT_XMPP_URL: apiUrl, CHAT_XMPP_DOMAIN: domain } = values;
  const user = values.CHAT_XMPP_API_USER;
  const password = values.CHAT_XMPP_API_PASSWORD;
  const problems: string[] = [];
  if (apiUrl === undefined) {
    const stray = (
      ['CHAT_XMPP_DOMAIN', 'CHAT_XMPP_MUC_DOMAIN', 'CHAT_XMPP_API_USER', 'CHAT_XMPP_WEBSOCKET_URL'] as const
    ).filter((name) => values[name] !== undefined);
    if (stray.length > 0)
      problems.push(`${stray.join(', ')} set without CHAT_XMPP_URL: set it too, or unset them`);
  } else if (domain === undefined) {
    problems.push('CHAT_XMPP_URL needs CHAT_XMPP_DOMAIN, the XMPP domain of users');
  }
  if ((user === undefined) !== (password === undefined)) {
    problems.push('CHAT_XMPP_API_USER and CHAT_XMPP_API_PASSWORD go together: set both or neither');
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  if (apiUrl === undefined || domain === undefined) return undefined;
  const mucDomain = values.CHAT_XMPP_MUC_DOMAIN ?? `muc.${domain}`;
  if (mucDomain === domain) {
    throw new ConfigError('invalid configuration:\n  CHAT_XMPP_MUC_DOMAIN must differ from CHAT_XMPP_DOMAIN');
  }
  return {
    apiUrl,
    domain,
    mucDomain,
    credentials: user !== undefined && password !== undefined ? { user, password } : undefined,
    webSocketUrl: values.CHAT_XMPP_WEBSOCKET_URL,
    leaseMs: values.CHAT_XMPP_LEASE_MS,
    pollIntervalMs: values.CHAT_XMPP_POLL_MS,
  };
}

/**
 * Stops a process whose roles lack what they need: an API node shares everything with the other
 * API nodes (the chat and SAML databases, the attachment folder, the token secret) and meetings
 * with the media nodes over Redis; a media node takes its commands over Redis.
 */
function assertRolesCanRun(values: {
  NODE_ROLES: string;
  CHAT_DATABASE_URL?: string | undefined;
  SAML_DATABASE_URL?: string | undefined;
  CHAT_REDIS_URL?: string | undefined;
  CHAT_BLOB_DIR?: string | undefined;
  AUTH_JWT_SECRET?: string | undefined;
  AUTH_JWKS_URL?: string | undefined;
}): void {
  const problems: string[] = [];
  const roles = values.NODE_ROLES;
  const redisUrl = values.CHAT_REDIS_URL;
  const isPostgres = (url: string | undefined) => /^postgres(ql)?:\/\//i.test(url ?? '');
  if (roles === 'api' && !isPostgres(values.CHAT_DATABASE_URL)) {
    problems.push('NODE_ROLES=api needs CHAT_DATABASE_URL set to a postgres:// URL shared by every API node');
  }
  if (roles === 'api' && !isPostgres(values.SAML_DATABASE_URL)) {
    problems.push(
      'NODE_ROLES=api needs SAML_DATABASE_URL set to a postgres:// URL shared by every API node (a SQLite file per node would give each node its own SAML settings)',
    );
  }
  if (roles === 'api' && values.AUTH_JWT_SECRET === undefined && values.AUTH_JWKS_URL === undefined) {
    problems.push(
      'NODE_ROLES=api needs AUTH_JWT_SECRET or AUTH_JWKS_URL: a secret generated at start-up is known to one node only',
    );
  }
  if (roles === 'api' && values.CHAT_BLOB_DIR === undefined) {
    problems.push(
      'NODE_ROLES=api needs CHAT_BLOB_DIR set to the folder every API node shares (a mount): a file uploaded through one node is read by whichever node serves it',
    );
  }
  if (roles !== 'api,media' && redisUrl === undefined) {
    problems.push(`NODE_ROLES=${roles} needs CHAT_REDIS_URL: API and media nodes meet in Redis`);
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
}

/**
 * Reads the configuration from environment variables.
 * @throws ConfigError naming each variable that does not parse.
 */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): ServerConfig {
  // `PORT=` in an env file means "not set", not 0: empty values are dropped before parsing.
  const result = environmentSchema.safeParse(
    Object.fromEntries(Object.entries(environment).filter(([, value]) => value?.trim() !== '')),
  );
  if (!result.success) {
    const problems = result.error.issues.map(
      (issue) =>
        `${issue.path.join('.')}: ${issue.message} (received ${redactSettingValue(String(issue.path[0]), environment[String(issue.path[0])])})`,
    );
    throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const values = result.data;
  assertRolesCanRun(values);
  const bandwidth = meetingBandwidthOptions(values, (name) => redactSettingValue(name, environment[name]));
  if ('problems' in bandwidth)
    throw new ConfigError(`invalid configuration:\n  ${bandwidth.problems.join('\n  ')}`);
  const dataDir = path.resolve(values.DATA_DIR);
  return {
    port: values.PORT,
    host: values.HOST,
    dataDir,
    database: {
      connectTimeoutMs: values.DATABASE_CONNECT_TIMEOUT_MS,
      queryTimeoutMs: values.DATABASE_QUERY_TIMEOUT_MS,
    },
    storage: {
      directory: path.resolve(values.STORAGE_DIR ?? path.join(dataDir, 'storage')),
      url: values.STORAGE_URL,
      timeoutMs: values.STORAGE_TIMEOUT_MS,
      maxBytes: values.STORAGE_MAX_BYTES,
    },
    preview: {
      maxUploadBytes: values.PREVIEW_MAX_UPLOAD_BYTES,
      maxInputPixels: values.PREVIEW_MAX_INPUT_PIXELS,
      maxOutputSide: values.PREVIEW_MAX_OUTPUT_SIDE,
      maxConcurrentRenders: values.PREVIEW_MAX_CONCURRENT_RENDERS,
      maxQueuedRenders: values.PREVIEW_MAX_QUEUED_RENDERS,
      renderTimeoutSeconds: values.PREVIEW_RENDER_TIMEOUT_SECONDS,
      pdfWorkers: values.PREVIEW_PDF_WORKERS,
      uploadsPerMinute: values.PREVIEW_UPLOADS_PER_MINUTE,
      maxPdfPages: values.PREVIEW_MAX_PDF_PAGES,
      maxRenderPixels: values.PREVIEW_MAX_RENDER_PIXELS,
      cache: {
        directory: path.resolve(values.PREVIEW_CACHE_DIR ?? path.join(dataDir, 'preview-cache')),
        maxBytes: values.PREVIEW_CACHE_MAX_BYTES,
      },
      storedAccess: storedPreviewAccessOf(values),
      storedExistenceTtlMs: values.PREVIEW_STORED_EXISTENCE_TTL_MS,
    },
    document: {
      converter: values.DOCUMENT_CONVERTER,
      converterUrl: values.DOCUMENT_CONVERTER_URL,
      conversionTimeoutMs: values.DOCUMENT_CONVERSION_TIMEOUT_MS,
      defaultLocale: values.DOCUMENT_DEFAULT_LOCALE,
      cacheMaxBytes: values.DOCUMENT_CACHE_MAX_BYTES,
      failureMemorySeconds: values.DOCUMENT_FAILURE_MEMORY_SECONDS,
      convertEndpoint: values.DOCUMENT_CONVERT_ENDPOINT,
      libreOffice: {
        sofficePath: values.LIBREOFFICE_PATH,
        pythonPath: values.LIBREOFFICE_PYTHON,
        instances: values.LIBREOFFICE_INSTANCES,
        maxQueued: values.LIBREOFFICE_MAX_QUEUED,
        restartAfterConversions: values.LIBREOFFICE_RESTART_AFTER,
      },
    },
    chat: {
      databaseUrl: values.CHAT_DATABASE_URL ?? path.join(dataDir, 'chat.db'),
      blobDirectory: path.resolve(values.CHAT_BLOB_DIR ?? path.join(dataDir, 'chat-blobs')),
      redisUrl: values.CHAT_REDIS_URL,
      eventBacklog: {
        maxEvents: values.CHAT_EVENT_BACKLOG_MAX,
        maxSeconds: values.CHAT_EVENT_BACKLOG_SECONDS,
      },
      redisTimeoutMs: values.CHAT_REDIS_TIMEOUT_MS,
      blobSweepSeconds: values.CHAT_BLOB_SWEEP_SECONDS,
      userDirectoryUrl: values.CHAT_USER_DIRECTORY_URL,
      maxAttachmentBytes: values.CHAT_MAX_ATTACHMENT_BYTES,
      maxPictureBytes: values.CHAT_MAX_PICTURE_BYTES,
      maxRoomMembers: values.CHAT_MAX_ROOM_MEMBERS,
      maxRoomsPerUser: values.CHAT_MAX_ROOMS_PER_USER,
      maxForwardedMessages: values.CHAT_MAX_FORWARDED_MESSAGES,
      roomCreationsPerMinute: values.CHAT_ROOM_CREATIONS_PER_MINUTE,
      xmpp: xmppConfigOf(values),
      pageDirectoryFile: values.CHAT_PAGE_DIRECTORY,
    },
    meetings: {
      announcedAddresses: values.MEETING_ICE_ANNOUNCED_ADDRESSES ?? [],
      hostAddresses: values.MEETING_ICE_HOST_ADDRESSES ?? [],
      onlyAddresses: values.MEETING_ICE_ONLY_ADDRESSES ?? [],
      portRange: values.MEETING_ICE_PORT_RANGE,
      iceServers: values.MEETING_ICE_SERVERS ?? [],
      sfuStunServers: values.MEETING_SFU_STUN_SERVERS ?? [],
      maxParticipants: values.MEETING_MAX_PARTICIPANTS,
      keyframeRequestIntervalMs: values.MEETING_KEYFRAME_REQUEST_INTERVAL_MS,
      audioMixedSpeakers: values.MEETING_AUDIO_MIXED_SPEAKERS,
      expirySweepMs: values.MEETING_EXPIRY_SWEEP_MS,
      reconnectGraceMs: values.MEETING_RECONNECT_GRACE_SECONDS * 1000,
      stopActiveAtStart:
        values.MEETING_STOP_ACTIVE_AT_START === 'auto'
          ? !/^postgres(ql)?:\/\//i.test(values.CHAT_DATABASE_URL ?? '')
          : values.MEETING_STOP_ACTIVE_AT_START === 'true',
      bandwidth:
        values.MEETING_BANDWIDTH_PROBES === undefined
          ? bandwidth.options
          : { ...bandwidth.options, probe: { enabled: values.MEETING_BANDWIDTH_PROBES } },
    },
    cluster: {
      roles: values.NODE_ROLES.split(',') as NodeRole[],
      nodeId: values.NODE_ID ?? randomUUID(),
      mediaCapacity: values.MEDIA_NODE_CAPACITY,
      mediaAddress:
        values.MEDIA_NODE_ADDRESS ??
        values.MEETING_ICE_ANNOUNCED_ADDRESSES?.[0] ??
        values.MEETING_ICE_HOST_ADDRESSES?.[0] ??
        hostname(),
      heartbeatMs: values.CLUSTER_HEARTBEAT_MS,
      redisPrefix: values.CLUSTER_REDIS_PREFIX,
    },
    saml: {
      basePath: values.SAML_BASE_PATH,
      databaseUrl: values.SAML_DATABASE_URL ?? path.join(dataDir, 'saml.db'),
      maxDocumentBytes: values.SAML_MAX_DOCUMENT_BYTES,
      fetchTimeoutMs: values.SAML_FETCH_TIMEOUT_MS,
      fetchAllowedAddresses: (values.SAML_FETCH_ALLOWED_ADDRESSES ?? '')
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ''),
      expiryWarningDays: values.SAML_CERT_EXPIRY_WARNING_DAYS,
    },
    auth: {
      jwtSecret: values.AUTH_JWT_SECRET,
      jwksUrl: values.AUTH_JWKS_URL,
      jwksTimeoutMs: values.AUTH_JWKS_TIMEOUT_MS,
      audience: values.AUTH_JWT_AUDIENCE,
      issuer: values.AUTH_JWT_ISSUER,
      allowTokensWithoutExpiry: values.AUTH_ALLOW_TOKENS_WITHOUT_EXPIRY,
      maxTokenAge: values.AUTH_MAX_TOKEN_AGE,
      allowedOrigins: values.ALLOWED_ORIGINS ?? [],
    },
    publicUrl: values.PUBLIC_URL,
    trustProxy: values.TRUST_PROXY,
    metricsPublic: values.METRICS_PUBLIC,
    healthDetailsPublic: values.HEALTH_DETAILS_PUBLIC,
    managementPort: values.MANAGEMENT_PORT,
    managementHost: values.MANAGEMENT_HOST,
    logLevel: values.LOG_LEVEL,
    requestLogLevel: values.LOG_REQUEST_LEVEL,
    shutdownTimeoutMs: values.SHUTDOWN_TIMEOUT_MS,
    docsEnabled: values.DOCS_ENABLED,
  };
}
