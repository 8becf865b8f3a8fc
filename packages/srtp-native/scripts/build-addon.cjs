'use strict';
// Builds the addon with node-gyp (the one the package manager provides, else npm's). A failed build
// is not an error: @collab-suite/webrtc-sfu then keeps werift's own SRTP encryption, so a machine
// without a C compiler still installs, builds and runs the workspace. Set
// SRTP_NATIVE_REQUIRED=1 to make a failed build fail (a CI that must test the addon).
const { spawnSync } = require('node:child_process');

const result = spawnSync('node-gyp', ['rebuild'], { stdio: 'inherit', shell: process.platform === 'win32' });
if (result.status !== 0) {
  const reason = result.error ? result.error.message : `node-gyp exited with ${result.status}`;
  console.warn(
    `@collab-suite/srtp-native: the addon was not built (${reason}); the SFU will use werift's SRTP.`,
  );
  if (process.env.SRTP_NATIVE_REQUIRED === '1') process.exit(1);
}
