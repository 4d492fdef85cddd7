#!/usr/bin/env bash
# The clang-format check CI runs (from scripts/test.sh): every tracked C++ file (*.cpp, *.cc, *.h,
# *.hpp) must be clang-format clean under the repository's .clang-format, except the files listed
# in scripts/format-legacy.txt — those that were not clean when the check was introduced. So a
# new file is checked from its first commit, a legacy file once it is formatted and taken off the
# list, and a fresh clone (CI has no base branch to diff against) checks exactly the same files
# as a developer's tree. The list only shrinks.
#
#   scripts/check-format.sh            check; exit 1 naming each file that is not clean
#   scripts/check-format.sh --fix      format every checked file that is not clean, in place
#   scripts/check-format.sh --legacy   list the legacy files that are clean now (take them off the list)
set -euo pipefail
cd "$(dirname "$0")/.."

CLANG_FORMAT=${CLANG_FORMAT:-clang-format-22}
LEGACY=scripts/format-legacy.txt
mode=${1:-check}
case "$mode" in
  check | --fix | --legacy) ;;
  *) echo "usage: scripts/check-format.sh [--fix | --legacy]" >&2; exit 2 ;;
esac

if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1; then
  echo "check-format: $CLANG_FORMAT not found (scripts/install-deps.sh installs it)" >&2
  exit 1
fi

declare -A legacy=()
while IFS= read -r line; do
  line=${line%%#*}
  line=${line//[[:space:]]/}
  [ -n "$line" ] && legacy[$line]=1
done <"$LEGACY"

clean() { "$CLANG_FORMAT" --dry-run -Werror "$1" >/dev/null 2>&1; }

# the tracked C++ files; outside a git checkout (a source tarball), the same files found on disk
cxx_files() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files '*.cpp' '*.cc' '*.h' '*.hpp'
  else
    find . \( -path ./build -o -path './build-*' -o -path ./.git \) -prune -o -type f \
      \( -name '*.cpp' -o -name '*.cc' -o -name '*.h' -o -name '*.hpp' \) -print | sed 's|^\./||' | sort
  fi
}

bad=()
checked=0
while IFS= read -r f; do
  [ -f "$f" ] || continue  # deleted in the work tree, not yet in the index
  if [ -n "${legacy[$f]:-}" ]; then
    if [ "$mode" = "--legacy" ] && clean "$f"; then echo "$f"; fi
    continue
  fi
  [ "$mode" = "--legacy" ] && continue
  checked=$((checked + 1))
  if ! clean "$f"; then
    if [ "$mode" = "--fix" ]; then
      "$CLANG_FORMAT" -i "$f"
      echo "check-format: formatted $f"
    else
      bad+=("$f")
    fi
  fi
done < <(cxx_files)

[ "$mode" = "--legacy" ] && exit 0
if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: ${#bad[@]} of $checked checked C++ files are not clang-format clean:" >&2
  for f in "${bad[@]}"; do echo "  $f" >&2; done
  echo "format them with: $CLANG_FORMAT -i FILE (or scripts/check-format.sh --fix)" >&2
  echo "(a file moved from a path in $LEGACY may instead move its line there)" >&2
  exit 1
fi
echo "check-format: $checked C++ files clang-format clean (${#legacy[@]} legacy files in $LEGACY not checked)"
