export {
  type ConformanceSample,
  type DocumentConverterFixture,
  describeDocumentConverterConformance,
} from './document-converter-conformance.js';
export {
  describeStoredFileSourceConformance,
  type StoredFileSourceFixture,
} from './stored-file-source-conformance.js';
