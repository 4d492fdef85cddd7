#!/usr/bin/env bash
# No function of the timing core (sim/timing/, its units included) is longer than 80 lines
# (issue 11): clang-tidy's readability-function-size over sim/timing/*.cpp and the headers they
# include from sim/timing/, with the build's compile commands.
# usage: check_function_size.sh SOURCE_DIR BUILD_DIR   (fails naming each long function)
#        check_function_size.sh --self-test             (an 81-line function is flagged, 80 is not)
set -u
TIDY=$(command -v clang-tidy-22 || command -v clang-tidy)
[ -n "$TIDY" ] || { echo "clang-tidy-22 not found (scripts/install-deps.sh installs it)"; exit 1; }
OPTS=(--quiet --checks='-*,readability-function-size' --warnings-as-errors='*'
      --config='{CheckOptions: {readability-function-size.LineThreshold: 80}}')
if [ "${1:-}" = "--self-test" ]; then
  t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
  body() { printf 'int f(int x) {\n'; for _ in $(seq 1 "$1"); do printf '  x += 1;\n'; done; printf '  return x;\n}\n'; }
  body 78 > "$t/ok.cpp"    # 78 + return + closing brace = 80 lines of body
  body 79 > "$t/long.cpp"
  "$TIDY" "${OPTS[@]}" "$t/ok.cpp" -- -std=c++20 >/dev/null 2>&1 || { echo "FAIL self-test: an 80-line function was flagged"; exit 1; }
  out=$("$TIDY" "${OPTS[@]}" "$t/long.cpp" -- -std=c++20 2>&1) && { echo "FAIL self-test: an 81-line function passed"; exit 1; }
  grep -q "long.cpp:1:.*exceeds" <<<"$out" || { echo "FAIL self-test: the message does not name long.cpp:1: $out"; exit 1; }
  echo "self-test passed"
  exit 0
fi
SRC="${1:?usage: check_function_size.sh SOURCE_DIR BUILD_DIR}"
BUILD="${2:?usage: check_function_size.sh SOURCE_DIR BUILD_DIR}"
"$TIDY" "${OPTS[@]}" -p "$BUILD" --header-filter="$SRC/sim/timing/.*" "$SRC"/sim/timing/*.cpp 2>&1 | grep -v "warnings generated\|warning generated"
status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] && echo "every function under sim/timing/ is at most 80 lines"
exit "$status"
