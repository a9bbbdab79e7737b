#!/bin/sh
# Installs the npm packages forge's tests and benchmarks run against (the official SDKs, a load
# generator), pinned by package-lock.json, into tests/npm/node_modules (git-ignored).
set -e
cd "$(dirname "$0")"
if ! command -v npm >/dev/null 2>&1; then
  echo "forge: npm is missing: installing Debian's nodejs and npm" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm >/dev/null
fi
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
