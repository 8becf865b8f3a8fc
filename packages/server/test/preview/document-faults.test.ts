import { makePdf, pdfPageTexts, sampleDocument } from '@collab-suite/preview-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import {
  converterDetails,
  instanceGroup,
  untilConverter,
  untilPoolBusy,
  untilPoolIdle,
} from './converter-pool-support.js';
import { bodyBytes, detailOf, upload } from './preview-test-support.js';

// Faults of the document previews through HTTP, against real soffice processes started by the
// server under test (one instance each). A hang is made with SIGSTOP on the instance's process group.

describe('document previews without LibreOffice', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({
      env: { DOCUMENT_CONVERTER: 'libreoffice', LIBREOFFICE_PATH: '/nonexistent/bin/soffice' },
    });
    await untilConverter(server, (details) => details.pool[0]?.state === 'failed', 'gave up starting');
  });
  afterAll(() => server.stop());

  it('answers document requests with 503 and Retry-After', async () => {
    const response = await upload(`${server.url}/preview/document/`, await sampleDocument('text.docx'));
    expect(response.status).toBe(503);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await detailOf(response)).toContain('document previews are offline');
  });

  it('answers /health/ready/ with 429 and shows the reason in /health/', async () => {
    const ready = await fetch(`${server.url}/health/ready/`);
    expect(ready.status).toBe(429);
    expect(await detailOf(ready)).toContain('document preview is offline');
    const details = await converterDetails(server);
    expect(details.available).toBe(false);
    expect(details.reason).toContain('/nonexistent/bin/soffice');
    expect((await fetch(`${server.url}/health/live/`)).status).toBe(200);
  });

  it('still serves PDF previews, and refuses bad documents with 400 before needing the converter', async () => {
    const pdf = await upload(`${server.url}/preview/pdf/?first_page=2`, await makePdf(3));
    expect(await pdfPageTexts(await bodyBytes(pdf))).toEqual(['Page 2', 'Page 3']);
    expect((await upload(`${server.url}/preview/document/`, Buffer.from('not a document'))).status).toBe(400);
  });
});

describe('document previews when LibreOffice misbehaves', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({
      env: {
        DOCUMENT_CONVERTER: 'libreoffice',
        LIBREOFFICE_INSTANCES: '1',
        DOCUMENT_CONVERSION_TIMEOUT_MS: '4000',
      },
    });
    await instanceGroup(server);
  });
  afterAll(() => server.stop());

  it('answers 503 when the instance is killed mid-conversion, and the next request succeeds', async () => {
    const long = upload(`${server.url}/preview/document/?last_page=1`, await sampleDocument('long.docx'));
    await untilPoolBusy(server);
    process.kill(-(await instanceGroup(server)), 'SIGKILL');
    const failed = await long;
    expect(failed.status).toBe(503);
    expect(failed.headers.get('retry-after')).not.toBeNull();
    expect(await detailOf(failed)).toContain('stopped during the conversion');
    const next = await upload(`${server.url}/preview/document/`, await sampleDocument('text.docx'));
    expect(next.status).toBe(200);
    expect(await pdfPageTexts(await bodyBytes(next))).toHaveLength(3);
  });

  it('answers 503 for a conversion that hangs past the timeout and restarts the instance', async () => {
    const restartsBefore = (await converterDetails(server)).restarts;
    const frozen = await instanceGroup(server);
    process.kill(-frozen, 'SIGSTOP');
    const response = await upload(`${server.url}/preview/document/`, await sampleDocument('text.odt'));
    expect(response.status).toBe(503);
    expect(await detailOf(response)).toContain('took longer than 4 s');
    const next = await upload(`${server.url}/preview/document/`, await sampleDocument('text.odt'));
    expect(next.status).toBe(200);
    const details = await converterDetails(server);
    expect(details.restarts).toBe(restartsBefore + 1);
    expect(details.pool[0]?.pid).not.toBe(frozen);
  });
});

describe('a document that makes LibreOffice fail the same way twice', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({
      env: {
        DOCUMENT_CONVERTER: 'libreoffice',
        LIBREOFFICE_INSTANCES: '1',
        DOCUMENT_CONVERSION_TIMEOUT_MS: '3000',
      },
    });
    await instanceGroup(server);
  });
  afterAll(() => server.stop());

  const conversions = async () => (await converterDetails(server)).conversions;

  /** Uploads `document` and kills the instance once it is converting it. */
  async function crashOn(document: Uint8Array): Promise<Response> {
    await untilPoolIdle(server);
    const answer = upload(`${server.url}/preview/document/`, document);
    await untilPoolBusy(server);
    process.kill(-(await instanceGroup(server)), 'SIGKILL');
    return answer;
  }

  /** Uploads `document` to a frozen instance, so the conversion runs past the time limit. */
  async function timeOutOn(document: Uint8Array): Promise<Response> {
    await untilPoolIdle(server);
    process.kill(-(await instanceGroup(server)), 'SIGSTOP');
    return upload(`${server.url}/preview/document/`, document);
  }

  it('answers 503 for the first crash, 400 for the second, and never converts it a third time', async () => {
    const long = await sampleDocument('long.docx');
    const first = await crashOn(long);
    expect(first.status).toBe(503);
    const second = await crashOn(long);
    expect(second.status).toBe(400);
    expect(second.headers.get('retry-after')).toBeNull();
    expect(await detailOf(second)).toContain('this document crashed the converter 2 times');
    await untilPoolIdle(server);
    const before = await conversions();
    const third = await upload(`${server.url}/preview/document/`, long);
    expect(third.status).toBe(400);
    expect(await conversions()).toBe(before);
    // Other documents convert as before.
    expect((await upload(`${server.url}/preview/document/`, await sampleDocument('text.docx'))).status).toBe(
      200,
    );
  });

  it('answers 503 for the first timeout, 400 for the second, and never converts it a third time', async () => {
    const odt = await sampleDocument('text.odt');
    const first = await timeOutOn(odt);
    expect(first.status).toBe(503);
    const second = await timeOutOn(odt);
    expect(second.status).toBe(400);
    expect(await detailOf(second)).toContain('ran past the time limit of the converter 2 times');
    await untilPoolIdle(server);
    const before = await conversions();
    expect((await upload(`${server.url}/preview/document/`, odt)).status).toBe(400);
    expect(await conversions()).toBe(before);
    expect((await converterDetails(server)).failures.blamed).toBe(2);
  });
});
