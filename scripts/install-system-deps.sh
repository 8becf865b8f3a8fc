#!/usr/bin/env bash
# Installs what the tests need beyond Node: pnpm, and (as root, on Debian/Ubuntu) LibreOffice without
# a GUI, python3-uno for the warm conversion pool, metric-compatible fonts, Chromium and Firefox ESR
# for the WebRTC browser tests, HAProxy for the cluster test, nginx and systemd-analyze for the deployment tests,
# qpdf for the encrypted-PDF samples, and ejabberd for the XMPP chat mirror tests (they start
# private servers through `erl`; the Debian service itself is not used). Idempotent; skips what is
# already there.
set -euo pipefail

pnpm_version=10.34.9
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version)" != "$pnpm_version" ]; then
  npm install --global "pnpm@$pnpm_version"
fi

packages=(
  libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui python3-uno
  fonts-dejavu-core fonts-liberation2 fonts-crosextra-carlito fonts-crosextra-caladea
  chromium firefox-esr openssl iproute2 util-linux haproxy xmlsec1 nginx systemd qpdf ejabberd
)
missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
  done
fi
if [ ${#missing[@]} -eq 0 ]; then
  echo "system packages: all present"
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "system packages missing (${missing[*]}): run this script as root on Debian to install them;" >&2
  echo "tests that need LibreOffice or Chromium will fail without them." >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
