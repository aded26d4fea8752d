#!/usr/bin/env bash
# Debian packages the test suite uses (a real browser and a real IMAP server).
# Installs only what is missing; needs root (as on the developer and CI machines).
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v dovecot >/dev/null 2>&1 || need+=(dovecot-core dovecot-imapd)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "missing system packages: ${need[*]} (install them as root)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
