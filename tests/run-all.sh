#!/usr/bin/env bash
# `npm test`: every test. Type check (with route typegen), the production build (the integration and e2e
# tests serve it), unit and integration tests (real PGlite, the Cognito stand-in over HTTP, a real SMTP
# capture), then Playwright in Debian's Chromium with JavaScript on and off.
set -euo pipefail
cd "$(dirname "$0")/.."

# What the browser tests need from Debian: its Chromium, and the Japanese font the layout checks measure pages in
# (without it Chromium falls back to whatever font it finds, and Japanese lines wrap at other widths).
missing=()
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || missing+=(chromium)
[ -n "$(fc-list "Noto Sans CJK JP" 2>/dev/null)" ] || missing+=(fonts-noto-cjk)
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing Debian's ${missing[*]} for the browser tests (needs root and the Debian mirror)..."
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

echo "== type check =="
npm run typecheck

echo "== lint (layer rules included) and format check =="
npm run lint
npm run format:check

echo "== production build (React Router's and the compiled server) =="
npm run build

echo "== unit and integration tests =="
npx vitest run

echo "== end-to-end (Chromium, JavaScript on and off) =="
npx playwright test
