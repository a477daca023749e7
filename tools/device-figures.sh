#!/bin/sh
# Issue 14's 16-core figures in one prepared run on a lent machine (docs/LOADTEST.md,
# "Commands"): about 7 minutes of load, every figure in one log.
#
#   tools/device-figures.sh pack [REF_BINARY]   # here: strip and xz this tree's release binary
#                                               # (and a reference build) into .device/
#   tools/device-figures.sh run                 # there: the runs, log in $OUT (or ./out)
#
# `pack` needs `cargo build --release --locked -p fogproof-cli` first. It writes
# .device/fogproof.xz (this tree) and, with REF_BINARY, .device/ref.xz: a release build of an
# earlier commit to run beside it (build it in a worktree of its own). Add `/.device/` to
# .git/info/exclude, and name `.device` in the device call's `carry` (the two binaries,
# stripped and compressed, are about 15 MiB; the carry limit is 64 MiB with the tree).
#
# `run` unpacks them, raises the open-file limit as far as it is let, and runs, each
# `fogproof loadtest --spawn-server` on that machine's cores:
#   1. saturation with the umpire in a process of its own, `after` (this tree) and `before` (the
#      reference) alternating, two rounds, 15 s windows: throughput, CPU per message for the
#      server and the umpire against their bounds, memory per match;
#   1b. the same saturation with the server (and umpire) on 4, then 8 tokio worker threads;
#   2. 2,500 starts at 250 per second (`--ramp 250`): starts/s, errors;
#   3. 10,000 Kriegspiel matches at one move per 5 s, four matches per pair of keys over one
#      socket per key (`--matches-per-pair 4`, which fits 20,000 open files): players' p99,
#      server p99, starts/s, memory per match;
#   3b. the same on 4 server (and umpire) worker threads: whether the CPU per message at this
#      moderate load (stop 18: 402 us, most cores idle) is workers woken from idle.
# Each run is cut at its own time limit; the log says which ended how.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
pack=$here/.device
case ${1:-} in
pack)
    mkdir -p "$pack"
    strip -o "$pack/fogproof" "$here/target/release/fogproof"
    xz -T0 -6 -f "$pack/fogproof"
    if [ -n "${2:-}" ]; then
        strip -o "$pack/ref" "$2"
        xz -T0 -6 -f "$pack/ref"
    fi
    ls -la "$pack"
    exit 0
    ;;
run) ;;
*)
    echo "usage: tools/device-figures.sh pack [REF_BINARY] | run" >&2
    exit 2
    ;;
esac

out=${OUT:-$here/out}
mkdir -p "$out"
log=$out/figures.log
bin=/tmp/fogproof-device
rm -rf "$bin" && mkdir -p "$bin"
xz -dc "$pack/fogproof.xz" >"$bin/after" && chmod +x "$bin/after" || exit 1
if [ -f "$pack/ref.xz" ]; then
    xz -dc "$pack/ref.xz" >"$bin/before" && chmod +x "$bin/before"
fi
ulimit -n "$(ulimit -Hn)" 2>/dev/null
{
    echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, open files $(ulimit -n) (hard $(ulimit -Hn)), $(uname -r)"
    echo "after: $("$bin/after" --version 2>&1)"
    [ -x "$bin/before" ] && echo "before: $("$bin/before" --version 2>&1)"
} >"$log"

# One load test: NAME BINARY LIMIT_S OPTIONS...
load() {
    name=$1 b=$2 limit=$3
    shift 3
    dir=$(mktemp -d /tmp/fogproof-device-run.XXXXXX)
    echo "== $name ($(basename "$b")): loadtest --spawn-server $* [$(date -u +%H:%M:%S)]" >>"$log"
    (cd "$dir" && timeout "$limit" "$b" loadtest --spawn-server "$@" >"$dir/out.txt" 2>&1)
    rc=$?
    cat "$dir/out.txt" >>"$log"
    echo "== $name: exit $rc$([ $rc -eq 124 ] && echo ' (cut at its time limit)')" >>"$log"
    rm -rf "$dir"
}

# QUICK=1: the same runs, a fiftieth of the matches and short windows (to try the script here).
if [ "${QUICK:-0}" = 1 ]; then
    sat=6 starts=50 many=200 window=3
else
    sat=300 starts=2500 many=10000 window=15
fi
saturation="--umpire-process --matches $sat --move-interval-ms 0 --ramp 100 --warmup 5 --duration $window --drain 3 --seed 23"
for round in 1 2; do
    load "saturation, round $round" "$bin/after" 60 $saturation
    [ -x "$bin/before" ] && load "saturation, round $round" "$bin/before" 60 $saturation
done
# Whether the server's runtime costs more with a worker per core than it needs (the 16-core
# runs spent twice this VM's CPU per message): the same saturation with 4 and 8 workers.
for threads in 4 8; do
    load "saturation, $threads server threads" "$bin/after" 60 $saturation --server-threads $threads
done
load "starts" "$bin/after" 60 --matches $starts --move-interval-ms 5000 --ramp 250 --warmup 0 \
    --duration 5 --drain 15 --seed 41
for threads in default 4; do
    extra=""
    [ "$threads" = default ] || extra="--server-threads $threads"
    load "10,000 matches, $threads server threads" "$bin/after" 150 --matches $many \
        --matches-per-pair 4 --move-interval-ms 5000 --ramp 250 --warmup 5 \
        --duration $((2 * window)) --drain 20 --seed 41 $extra
done
grep -E '^== |throughput|CPU|p99|playing|errors|memory|bound|runtime' "$log" >"$out/summary.txt"
echo "log: $log"
