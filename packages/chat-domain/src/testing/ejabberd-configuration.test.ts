import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ejabberdConfigurationFromDocument } from './ejabberd-configuration.js';

const documented = readFileSync(
  fileURLToPath(new URL('../../../../docs/deployment/ejabberd.yml', import.meta.url)),
  'utf8',
);
const input = {
  domain: 'collab.test',
  mucDomain: 'muc.collab.test',
  jwkPath: '/tmp/test/jwt.jwk',
  c2sPort: 40001,
  apiPort: 40002,
  webSocketPort: 40003,
};

describe('ejabberdConfigurationFromDocument', () => {
  it('changes only names, ports and the key path of docs/deployment/ejabberd.yml', () => {
    const configuration = ejabberdConfigurationFromDocument(documented, input);
    expect(configuration).toContain('  - "collab.test"\n');
    expect(configuration).toContain('host: "muc.collab.test"');
    expect(configuration).toContain('jwt_key: "/tmp/test/jwt.jwk"');
    for (const port of [40001, 40002, 40003]) expect(configuration).toContain(`port: ${port}\n`);
    expect(configuration).not.toMatch(/chat\.example\.com"|port: 52(22|80|81)\b/);
    const changed = configuration.split('\n').filter((line, index) => line !== documented.split('\n')[index]);
    expect(changed).toHaveLength(6);
  });

  it('puts the API account in place of the loopback caller when the API is locked to one', () => {
    const configuration = ejabberdConfigurationFromDocument(documented, {
      ...input,
      apiAccess: { user: 'mirror@collab.test' },
    });
    expect(configuration).toContain('    who:\n      user: "mirror@collab.test"\n    what:');
  });

  it('names the line it no longer finds when the document changes shape', () => {
    expect(() =>
      ejabberdConfigurationFromDocument(documented.replace('port: 5281', 'port: 6000'), input),
    ).toThrow('expected /port: 5281\\b/ once in the documented ejabberd.yml but found it 0 times');
  });
});
