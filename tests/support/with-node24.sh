#!/usr/bin/env bash
# Runs a command with Node 24 LTS first on PATH: `bash tests/support/with-node24.sh npx vitest run`.
# Production runs Node 24 (docs/deployment.md) while these machines have Node 20, so CI's test passes and the
# benchmarks' production figures use it. Node's binaries are published on the npm registry
# (node-<platform>-<arch>), so npm alone fetches them, into a directory of their own (kept between runs when
# NODE24_DIR names one) so that npm scripts elsewhere keep the machine's Node.
set -euo pipefail
NODE24_VERSION=24.21.0
NODE24_PACKAGE="node-$(node -p 'process.platform + "-" + process.arch')"
NODE24_DIR=${NODE24_DIR:-$(mktemp -d /tmp/node24-XXXXXX)}
NODE24_BIN="$NODE24_DIR/node_modules/$NODE24_PACKAGE/bin"
if [ "$("$NODE24_BIN/node" --version 2>/dev/null)" != "v$NODE24_VERSION" ]; then
  npm install --prefix "$NODE24_DIR" --no-save --no-audit --no-fund "$NODE24_PACKAGE@$NODE24_VERSION" >/dev/null
fi
export PATH="$NODE24_BIN:$PATH"
test "$(node --version)" = "v$NODE24_VERSION"
exec "$@"
