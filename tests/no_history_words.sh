#!/bin/sh
# usage: no_history_words.sh SOURCE_DIR
# The source speaks of what the code does and why, not of how the project
# was made: no line names a work step or a tracker entry ("stop" or "issue"
# and a number). In a git checkout the tracked files are searched (git grep);
# elsewhere (a release tarball) every file below SOURCE_DIR except build
# folders, node_modules and .git. Fails listing every line found.
pattern='(stop|issue) [0-9]'
src=${1:?usage: no_history_words.sh SOURCE_DIR}
top=$(git -C "$src" rev-parse --show-toplevel 2>/dev/null || true)
if [ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$(cd "$src" && pwd -P)" ]; then
  how="tracked files (git grep)"
  found=$(git -C "$src" grep -nIiE "$pattern")
else
  how="files below $src (grep)"
  found=$(cd "$src" && grep -rnIiE "$pattern" --exclude-dir='build*' --exclude-dir=node_modules \
    --exclude-dir=.git .)
fi
if [ -n "$found" ]; then
  printf '%s\n' "$found"
  echo "FAIL: $(printf '%s\n' "$found" | wc -l) line(s) of $how speak of a work step or a tracker entry (/$pattern/, any case)"
  exit 1
fi
echo "PASS: no line of $how matches /$pattern/ (any case)"
