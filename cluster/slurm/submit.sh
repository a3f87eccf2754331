#!/usr/bin/env bash
# Runs a long step of Outflank on a Slurm cluster: a job array of N shards, then a merge job
# that waits for the whole array (afterok) and writes the output one process would have.
#
#   cluster/slurm/submit.sh --dir RUN --shards N [options] -- STEP ARGS...
#
#   cluster/slurm/submit.sh --dir runs/sp1 --shards 100 --cpus 2 --mem 1G \
#       -- train selfplay --games 100000 --depth 8 --seed 1
#
# STEP ARGS is the outflank command line of the step without --shard, --shard-dir, --out and
# --threads (`train selfplay --games 1000 --seed 3`, `solve positions.obf --hash 64`, ...).
# Every file goes under RUN: RUN/shards/*.shard (one per task), RUN/logs/ (Slurm's output),
# RUN/run.env (the settings, for resubmit.sh) and the merged output, RUN/merged.out unless
# --out says otherwise. Prints the array's and the merge's job ids.
#
# Options:
#   --dir RUN        the run's directory (required; created)
#   --shards N       shards, one array task each (required)
#   --cpus C         CPUs per task (default 1), passed to the step as --threads C
#   --mem M          memory per task (sbatch --mem, default 1G)
#   --merge-mem M    memory of the merge job (default: --mem); it holds every shard's items
#                    and the output at once: about twice the output's size
#   --time T         time limit per task (sbatch --time, default: the partition's)
#   --out FILE       the merged output (default RUN/merged.out)
#   --only LIST      run only these shards (sbatch's array syntax: 1,5,7-9); resubmit.sh uses it
#   --after JOB      start the array only once job JOB has succeeded (afterok); book-rounds.sh
#                    chains the rounds of a book build with it
#   --sbatch "ARGS"  more sbatch options for both jobs (--partition, --account, --qos ...)
#
# The binary is $OUTFLANK if set, else `outflank` on the PATH; it must be reachable at that
# path from the compute nodes (a shared file system).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dir="" shards="" cpus=1 mem=1G merge_mem="" time="" out="" only="" after="" extra=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir=$2; shift 2 ;;
    --shards) shards=$2; shift 2 ;;
    --cpus) cpus=$2; shift 2 ;;
    --mem) mem=$2; shift 2 ;;
    --merge-mem) merge_mem=$2; shift 2 ;;
    --time) time=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --after) after=$2; shift 2 ;;
    --sbatch) extra=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "submit.sh: unknown option $1 (see the comment at the top of the script)" >&2; exit 2 ;;
  esac
done
if [ -z "$dir" ] || [ -z "$shards" ] || [ $# -eq 0 ]; then
  echo "usage: submit.sh --dir RUN --shards N [--cpus C] [--mem M] [--merge-mem M] [--time T] [--out FILE] [--only LIST] [--after JOB] [--sbatch ARGS] -- STEP ARGS..." >&2
  exit 2
fi
case "$shards" in
  '' | *[!0-9]* | 0) echo "submit.sh: --shards must be a positive number, got $shards" >&2; exit 2 ;;
esac

bin=${OUTFLANK:-$(command -v outflank || true)}
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
  echo "submit.sh: no outflank binary (set OUTFLANK=/path/to/outflank)" >&2
  exit 2
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
mkdir -p "$dir/shards" "$dir/logs"
dir=$(cd "$dir" && pwd)
out=${out:-$dir/merged.out}
case "$out" in /*) ;; *) out=$(pwd)/$out ;; esac

# The settings, for resubmit.sh (quoted for bash).
{
  printf 'bin=%q\nshards=%q\ncpus=%q\nmem=%q\nmerge_mem=%q\ntime=%q\nout=%q\nextra=%q\n' \
    "$bin" "$shards" "$cpus" "$mem" "$merge_mem" "$time" "$out" "$extra"
  printf 'step=('
  printf '%q ' "$@"
  printf ')\n'
} >"$dir/run.env"

array=${only:-0-$((shards - 1))}
array_opt=()
[ -n "$time" ] && array_opt=(--time="$time")
[ -n "$after" ] && array_opt+=(--dependency=afterok:"$after")
# shellcheck disable=SC2086 # $extra is a list of options
job=$(sbatch --parsable --job-name=outflank-shards --array="$array" \
  --cpus-per-task="$cpus" --mem="$mem" "${array_opt[@]}" $extra \
  --output="$dir/logs/shard-%A_%a.out" \
  "$here/shard.sbatch" "$bin" "$dir/shards" "$shards" "$cpus" "$@")
job=${job%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable --job-name=outflank-merge --dependency=afterok:"$job" \
  --cpus-per-task=1 --mem="${merge_mem:-$mem}" $extra \
  --output="$dir/logs/merge-%j.out" \
  "$here/merge.sbatch" "$bin" "$dir/shards" "$out")
merge=${merge%%;*}
echo "$job" >"$dir/array.jobid"
echo "$merge" >"$dir/merge.jobid"
echo "array $job ($array of $shards shards), merge $merge -> $out"
