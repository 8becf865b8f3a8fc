import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHttpDocumentFetcher,
  type DocumentFetcher,
  isSamlConfigError,
  type SamlConfigErrorCode,
} from '../../src/index.js';
import { type FixtureServer, startFixtureServer } from '../../src/testing/index.js';
import { testCertificate } from '../support/certificates.js';
import { idpMetadata } from '../support/metadata.js';

const metadata = idpMetadata();

async function failureOf(
  promise: Promise<unknown>,
): Promise<{ code: SamlConfigErrorCode | undefined; message: string }> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (error === undefined) throw new Error('expected the fetch to fail');
  return { code: isSamlConfigError(error) ? error.code : undefined, message: (error as Error).message };
}

describe('HTTP document fetcher: SSRF (reference §7), default policy', () => {
  let target: FixtureServer;
  let fetcher: DocumentFetcher;
  beforeAll(async () => {
    target = await startFixtureServer({ '/metadata': { body: metadata } });
    fetcher = createHttpDocumentFetcher();
  });
  afterAll(() => target.close());

  it.each([
    ['file:///etc/passwd', 'url_not_allowed', 'the file: scheme'],
    ['gopher://127.0.0.1:70/_x', 'url_not_allowed', 'the gopher: scheme'],
    ['ftp://example.com/metadata.xml', 'url_not_allowed', 'the ftp: scheme'],
    [
      'https://169.254.169.254/latest/meta-data/',
      'url_not_allowed',
      '169.254.169.254 is not a public address',
    ],
    ['https://10.0.0.1/', 'url_not_allowed', '10.0.0.1 is not a public address'],
    ['https://[::1]/', 'url_not_allowed', '::1 is not a public address'],
    ['https://[::ffff:127.0.0.1]/', 'url_not_allowed', 'is not a public address'],
    ['https://0x7f.1/', 'url_not_allowed', '127.0.0.1 is not a public address'],
    ['https://user:secret@example.com/', 'url_not_allowed', 'credentials'],
    ['not a url', 'url_not_allowed', 'expected an absolute https URL'],
  ])('refuses %s before connecting', async (url, code, message) => {
    const failure = await failureOf(fetcher.fetch({ url, allowUnsecure: true }));
    expect(failure.code).toBe(code);
    expect(failure.message).toContain(message);
  });

  it('refuses the loopback test server by IP, by localhost (after DNS) and plain http without allowUnsecure', async () => {
    const port = new URL(target.origin).port;
    const byAddress = await failureOf(
      fetcher.fetch({ url: `${target.origin}/metadata`, allowUnsecure: true }),
    );
    expect(byAddress).toMatchObject({
      code: 'url_not_allowed',
      message: expect.stringContaining('127.0.0.1 is not a public address'),
    });
    const byName = await failureOf(
      fetcher.fetch({ url: `http://localhost:${port}/metadata`, allowUnsecure: true }),
    );
    expect(byName).toMatchObject({
      code: 'url_not_allowed',
      message: expect.stringContaining('localhost resolves to'),
    });
    const plain = await failureOf(
      fetcher.fetch({ url: 'http://example.com/metadata', allowUnsecure: false }),
    );
    expect(plain).toMatchObject({
      code: 'url_not_allowed',
      message: expect.stringContaining('allowUnsecure'),
    });
    expect(target.hits).toEqual([]);
  });
});

