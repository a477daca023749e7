#!/usr/bin/env bash
# The places outside `rules` that name one variant (issue 17, "the files a new variant
# touches"): files and lines of product Rust code (`*/src/`, `rules` excluded) and of the
# hand-written pages (`web/src`, the generated `web/src/types` excluded), comments not counted.
# Usage: tools/variant-sites.sh [REV]   (default: the work tree). docs/ADDING-A-GAME.md.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=("$@")
count() { # PATTERN KIND -> "files (lines)"
  local pattern=$1 kind=$2 code spec
  if [ "$kind" = rs ]; then
    code='^(?!\s*//)'; spec=('*/src/*.rs' ':!rules/')
  else
    code='^(?!\s*(//|\*|/\*))'; spec=('web/src/*.ts' ':!web/src/types/')
  fi
  local files lines
  files=$(git grep -ilP "$code(?=.*($pattern))" "${rev[@]}" -- "${spec[@]}" | wc -l)
  lines=$(git grep -ihP "$code(?=.*($pattern))" "${rev[@]}" -- "${spec[@]}" | wc -l)
  echo "$files ($lines)"
}
for v in "espionage" "secretchess6|sc6|6x6" "kriegspiel"; do
  echo "$v: Rust $(count "$v" rs), TS $(count "$v" ts)"
done
