import { describe, expect, it } from 'vitest';
import { createAddressPolicy, isPublicAddress } from './address-policy.js';

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.0.0.1',
    '172.16.5.4',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:10.1.2.3',
    'fe80::1',
    'fd00::1',
    'fc12:3456::1',
    'ff02::1',
    '64:ff9b::a00:1',
    'not-an-ip',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8'])(
    'accepts %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );
});

describe('createAddressPolicy', () => {
  it('allows listed private addresses and ranges only', () => {
    const policy = createAddressPolicy({
      allowPrivateAddresses: false,
      allowedAddresses: ['127.0.0.2', '10.1.0.0/16'],
    });
    expect([
      policy.allows('127.0.0.2'),
      policy.allows('127.0.0.1'),
      policy.allows('10.1.9.9'),
      policy.allows('10.2.0.1'),
    ]).toEqual([true, false, true, false]);
    expect(policy.allows('8.8.8.8')).toBe(true);
  });

  it('allows everything with allowPrivateAddresses', () => {
    const policy = createAddressPolicy({ allowPrivateAddresses: true, allowedAddresses: [] });
    expect(policy.allows('127.0.0.1') && policy.allows('::1') && policy.allows('169.254.169.254')).toBe(true);
  });
});
