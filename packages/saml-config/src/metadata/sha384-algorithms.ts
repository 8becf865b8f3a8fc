import { type BinaryLike, createHash, createSign, createVerify, type KeyLike } from 'node:crypto';
import {
  createOptionalCallbackFunction,
  type HashAlgorithm,
  type SignatureAlgorithm,
  type SignedXml,
} from 'xml-crypto';
import { digestAlgorithms, signatureAlgorithms } from '../model/property-definitions.js';

/** The sha384 digest (`xmldsig-more#sha384`), which xml-crypto 6 does not register itself. */
class Sha384Digest implements HashAlgorithm {
  getAlgorithmName(): string {
    return digestAlgorithms.sha384;
  }

  getHash(xml: string): string {
    return createHash('sha384').update(xml, 'utf8').digest('base64');
  }
}

/** RSASSA-PKCS1-v1_5 with SHA-384 (`xmldsig-more#rsa-sha384`), which xml-crypto 6 does not register. */
class RsaSha384Signature implements SignatureAlgorithm {
  getSignature = createOptionalCallbackFunction((signedInfo: BinaryLike, privateKey: KeyLike) =>
    createSign('RSA-SHA384').update(signedInfo).sign(privateKey, 'base64'),
  );

  verifySignature = createOptionalCallbackFunction((material: string, key: KeyLike, signatureValue: string) =>
    createVerify('RSA-SHA384').update(material).verify(key, signatureValue, 'base64'),
  );

  getAlgorithmName(): string {
    return signatureAlgorithms.rsaSha384;
  }
}

/**
 * Registers the SHA-384 digest and rsa-sha384 signature on one signer, so every URI that
 * `security.digest_algorithm` and `security.signature_algorithm` accept can be used. Only hashing
 * and RSA signing are added here; canonicalisation stays xml-crypto's.
 */
export function registerSha384Algorithms(signer: SignedXml): void {
  signer.HashAlgorithms[digestAlgorithms.sha384] = Sha384Digest;
  signer.SignatureAlgorithms[signatureAlgorithms.rsaSha384] = RsaSha384Signature;
}
