import { describe, expect, it } from 'vitest';
import { SfuError } from '../errors.js';
import { httpStatusOf, sfuErrorStatus } from './http-status.js';

describe('httpStatusOf', () => {
  it('answers the status of each SFU error code, 500 for other errors', () => {
    expect(httpStatusOf(new SfuError('invalid_sdp', 'not SDP'))).toBe(400);
    expect(httpStatusOf(new SfuError('session_not_found', 'who?'))).toBe(404);
    expect(httpStatusOf(new SfuError('limit_exceeded', 'full'))).toBe(409);
    expect(httpStatusOf(new Error('bug'))).toBe(500);
    expect(Object.keys(sfuErrorStatus)).toHaveLength(11);
  });
});
