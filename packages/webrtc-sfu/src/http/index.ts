export { httpStatusOf, sfuErrorStatus } from './http-status.js';
