#!/usr/bin/env bash
# The two system packages the tests use, installed before `npm test` when they are missing:
# bubblewrap (sandbox namespaces) and Debian's Chromium (the web app's browser tests, driven by
# playwright-core, never a downloaded browser). As root on Debian or Ubuntu they are installed with
# apt-get; anywhere else the missing ones are named, and the tests that need them say so.
set -euo pipefail

missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || missing+=(chromium)
[ "${#missing[@]}" -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "tributary: installing ${missing[*]} with apt-get (used by the tests)" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "tributary: ${missing[*]} not installed; install with: sudo apt-get install ${missing[*]}" >&2
fi
