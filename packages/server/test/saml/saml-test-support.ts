import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GeneratedCertificate, generateCertificate } from '@collab-suite/saml-config';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { createSamlFeature, type SamlFeatureOverrides } from '../../src/saml/saml-feature.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { startTestServer, type TestServer, testJwtSecret } from '../support/test-server.js';

/** A parsed JSON value, asserted field by field in tests. */
// biome-ignore lint/suspicious/noExplicitAny: tests read response fields freely and assert on them
export type Json = any;

/** A response with its body parsed as JSON when it is JSON. */
export interface ApiResponse {
  status: number;
  headers: Headers;
  body: Json;
  text: string;
}

/** Options of one {@link SamlClient} call. */
export interface CallOptions {
  json?: unknown;
  body?: string | Uint8Array;
  contentType?: string;
  /** `none`: no token; `user`: a token without the admin role. @default "admin" */
  as?: 'admin' | 'user' | 'none';
}

/** Calls the SAML API of a test server. */
export interface SamlClient {
  server: TestServer;
  base: string;
  call(method: string, path: string, options?: CallOptions): Promise<ApiResponse>;
  stop(): Promise<void>;
}

/** Starts a server with only the SAML feature (plus overrides) and returns a client for it. */
export async function startSamlServer(
  options: { env?: Record<string, string>; overrides?: SamlFeatureOverrides } = {},
): Promise<SamlClient> {
  const server = await startTestServer({
    env: { PUBLIC_URL: 'https://mail.example.com', ...options.env },
    features: async (context) => [await createSamlFeature(context, options.overrides)],
  });
  const tokens = {
    admin: await signLocalToken(testJwtSecret, { userId: 'admin-1', admin: true }),
    user: await signLocalToken(testJwtSecret, { userId: 'user-1' }),
  };
  const base = `${server.url}${server.config.saml.basePath}`;
  return {
    server,
    base,
    async call(method, path, callOptions = {}) {
      const headers: Record<string, string> = {};
      const as = callOptions.as ?? 'admin';
      if (as !== 'none') headers.authorization = `Bearer ${tokens[as]}`;
      let body: string | Uint8Array | undefined = callOptions.body;
      if (callOptions.json !== undefined) {
        body = JSON.stringify(callOptions.json);
        headers['content-type'] = 'application/json';
      }
      if (callOptions.contentType !== undefined) headers['content-type'] = callOptions.contentType;
      const response = await fetch(`${base}${path}`, { method, headers, body });
      const text = await response.text();
      let parsed: Json = text;
      if ((response.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
      return { status: response.status, headers: response.headers, body: parsed, text };
    },
    stop: () => server.stop(),
  };
}

const certificates = new Map<string, Promise<GeneratedCertificate>>();

/** A cached self-signed test certificate from the library's generator. */
export function testCertificate(commonName = 'idp.example.org'): Promise<GeneratedCertificate> {
  let pending = certificates.get(commonName);
  if (pending === undefined) {
    pending = generateCertificate(commonName, { days: 365, digest: 'SHA-256', keyBits: 2048 }, new Date());
    certificates.set(commonName, pending);
  }
  return pending;
}

/** IdP metadata for one identity provider with the given signing certificate. */
export function idpMetadata(certificatePem: string, entityId = 'https://idp.example.org/metadata'): string {
  const body = certificatePem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  return `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${entityId}">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${body}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example.org/sso"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
}

/** The IdP half of a valid configuration as a flat map. */
export async function idpProperties(): Promise<Record<string, string>> {
  return {
    'idp.entityid': 'https://idp.example.org/metadata',
    'idp.single_sign_on_service.url': 'https://idp.example.org/sso',
    'idp.x509cert': (await testCertificate()).certificatePem,
  };
}

const scratch = mkdtempSync(join(tmpdir(), 'saml-http-openssl-'));
let fileCounter = 0;

/** Runs the real openssl CLI on PEM text written to a temporary file. */
export function openssl(pem: string, ...args: string[]): string {
  fileCounter += 1;
  const file = join(scratch, `input-${fileCounter}.pem`);
  writeFileSync(file, pem);
  return execFileSync('openssl', [...args, '-in', file], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** URL of this package's own PostgreSQL test database, created when missing. */
export function samlPostgresUrl(): Promise<string> {
  return testDatabaseUrl('collab_test_saml');
}
