#!/usr/bin/env bash
# Run before `npm test` (the `pretest` script) and so by `.ci/run`: the tests
# need Debian's Chromium (the browser approval test) and util-linux `script`
# from bsdutils (the pseudo-terminal tests). Installs them where it can (root
# with apt-get, as on CI), otherwise says how; no test is ever skipped for
# want of them.
set -euo pipefail
missing=()
command -v chromium >/dev/null || [ -x /usr/bin/chromium ] || missing+=(chromium)
command -v script >/dev/null || missing+=(bsdutils)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "pretest: installing ${missing[*]} (Debian packages the tests need)" >&2
  apt-get update </dev/null >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" </dev/null >&2
  exit 0
fi
echo "pretest: the tests need the Debian packages: ${missing[*]} (/usr/bin/chromium and util-linux script)." >&2
echo "Install them with: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
exit 1
