#!/usr/bin/env bash
# Run before `npm test` (the `pretest` script) and so by `.ci/run`: the
# CopilotKit tests (test/copilotkit/) put CopilotKit's own runtime in front of
# the AG-UI handler. CopilotKit is heavy and pins its own AG-UI, zod and AI SDK
# versions, so it lives in a package of its own, test/copilotkit/fixture, with
# its own lock file, and never enters the library's dependencies.
#
# Installs exactly what that lock file says (`npm ci`), without peer
# dependencies or install scripts, and only when the lock file changed since
# the last install (a stamp in its node_modules). No test is skipped for want
# of it: without the registry this fails and says so.
set -euo pipefail
cd "$(dirname "$0")/../test/copilotkit/fixture"
stamp=node_modules/.switchyard-lock-sha256
wanted=$(sha256sum package-lock.json | cut -d ' ' -f 1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then exit 0; fi
echo "pretest: installing CopilotKit for test/copilotkit (test/copilotkit/fixture, its own lock file)" >&2
# CopilotKit's packages report installs and runs unless told not to.
export SCARF_ANALYTICS=false COPILOTKIT_TELEMETRY_DISABLED=true DO_NOT_TRACK=1
if ! npm ci --omit=peer --ignore-scripts --no-audit --no-fund --loglevel=error >&2; then
  echo "pretest: could not install test/copilotkit/fixture; run: npm ci --prefix test/copilotkit/fixture --omit=peer --ignore-scripts" >&2
  exit 1
fi
echo "$wanted" >"$stamp"
