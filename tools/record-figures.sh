#!/usr/bin/env bash
# Writes a benchmark's printed figures into a document, so the figures there are the ones a script
# measured: the block between <!-- figures:NAME --> and <!-- /figures:NAME --> in FILE is replaced
# by what OUTPUT holds but logs and progress lines (the figures), under a
# line naming the command, the commit (BENCH_COMMIT, the one the run started on, or HEAD), the date
# and the machine.
#
#   record-figures.sh NAME FILE OUTPUT "COMMAND"
set -euo pipefail
name=${1:?name} file=${2:?file} output=${3:?output} command=${4:?command}
grep -q "<!-- figures:$name -->" "$file" || { echo "record-figures: no <!-- figures:$name --> block in $file" >&2; exit 1; }
commit="${BENCH_COMMIT:-$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!docs' || echo '+changes')}"
machine="$(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(uname -sr)"
block="$(mktemp)"
{
  echo "<!-- figures:$name -->"
  echo "\`$command\` on $commit, $(date -u +%Y-%m-%d), $machine; written by the script:"
  echo '```'
  # Everything the benchmark printed but logs, progress lines ([bench], [build-test-binaries]...)
  # and stack traces, with runs of blank lines squeezed.
  sed 's/\x1b\[[0-9;]*m//g' "$output" \
    | grep -v -E '^[0-9]{2}:[0-9]{2}:[0-9]{2}[.,][0-9]+ |^\[|^[A-Z][a-z]{2} [0-9]{1,2}, [0-9]{4} |^(INFO|WARNING|SEVERE):|^SLF4J|^[[:space:]]+at |^Audit done|waiting for quiet' \
    | cat -s | sed -e '/./,$!d' || true
  echo '```'
  echo "<!-- /figures:$name -->"
} >"$block"
awk -v start="<!-- figures:$name -->" -v end="<!-- /figures:$name -->" -v block="$block" '
  $0 == start { while ((getline line < block) > 0) print line; skip = 1; next }
  $0 == end { skip = 0; next }
  !skip { print }' "$file" >"$file.new"
mv "$file.new" "$file"
rm -f "$block"
echo "record-figures: $file, block $name" >&2
