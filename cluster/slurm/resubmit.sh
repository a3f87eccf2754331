#!/usr/bin/env bash
# Runs again only the shards of a run of submit.sh that are missing or damaged (a task that
# failed, was cancelled, ran out of time or memory, a node that died), then the merge.
#
#   cluster/slurm/resubmit.sh --dir RUN [--cpus C] [--mem M] [--time T] [--sbatch "ARGS"]
#
# Reads RUN/run.env (written by submit.sh), asks `outflank merge --missing N RUN/shards`
# which shards to run, cancels the run's old merge job (which waits for an array that failed
# and would never start) and submits an array of just those shards and a new merge job. When
# no shard is missing and the merged output is not there, it submits the merge alone. Options
# given here override the run's (more memory or time for the tasks that ran out of it).
# Don't run it while the run's array is still running: those shards are not written yet.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dir="" new_cpus="" new_mem="" new_time="" new_extra=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir=$2; shift 2 ;;
    --cpus) new_cpus=$2; shift 2 ;;
    --mem) new_mem=$2; shift 2 ;;
    --time) new_time=$2; shift 2 ;;
    --sbatch) new_extra=$2; shift 2 ;;
    *) echo "resubmit.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ -z "$dir" ] || [ ! -f "$dir/run.env" ]; then
  echo "usage: resubmit.sh --dir RUN (a directory made by submit.sh, with run.env)" >&2
  exit 2
fi
dir=$(cd "$dir" && pwd)
# shellcheck disable=SC1091
. "$dir/run.env"
cpus=${new_cpus:-$cpus} mem=${new_mem:-$mem} time=${new_time:-$time} extra=${new_extra:-$extra}

if squeue -h -j "$(cat "$dir/array.jobid" 2>/dev/null || echo 0)" 2>/dev/null | grep -q .; then
  echo "resubmit.sh: the run's array job $(cat "$dir/array.jobid") is still queued or running; wait for it" >&2
  exit 1
fi
todo=$("$bin" merge --missing "$shards" "$dir/shards")
if [ -f "$dir/merge.jobid" ]; then
  scancel "$(cat "$dir/merge.jobid")" 2>/dev/null || true
fi
if [ -z "$todo" ]; then
  if [ -f "$out" ]; then
    echo "nothing to do: every shard is there and $out is merged"
    exit 0
  fi
  # shellcheck disable=SC2086
  merge=$(sbatch --parsable --job-name=outflank-merge --cpus-per-task=1 --mem="${merge_mem:-$mem}" $extra \
    --output="$dir/logs/merge-%j.out" "$here/merge.sbatch" "$bin" "$dir/shards" "$out")
  merge=${merge%%;*}
  echo "$merge" >"$dir/merge.jobid"
  echo "every shard is there; merge $merge -> $out"
  exit 0
fi
echo "shards to run again: $todo"
args=(--dir "$dir" --shards "$shards" --cpus "$cpus" --mem "$mem" --out "$out" --only "$todo")
# shellcheck disable=SC2154 # merge_mem comes from run.env
[ -n "${merge_mem:-}" ] && args+=(--merge-mem "$merge_mem")
[ -n "$time" ] && args+=(--time "$time")
[ -n "$extra" ] && args+=(--sbatch "$extra")
# shellcheck disable=SC2154 # step comes from run.env
OUTFLANK=$bin exec "$here/submit.sh" "${args[@]}" -- "${step[@]}"