describe('HTTP document fetcher: redirects', () => {
  let loopback: FixtureServer;
  let allowed: FixtureServer;
  beforeAll(async () => {
    loopback = await startFixtureServer({ '/secret': { body: 'internal' } });
    allowed = await startFixtureServer({ '/metadata': { body: metadata } });
    // The "public" server is the one explicitly allowed; everything else is loopback and refused.
    allowed.routes.set('/to-loopback', { redirect: `${loopback.origin}/secret` });
    allowed.routes.set('/to-localhost', {
      redirect: `http://localhost:${new URL(loopback.origin).port}/secret`,
    });
    allowed.routes.set('/relative', { redirect: '/metadata' });
    allowed.routes.set('/loop', { redirect: '/loop' });
  });
  afterAll(async () => {
    await loopback.close();
    await allowed.close();
  });

  const fetcherFor = (server: FixtureServer) =>
    createHttpDocumentFetcher({
      allowedAddresses: [`${new URL(server.origin).hostname}/32`],
      maxRedirects: 3,
    });

  it('follows a relative redirect on an allowed host', async () => {
    const document = await fetcherFor(allowed).fetch({
      url: `${allowed.origin}/relative`,
      allowUnsecure: true,
    });
    expect(new TextDecoder().decode(document.body)).toBe(metadata);
    expect(document.url).toBe(`${allowed.origin}/metadata`);
  });

  it('refuses a redirect to another loopback address, by IP or by name, and fetches nothing there', async () => {
    const other = await startFixtureServer({ '/metadata': { body: metadata } }, undefined, '127.0.0.2');
    other.routes.set('/to-loopback', { redirect: `${loopback.origin}/secret` });
    other.routes.set('/to-localhost', {
      redirect: `http://localhost:${new URL(loopback.origin).port}/secret`,
    });
    const fetcher = createHttpDocumentFetcher({ allowedAddresses: ['127.0.0.2'] });
    try {
      const byAddress = await failureOf(
        fetcher.fetch({ url: `${other.origin}/to-loopback`, allowUnsecure: true }),
      );
      expect(byAddress).toMatchObject({
        code: 'url_not_allowed',
        message: expect.stringContaining('127.0.0.1 is not a public address'),
      });
      const byName = await failureOf(
        fetcher.fetch({ url: `${other.origin}/to-localhost`, allowUnsecure: true }),
      );
      expect(byName.code).toBe('url_not_allowed');
      expect(other.hits).toEqual(['/to-loopback', '/to-localhost']);
      expect(loopback.hits).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('stops after the configured number of redirects', async () => {
    const failure = await failureOf(
      fetcherFor(allowed).fetch({ url: `${allowed.origin}/loop`, allowUnsecure: true }),
    );
    expect(failure).toMatchObject({
      code: 'fetch_failed',
      message: expect.stringContaining('more than 3 redirects'),
    });
  });
});

describe('HTTP document fetcher: size, time and status bounds', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFixtureServer({
      '/endless': { endless: true },
      '/declared': { body: 'x'.repeat(70_000), headers: { 'content-type': 'application/xml' } },
      '/slow': { body: metadata, delayMs: 5_000 },
      '/missing': { status: 404, body: 'nope' },
    });
  });
  afterAll(() => server.close());

  const fetcher = () =>
    createHttpDocumentFetcher({ allowedAddresses: ['127.0.0.1'], maxBytes: 65_536, timeoutMs: 300 });

  it('stops reading a body that never ends at the byte limit', async () => {
    const failure = await failureOf(
      fetcher().fetch({ url: `${server.origin}/endless`, allowUnsecure: true }),
    );
    expect(failure).toMatchObject({
      code: 'download_too_large',
      message: expect.stringContaining('at most 65536 bytes'),
    });
  });

  it('refuses a body whose Content-Length is over the limit', async () => {
    const failure = await failureOf(
      fetcher().fetch({ url: `${server.origin}/declared`, allowUnsecure: true }),
    );
    expect(failure).toMatchObject({
      code: 'download_too_large',
      message: expect.stringContaining('declares 70000 bytes'),
    });
  });

  it('gives up on a server that does not answer in time', async () => {
    const failure = await failureOf(fetcher().fetch({ url: `${server.origin}/slow`, allowUnsecure: true }));
    expect(failure).toMatchObject({
      code: 'fetch_timeout',
      message: expect.stringContaining('longer than 300 ms'),
    });
  });

  it('reports an HTTP error status without echoing the body', async () => {
    const failure = await failureOf(
      fetcher().fetch({ url: `${server.origin}/missing`, allowUnsecure: true }),
    );
    expect(failure).toMatchObject({ code: 'fetch_failed', message: expect.stringContaining('answered 404') });
    expect(failure.message).not.toContain('nope');
  });
});

describe('HTTP document fetcher: allowUnsecure applies to one request only', () => {
  let https: FixtureServer;
  beforeAll(async () => {
    const { certificatePem, privateKeyPem } = await testCertificate({ commonName: '127.0.0.1' });
    https = await startFixtureServer(
      { '/metadata': { body: metadata }, '/held': { body: metadata, delayMs: 400 } },
      { certificatePem, privateKeyPem },
    );
  });
  afterAll(() => https.close());

  const fetcher = createHttpDocumentFetcher({ allowedAddresses: ['127.0.0.1'] });

  it('refuses the self-signed certificate without the flag and accepts it with the flag', async () => {
    const refused = await failureOf(fetcher.fetch({ url: `${https.origin}/metadata`, allowUnsecure: false }));
    expect(refused).toMatchObject({
      code: 'fetch_failed',
      message: expect.stringContaining('does not verify'),
    });
    expect(refused.message).toContain('allowUnsecure=true');
    const accepted = await fetcher.fetch({ url: `${https.origin}/metadata`, allowUnsecure: true });
    expect(new TextDecoder().decode(accepted.body)).toBe(metadata);
  });

  it('still verifies a request made while an unsecure one is in flight, and after it', async () => {
    const unsecure = fetcher.fetch({ url: `${https.origin}/held`, allowUnsecure: true });
    const verified = failureOf(fetcher.fetch({ url: `${https.origin}/metadata`, allowUnsecure: false }));
    const [unsecureResult, verifiedResult] = await Promise.all([unsecure, verified]);
    expect(new TextDecoder().decode(unsecureResult.body)).toBe(metadata);
    expect(verifiedResult.code).toBe('fetch_failed');
    expect(
      (await failureOf(fetcher.fetch({ url: `${https.origin}/metadata`, allowUnsecure: false }))).code,
    ).toBe('fetch_failed');
    expect(process.env.NODE_TLS_REJECT_UNAUTHORIZED).toBeUndefined();
  });

  it('does not let the global fetch accept the certificate either', async () => {
    await expect(fetch(`${https.origin}/metadata`)).rejects.toThrow();
  });
});
