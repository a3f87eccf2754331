#!/usr/bin/env bash
# Builds an opening book on a Slurm cluster in rounds. A round is `book build --shard K/N`
# from the book as it stands (a job array, through submit.sh) and its merge, which writes the
# next round's book; each round's array waits for the previous round's merge (afterok). All
# the rounds are submitted at once.
#
#   cluster/slurm/book-rounds.sh --dir RUN --rounds R [--first F] [--from BOOK] \
#       --shards N [submit.sh's options] -- book build ARGS...
#
#   cluster/slurm/book-rounds.sh --dir runs/book1 --rounds 30 --shards 50 --cpus 4 --mem 2G \
#       -- book build --plies 14 --depth 18 --width 2 --positions 100000 --hash 256
#
# ARGS are book build's settings without --from, --out, --shard, --shard-dir and --threads.
# Round r goes in RUN/round-r (submit.sh's directory: shards/, logs/, run.env) and writes
# RUN/round-r/merged.out; round 1 starts from --from BOOK (default: an empty book), round r
# from RUN/round-(r-1)/merged.out. A round with nothing left to expand writes the book as it
# is, so R is a bound: the book is RUN/round-R/merged.out (`cmp` says from which round on
# the books are the same).
#
# When a task fails, Slurm never starts that round's merge nor any later round
# (DependencyNeverSatisfied): run `resubmit.sh --dir RUN/round-r`, then this script again
# with the same options and `--first r+1`; it cancels the later rounds' old jobs and chains
# the new ones to the new merge.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dir="" rounds="" first=1 from="" pass=()
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --first) first=$2; shift 2 ;;
    --from) from=$2; shift 2 ;;
    --out | --only | --after)
      echo "book-rounds.sh: $1 is set per round by this script" >&2; exit 2 ;;
    --) shift; break ;;
    -*) [ $# -ge 2 ] || { echo "book-rounds.sh: $1 needs a value" >&2; exit 2; }
        pass+=("$1" "$2"); shift 2 ;;
    *) echo "book-rounds.sh: unknown argument $1 (see the comment at the top)" >&2; exit 2 ;;
  esac
done
if [ -z "$dir" ] || [ -z "$rounds" ] || [ "${1:-}" != book ] || [ "${2:-}" != build ]; then
  echo "usage: book-rounds.sh --dir RUN --rounds R [--first F] [--from BOOK] --shards N [submit.sh options] -- book build ARGS..." >&2
  exit 2
fi
for n in "$rounds" "$first"; do
  case "$n" in '' | *[!0-9]* | 0) echo "book-rounds.sh: --rounds and --first are positive numbers, got $n" >&2; exit 2 ;; esac
done
if [ "$first" -gt "$rounds" ]; then
  echo "book-rounds.sh: --first $first is past --rounds $rounds" >&2; exit 2
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if [ -n "$from" ]; then
  [ -f "$from" ] || { echo "book-rounds.sh: --from $from: no such file" >&2; exit 2; }
  from=$(cd "$(dirname "$from")" && pwd)/$(basename "$from")
fi

# The merge the first round submitted here waits for: the previous round's, when it is
# still queued or running (none when its book is there already).
after=""
if [ "$first" -gt 1 ]; then
  prev=$dir/round-$((first - 1))
  id=$(cat "$prev/merge.jobid" 2>/dev/null || true)
  if [ -n "$id" ] && squeue -h -j "$id" 2>/dev/null | grep -q .; then
    after=$id
  elif [ ! -f "$prev/merged.out" ]; then
    echo "book-rounds.sh: round $((first - 1)) has no merged book ($prev/merged.out) and no merge waiting; resubmit.sh --dir $prev first" >&2
    exit 2
  fi
fi
for r in $(seq "$first" "$rounds"); do
  rdir=$dir/round-$r
  # A round submitted again starts afresh: its old jobs cancelled, its old shards removed.
  for f in array.jobid merge.jobid; do
    if [ -f "$rdir/$f" ]; then scancel "$(cat "$rdir/$f")" 2>/dev/null || true; fi
  done
  rm -rf "$rdir/shards" "$rdir/merged.out"
  if [ "$r" -eq 1 ]; then book=$from; else book=$dir/round-$((r - 1))/merged.out; fi
  step=("$@")
  [ -n "$book" ] && step+=(--from "$book")
  "$here/submit.sh" --dir "$rdir" "${pass[@]}" ${after:+--after "$after"} -- "${step[@]}" |
    sed "s/^/round $r: /"
  after=$(cat "$rdir/merge.jobid")
done
echo "the book: $dir/round-$rounds/merged.out"
