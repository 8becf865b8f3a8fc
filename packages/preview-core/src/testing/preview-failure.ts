import { PreviewError } from '../errors.js';

/** The PreviewError `promise` rejects with; any other outcome fails the test. */
export async function previewFailure(promise: Promise<unknown>): Promise<PreviewError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PreviewError) return error;
    throw error;
  }
  throw new Error('expected a PreviewError');
}
