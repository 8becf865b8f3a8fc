import { describe, expect, it } from 'vitest';
import { redactRequestTarget, redactSettingValue, redactUrlCredentials } from './redact.js';

describe('redaction of secrets in text', () => {
  it('drops the password of URLs and keeps user and host', () => {
    expect(redactUrlCredentials('at postgres://chat:pl@nted@db:5432/chat now')).toBe(
      'at postgres://chat:[redacted]@db:5432/chat now',
    );
    expect(redactUrlCredentials('redis://:hidden@cache:6379/2')).toBe('redis://:[redacted]@cache:6379/2');
    expect(redactUrlCredentials('http://host:8080/a?b=c@d')).toBe('http://host:8080/a?b=c@d');
  });

  it('redacts secret query values and passwords in URL values, encoded or not', () => {
    expect(redactRequestTarget('/a?url=https%3A%2F%2Fuser%3Aplanted%40idp.example%2Fm&x=1')).toBe(
      `/a?url=${encodeURIComponent('https://user:[redacted]@idp.example/m')}&x=1`,
    );
    expect(redactRequestTarget('/a?url=https://user:planted@idp.example/m')).not.toContain('planted');
    expect(
      redactRequestTarget('/p?access_token=t1&api_key=k1&signature=s1&password=p1&secret=x&keep=1'),
    ).toBe(
      '/p?access_token=[redacted]&api_key=[redacted]&signature=[redacted]&password=[redacted]&secret=[redacted]&keep=1',
    );
    expect(redactRequestTarget('/events?queueId=0b5a3c52-8f0e-4c8e-9a51-3f7d2c1e9b40&v=2')).toBe(
      '/events?queueId=[redacted]&v=2',
    );
    expect(redactRequestTarget('/plain/path')).toBe('/plain/path');
  });

  it('shows a secret setting by its length only', () => {
    expect(redactSettingValue('AUTH_JWT_SECRET', 'planted')).toBe('a value of 7 bytes ([redacted])');
    expect(redactSettingValue('CHAT_DATABASE_URL', 'mysql://u:planted@db/chat')).toBe(
      '"mysql://u:[redacted]@db/chat"',
    );
  });
});
