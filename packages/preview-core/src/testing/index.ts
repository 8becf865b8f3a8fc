export {
  animatedGif,
  declaredSizePng,
  gradientJpeg,
  isNear,
  noiseJpeg,
  pixelAt,
  QUADRANT_COLOURS,
  quadrantImage,
  type Rgba,
  rotatedExifJpeg,
} from './image-fixtures.js';
export {
  describeStoredFileSourceConformance,
  type StoredFileSourceFixture,
} from './stored-file-source-conformance.js';
