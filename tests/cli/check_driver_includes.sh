#!/usr/bin/env bash
# The drivers include only api/: every `#include "..."` in the CLI (tools/) and the Python
# bindings (python/src/) names an api/ header; third-party and standard headers use <...>.
# usage: check_driver_includes.sh SOURCE_DIR        (fails listing each offending line)
#        check_driver_includes.sh --self-test        (the check flags a bad include, passes a good one)
set -u
check() {  # check DIR...: prints offending lines, returns 1 if any
  local bad
  bad=$(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$@" --include='*.cpp' --include='*.h' --include='*.hpp' \
        | grep -vE '#[[:space:]]*include[[:space:]]*"api/[^"]+"')
  if [ -n "$bad" ]; then
    echo "the CLI and the Python bindings may include only api/ headers (docs/architecture.md); these do not:"
    echo "$bad"
    return 1
  fi
  return 0
}
if [ "${1:-}" = "--self-test" ]; then
  t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
  mkdir -p "$t/good" "$t/bad"
  printf '#include <vector>\n#include "api/run.h"\n' > "$t/good/main.cpp"
  printf '#include "api/run.h"\n  #include "device/loader.h"\n' > "$t/bad/core.cpp"
  check "$t/good" >/dev/null || { echo "FAIL self-test: a driver including only api/ was flagged"; exit 1; }
  out=$(check "$t/bad") && { echo "FAIL self-test: device/loader.h was not flagged"; exit 1; }
  grep -q "core.cpp:2:" <<<"$out" || { echo "FAIL self-test: the message does not name core.cpp:2: $out"; exit 1; }
  echo "self-test passed"
  exit 0
fi
SRC="${1:?usage: check_driver_includes.sh SOURCE_DIR}"
check "$SRC/tools" "$SRC/python/src" || exit 1
echo "drivers include only api/"
