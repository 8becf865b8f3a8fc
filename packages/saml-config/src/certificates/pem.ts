import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';

/** The outcome of reading PEM-ish text: the canonical form, or why it was refused. */
export type PemReadResult<T> =
  | ({ ok: true } & T)
  | { ok: false; reason: 'invalid' | 'encrypted' | 'not_rsa'; message: string };

const PEM_BOUNDARY = /-----(BEGIN|END) ([A-Z0-9 ]+)-----/g;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Names a PEM label in messages without repeating the words of a key label (logs are grepped for them). */
function describeLabel(label: string): string {
  if (/PRIVATE KEY/.test(label)) {
    const kind = label.replace(/\s*PRIVATE KEY$/, '').trim();
    return kind === '' ? 'a private key' : `a private key (${kind.slice(0, 20)})`;
  }
  return `a PEM block labelled ${JSON.stringify(label.slice(0, 40))}`;
}

/** Wraps base64 at 64 characters between BEGIN/END lines, with a final newline. */
export function wrapPem(base64: string, label: string): string {
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** The labels of the BEGIN lines in `text`, in order. */
function beginLabels(text: string): string[] {
  const labels: string[] = [];
  for (const match of text.matchAll(PEM_BOUNDARY)) {
    if (match[1] === 'BEGIN' && match[2] !== undefined) labels.push(match[2]);
  }
  return labels;
}

/** Strips BEGIN/END lines, `&#13;` leftovers and all whitespace; undefined when not base64. */
function bareBase64(text: string): string | undefined {
  const body = text
    .replace(PEM_BOUNDARY, '')
    .replace(/&#(13|10|x0*[dDaA]);/g, '')
    .replace(/\s+/g, '');
  if (body.length === 0 || body.length % 4 !== 0 || !BASE64.test(body)) return undefined;
  return body;
}

/** The canonical PEM of one X.509 certificate and its parsed form. */
export interface CanonicalCertificate {
  pem: string;
  certificate: X509Certificate;
}

/** Whether decoded base64 is itself PEM text (a BEGIN line after optional whitespace), not DER. */
function isPemText(bytes: Buffer): boolean {
  return /^\s*-----BEGIN [A-Z0-9 ]+-----/.test(bytes.subarray(0, 96).toString('latin1'));
}

function checkLabels(labels: readonly string[], wrapped: boolean): PemReadResult<never> | undefined {
  const what = wrapped ? 'base64 of ' : '';
  if (labels.length > 1) {
    return {
      ok: false,
      reason: 'invalid',
      message: `expected one certificate but received ${what}${labels.length} PEM blocks`,
    };
  }
  if (labels.length === 1 && labels[0] !== 'CERTIFICATE') {
    return {
      ok: false,
      reason: 'invalid',
      message: `expected a certificate but received ${what}${describeLabel(labels[0] ?? '')}`,
    };
  }
  return undefined;
}

function parseCertificateBody(body: string): PemReadResult<CanonicalCertificate> {
  try {
    const certificate = new X509Certificate(Buffer.from(body, 'base64'));
    return { ok: true, pem: wrapPem(body, 'CERTIFICATE'), certificate };
  } catch {
    return {
      ok: false,
      reason: 'invalid',
      message:
        'expected an X.509 certificate (PEM, base64 DER, or base64 of a PEM certificate) but the base64 does not decode to one',
    };
  }
}

/**
 * The certificate inside base64 that decodes to PEM text (some IdPs put a whole PEM file, base64
 * encoded, in `X509Certificate`). Only one level: the decoded text must carry BEGIN/END lines.
 */
function readEncodedPem(decoded: Buffer): PemReadResult<CanonicalCertificate> {
  const text = decoded.toString('latin1');
  const refused = checkLabels(beginLabels(text), true);
  if (refused !== undefined) return refused;
  const body = bareBase64(text);
  if (body === undefined) {
    return {
      ok: false,
      reason: 'invalid',
      message: 'expected base64 of a PEM certificate but the decoded PEM text is not base64 inside',
    };
  }
  return parseCertificateBody(body);
}

/**
 * Reads a certificate given with or without BEGIN/END lines, on one line or several, with LF or CRLF,
 * or as base64 of a whole PEM text, and returns it as canonical PEM (64-character lines, LF, final
 * newline). Never echoes the input.
 */
export function readCertificate(text: string): PemReadResult<CanonicalCertificate> {
  const labels = beginLabels(text);
  const refused = checkLabels(labels, false);
  if (refused !== undefined) return refused;
  const body = bareBase64(text);
  if (body === undefined) {
    return {
      ok: false,
      reason: 'invalid',
      message: 'expected a PEM or base64 DER certificate but received text that is not base64',
    };
  }
  if (labels.length === 0) {
    const decoded = Buffer.from(body, 'base64');
    if (isPemText(decoded)) return readEncodedPem(decoded);
  }
  return parseCertificateBody(body);
}

/** The canonical PKCS#8 PEM of an RSA private key and its parsed form. */
export interface CanonicalPrivateKey {
  pem: string;
  key: KeyObject;
}

function parseKeyDer(der: Buffer, label: string | undefined): KeyObject {
  if (label === 'RSA PRIVATE KEY') return createPrivateKey({ key: der, format: 'der', type: 'pkcs1' });
  if (label === 'EC PRIVATE KEY') return createPrivateKey({ key: der, format: 'der', type: 'sec1' });
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } catch (error) {
    if (label !== undefined) throw error;
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs1' });
  }
}

/**
 * Reads an unencrypted RSA private key given as PKCS#8 or PKCS#1, with or without BEGIN/END lines and
 * in any line layout, and returns it as canonical PKCS#8 PEM (`BEGIN PRIVATE KEY`), the only form
 * java-saml loads. Encrypted and non-RSA keys are refused. Messages never contain key material.
 */
export function readPrivateKey(text: string): PemReadResult<CanonicalPrivateKey> {
  const labels = beginLabels(text);
  const label = labels[0];
  if (labels.length > 1) {
    return {
      ok: false,
      reason: 'invalid',
      message: `expected one private key but received ${labels.length} PEM blocks`,
    };
  }
  if (label === 'ENCRYPTED PRIVATE KEY' || /Proc-Type:\s*4,\s*ENCRYPTED/i.test(text)) {
    return {
      ok: false,
      reason: 'encrypted',
      message: 'expected an unencrypted private key but received an encrypted one',
    };
  }
  if (label !== undefined && !['PRIVATE KEY', 'RSA PRIVATE KEY', 'EC PRIVATE KEY'].includes(label)) {
    return {
      ok: false,
      reason: 'invalid',
      message: `expected an RSA private key but received ${describeLabel(label)}`,
    };
  }
  const body = bareBase64(text);
  if (body === undefined) {
    return {
      ok: false,
      reason: 'invalid',
      message: 'expected a PEM or base64 DER private key but received text that is not base64',
    };
  }
  let key: KeyObject;
  try {
    key = parseKeyDer(Buffer.from(body, 'base64'), label);
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_MISSING_PASSPHRASE') {
      return {
        ok: false,
        reason: 'encrypted',
        message: 'expected an unencrypted private key but received an encrypted one',
      };
    }
    return {
      ok: false,
      reason: 'invalid',
      message: 'expected a PKCS#8 or PKCS#1 private key but the base64 does not decode to one',
    };
  }
  if (key.asymmetricKeyType !== 'rsa') {
    return {
      ok: false,
      reason: 'not_rsa',
      message: `expected an RSA private key but received a ${key.asymmetricKeyType ?? 'unknown'} key`,
    };
  }
  return { ok: true, pem: String(key.export({ type: 'pkcs8', format: 'pem' })), key };
}

/** The certificate body as one base64 line without headers, as SAML metadata carries it. */
export function certificateBase64(pem: string): string {
  return pem.replace(PEM_BOUNDARY, '').replace(/\s+/g, '');
}
