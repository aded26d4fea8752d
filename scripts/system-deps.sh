#!/usr/bin/env bash
# Debian packages the test suite uses (a real browser and a real IMAP server).
# Installs only what is missing; needs root (as on the developer and CI machines) only then.
#
# Nothing missing -> the package manager is not run at all (so a lock another apt holds does
# not matter). Something missing -> apt waits for the dpkg lock up to SYSTEM_DEPS_LOCK_WAIT
# seconds (default 300): `-o DPkg::Lock::Timeout` for dpkg's frontend lock, and, since
# `apt-get update` takes the lists lock that this option does not cover in every apt version
# (nor do apt releases before 1.9.11 know the option), every apt-get call is retried every
# SYSTEM_DEPS_RETRY_SECONDS (default 5) while it fails on a lock, until that bound.
set -euo pipefail

LOCK_WAIT="${SYSTEM_DEPS_LOCK_WAIT:-300}"
RETRY_EVERY="${SYSTEM_DEPS_RETRY_SECONDS:-5}"

# package -> the file of it the tests run (looked up on PATH and the system directories,
# which a user's PATH may lack)
declare -A FILE_OF=(
  [chromium]=chromium              # tests/browser (/usr/bin/chromium)
  [dovecot-core]=dovecot           # tests/mail/dovecot.py (/usr/sbin/dovecot)
  [dovecot-imapd]=imap             # the IMAP service dovecot starts (/usr/lib/dovecot/imap)
)
PACKAGES=(chromium dovecot-core dovecot-imapd)

have_file() {
  PATH="$PATH:/usr/sbin:/sbin:/usr/lib/dovecot" command -v "$1" >/dev/null 2>&1
}

installed() {  # dpkg says the package is installed, and the file the tests use is there
  if command -v dpkg-query >/dev/null 2>&1; then
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ] || return 1
  fi  # (no dpkg: a system without apt, where only the files can tell)
  have_file "${FILE_OF[$1]}"
}

need=()
for pkg in "${PACKAGES[@]}"; do
  installed "$pkg" || need+=("$pkg")
done
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "missing system packages: ${need[*]} (install them as root)" >&2
  exit 1
fi

# apt-get "$@", retried while another package manager holds a lock, up to LOCK_WAIT seconds
apt_get() {
  local deadline=$((SECONDS + LOCK_WAIT)) out
  while true; do
    if out=$(apt-get -o "DPkg::Lock::Timeout=$LOCK_WAIT" "$@" 2>&1); then
      return 0
    fi
    if ! grep -qE 'Could not get lock|Unable to acquire the dpkg frontend lock|Unable to lock' \
        <<<"$out"; then
      printf '%s\n' "$out" >&2
      return 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      printf '%s\n' "$out" >&2
      echo "system-deps: apt is still locked by another package manager after ${LOCK_WAIT} s" \
        "(SYSTEM_DEPS_LOCK_WAIT)" >&2
      return 1
    fi
    sleep "$RETRY_EVERY"
  done
}

export DEBIAN_FRONTEND=noninteractive
apt_get update -qq
apt_get install -y -qq --no-install-recommends "${need[@]}"
