export { type CertificateSummary, summarizeCertificate } from './certificates/inspect.js';
export {
  type CanonicalCertificate,
  type CanonicalPrivateKey,
  readCertificate,
  readPrivateKey,
} from './certificates/pem.js';
export {
  isSamlConfigError,
  SamlConfigError,
  type SamlConfigErrorCode,
  type SamlConfigErrorOptions,
  samlConfigErrorCodes,
} from './errors.js';
export { type AddressPolicy, createAddressPolicy, isPublicAddress } from './fetch/address-policy.js';
export {
  createMemoryDocumentFetcher,
  type DocumentFetcher,
  type FetchDocumentRequest,
  type FetchedDocument,
} from './fetch/document-fetcher.js';
export {
  createHttpDocumentFetcher,
  type HttpDocumentFetcherOptions,
  httpDocumentFetcherOptionsSchema,
} from './fetch/http-document-fetcher.js';
export { type GeneratedCertificate, generateCertificate } from './generate/generate-certificate.js';
export {
  type CertificateDigest,
  type CertificateOptions,
  checkCertificateOptions,
  type GenerateParameters,
  MAX_CERTIFICATE_DAYS,
  parseGenerateParameters,
  SUBJECT_FIELD_LENGTHS,
  SUBJECT_TEXT_PATTERN,
} from './generate/generate-parameters.js';
export { httpStatusOf, retryAfterSecondsOf, samlConfigErrorHttpStatus } from './http-status.js';
export {
  type DocumentFormat,
  type ReadDocument,
  type ReadDocumentOptions,
  readDocument,
} from './import/read-document.js';
export { type SignMetadataResult, signSpMetadata } from './metadata/sign-metadata.js';
export { buildSpMetadata, type SpMetadataOptions } from './metadata/sp-metadata.js';
export {
  type DefaultsContext,
  defaultAcsUrlTemplate,
  defaultProperties,
  defaultSpEntityIdTemplate,
  effectiveProperties,
} from './model/defaults.js';
export { DOMAIN_PATTERN, MAX_DOMAIN_LENGTH, normalizeDomain } from './model/domain.js';
export {
  type IdpAlternativeIndex,
  idpAlternativeIndexes,
  idpAlternativeKeys,
  MAX_IDP_ALTERNATIVES,
} from './model/idp-alternatives.js';
export { type SamlIssue, summarizeIssues } from './model/issues.js';
export {
  type ParsedProperties,
  parseProperties,
  parsePropertyKeyList,
  parsePropertyUpdate,
  type SamlPropertyUpdate,
} from './model/parse-properties.js';
export {
  authnContextComparisons,
  digestAlgorithms,
  isSamlPropertyKey,
  nameIdFormats,
  type SamlBooleanPropertyKey,
  type SamlProperties,
  type SamlPropertyDefinition,
  type SamlPropertyKey,
  type SamlPropertyKind,
  samlBindings,
  samlPropertyDefinitions,
  samlPropertyKeys,
  signatureAlgorithms,
} from './model/property-definitions.js';
export {
  createSamlConfigService,
  type DocumentSource,
  type GenerateResult,
  type ImportResult,
  type SamlConfigService,
  type ValidationResult,
} from './service/saml-config-service.js';
export {
  type SamlConfigLogger,
  type SamlConfigServiceOptions,
  samlConfigServiceOptionsSchema,
} from './service/service-options.js';
export { createMemorySamlPropertyStore } from './store/memory-property-store.js';
export type { SamlPropertyChange, SamlPropertyStore } from './store/property-store.js';
export type { NodeSamlConfig } from './toolkits/node-saml-config.js';
export { type ToNodeSamlConfigOptions, toNodeSamlConfig } from './toolkits/to-node-saml-config.js';
export {
  type ValidateOptions,
  type ValidationReport,
  validateProperties,
} from './validation/validate-properties.js';
