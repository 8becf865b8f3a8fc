export { httpStatusOf, previewErrorStatus, retryAfterSecondsOf } from './http-status.js';
