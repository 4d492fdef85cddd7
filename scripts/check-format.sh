#!/usr/bin/env bash
# The clang-format check CI runs (from scripts/test.sh): every C++ file listed in
# scripts/format-clean.txt must be clang-format clean under the repository's .clang-format. The
# list holds the files that are clean; it grows as files are formatted and never shrinks, so a
# formatted file stays formatted. A list in the tree means the same in a fresh clone (CI has no
# base branch to diff against) as in a developer's tree, and today's unformatted files do not
# fail it.
#
#   scripts/check-format.sh           check; exit 1 naming each listed file that is not clean
#   scripts/check-format.sh --fix     format the listed files that are not clean, in place
#   scripts/check-format.sh --unlisted  print the tracked C++ files that are clean but not listed (add them)
set -euo pipefail
cd "$(dirname "$0")/.."

CLANG_FORMAT=${CLANG_FORMAT:-clang-format-22}
LIST=scripts/format-clean.txt
mode=${1:-check}
case "$mode" in
  check | --fix | --unlisted) ;;
  *) echo "usage: scripts/check-format.sh [--fix | --unlisted]" >&2; exit 2 ;;
esac

if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1; then
  echo "check-format: $CLANG_FORMAT not found (scripts/install-deps.sh installs it)" >&2
  exit 1
fi

clean() { "$CLANG_FORMAT" --dry-run -Werror "$1" >/dev/null 2>&1; }

listed=()
declare -A is_listed=()
while IFS= read -r line; do
  line=${line%%#*}
  line=${line//[[:space:]]/}
  [ -n "$line" ] || continue
  listed+=("$line")
  is_listed[$line]=1
done <"$LIST"

if [ "$mode" = "--unlisted" ]; then
  # the tracked C++ files; outside a git checkout (a source tarball), the same files found on disk
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    files=$(git ls-files '*.cpp' '*.cc' '*.h' '*.hpp')
  else
    files=$(find . \( -path ./build -o -path './build-*' -o -path ./.git \) -prune -o -type f \
      \( -name '*.cpp' -o -name '*.cc' -o -name '*.h' -o -name '*.hpp' \) -print | sed 's|^\./||' | sort)
  fi
  for f in $files; do
    [ -f "$f" ] && [ -z "${is_listed[$f]:-}" ] && clean "$f" && echo "$f"
  done
  exit 0
fi

bad=()
checked=0
for f in "${listed[@]}"; do
  if [ ! -f "$f" ]; then
    # moved or deleted: not a formatting error, but the list should follow the file
    echo "check-format: $f is listed in $LIST but does not exist (update the list)" >&2
    continue
  fi
  checked=$((checked + 1))
  clean "$f" && continue
  if [ "$mode" = "--fix" ]; then
    "$CLANG_FORMAT" -i "$f"
    echo "check-format: formatted $f"
  else
    bad+=("$f")
  fi
done

if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: ${#bad[@]} of the $checked C++ files in $LIST are not clang-format clean:" >&2
  for f in "${bad[@]}"; do echo "  $f" >&2; done
  echo "format them with: $CLANG_FORMAT -i FILE (or scripts/check-format.sh --fix)" >&2
  exit 1
fi
echo "check-format: the $checked C++ files in $LIST are clang-format clean"
