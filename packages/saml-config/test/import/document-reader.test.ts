import { afterAll, describe, expect, it } from 'vitest';
import { eventLoopTicks } from '../../../../test-support/event-loop-ticks.js';
import { isSamlConfigError, type SamlConfigError } from '../../src/errors.js';
import { createDocumentReader } from '../../src/import/document-reader.js';
import { readDocument } from '../../src/import/read-document.js';
import { samlPropertyKeys } from '../../src/model/property-definitions.js';
import { createSamlConfigService } from '../../src/service/saml-config-service.js';
import { createMemorySamlPropertyStore } from '../../src/store/memory-property-store.js';
import { testCertificate } from '../support/certificates.js';
import { entityDescriptor } from '../support/metadata.js';

const MIB = 1024 * 1024;
const now = new Date();
const options = { maxBytes: MIB, now };

/** Federation metadata of almost 1 MiB: IdPs `urn:idp:0`, `urn:idp:1`, ... each with a certificate. */
async function federation(validUntil?: string): Promise<string> {
  const { certificatePem } = await testCertificate();
  const entities: string[] = [];
  let size = 200;
  for (let index = 0; ; index += 1) {
    const entity = entityDescriptor({ entityId: `urn:idp:${index}`, certificates: [certificatePem] });
    if (size + entity.length > MIB - 1024) break;
    entities.push(entity);
    size += entity.length;
  }
  const until = validUntil === undefined ? '' : ` validUntil="${validUntil}"`;
  return `<?xml version="1.0"?><md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata"${until}>${entities.join('')}</md:EntitiesDescriptor>`;
}

async function refusal(promise: Promise<unknown>): Promise<SamlConfigError> {
  try {
    await promise;
  } catch (error) {
    if (isSamlConfigError(error)) return error;
    throw error;
  }
  throw new Error('expected a SamlConfigError');
}

describe('createDocumentReader', () => {
  const reader = createDocumentReader();
  afterAll(() => reader.close());

  it('reads 1 MiB federation metadata on its thread to exactly what readDocument gives', async () => {
    const xml = await federation();
    expect(Buffer.byteLength(xml)).toBeGreaterThan(512 * 1024);
    const read = { ...options, entityId: 'urn:idp:300' };
    const onThread = await reader.read(xml, read);
    expect(onThread).toEqual(readDocument(xml, read));
    expect(onThread.parsed.properties['idp.entityid']).toBe('urn:idp:300');
    expect(await reader.read(new TextEncoder().encode(xml), read)).toEqual(onThread);
  });

  it('keeps the shared key list of a whole configuration read on its thread', async () => {
    const padding = Object.fromEntries(
      Array.from({ length: 4000 }, (_, index) => [`x.${index}`, 'y'.repeat(20)]),
    );
    const json = JSON.stringify({ 'sp.entityid': 'urn:sp', ...padding });
    expect(json.length).toBeGreaterThan(64 * 1024);
    const read = await reader.read(json, options);
    expect(read.format).toBe('json');
    expect(read.replaces).toBe(samlPropertyKeys);
    expect(read.parsed.issues).toHaveLength(101);
    expect(read.parsed.issues[100]?.message).toBe('and 3900 more unknown properties, not listed');
  });

  it('throws the same SamlConfigError as readDocument for large documents it refuses', async () => {
    const expired = await federation(new Date(Date.now() - 86_400_000).toISOString());
    const onThread = await refusal(reader.read(expired, options));
    expect(onThread).toMatchObject({ code: 'invalid_metadata', message: expect.stringContaining('expired') });
    const ambiguous = await refusal(reader.read(await federation(), options));
    expect(ambiguous.code).toBe('invalid_metadata');
    expect((ambiguous.details?.entityIds as unknown[] | undefined)?.length).toBeGreaterThan(300);
    const broken = await refusal(reader.read(`<a>${'<b>x</b>'.repeat(20_000)}`, options));
    expect(broken).toMatchObject({
      code: 'invalid_document',
      message: expect.stringContaining('well-formed'),
    });
    const tooLarge = await refusal(reader.read('x'.repeat(MIB + 1), options));
    expect(tooLarge).toMatchObject({ code: 'document_too_large', details: { limit: MIB, size: MIB + 1 } });
  });
});

describe('SAML imports of large documents leave the event loop free', () => {
  it('imports 1 MiB federation metadata while a 1 ms timer keeps firing', async () => {
    const service = createSamlConfigService({ store: createMemorySamlPropertyStore() });
    try {
      const xml = await federation();
      const probe = await eventLoopTicks(() =>
        service.importProperties('example.org', { body: xml, entityId: 'urn:idp:7' }),
      );
      expect(probe.result.format).toBe('idp-metadata');
      expect(probe.result.properties['idp.entityid']).toBe('urn:idp:7');
      // Read on the calling thread, the document would hold the loop for the whole import.
      expect(probe.ticks).toBeGreaterThanOrEqual(3);
      expect(probe.longestGapMs).toBeLessThan(probe.durationMs / 2);
    } finally {
      await service.close();
    }
  });

  it('still reads small documents once closed, and refuses large ones', async () => {
    const service = createSamlConfigService({ store: createMemorySamlPropertyStore() });
    await service.close();
    await service.close();
    const small = await service.validateDocument({ body: { 'sp.entityid': 'urn:sp' } });
    expect(small.properties['sp.entityid']).toBe('urn:sp');
    await expect(service.validateDocument({ body: await federation() })).rejects.toThrow('closed');
  });
});
