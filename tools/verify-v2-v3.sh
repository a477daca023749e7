#!/bin/sh
# `fogproof verify` records/s, protocol version 2 beside version 3, in one run (issue 13, point 7).
#
#   tools/verify-v2-v3.sh [RECORDS] [ROUNDS] [VARIANT...]
#   tools/verify-v2-v3.sh clean
#
# Version 3 cannot read version 2 records (a record's first byte is its version), so each
# version verifies records of its own: the script builds the last version 2 commit's `fogproof`
# (V2_COMMIT, default 8b99dde, the parent of the first version 3 commit 319cd53) in a separate
# git worktree with its own target dir (release), and this tree's `fogproof` (release); each
# binary self-plays RECORDS umpired records per variant (`fogproof selfplay`, seeds 1..RECORDS),
# then the two binaries run `fogproof verify --jobs 1` over their own records alternately,
# variant by variant, ROUNDS times. Every record must verify as valid (the script stops otherwise). It prints, per variant
# and version, the mean record size (KiB/r: the same seeds do not give the same games, since
# each version's self-play draws its own), records/s by CPU time (user + system,
# `/usr/bin/time`; on a busy machine the wall clock counts other processes' time) with v3 ÷ v2,
# MB of record verified per CPU second, and records/s by wall time with v3 ÷ v2.
#
# Defaults: RECORDS 8, ROUNDS 3, variants kriegspiel sic secretchess6 (the umpired games).
# Work folder: V2V3_DIR (default /tmp/fogproof-v2v3): the records, and unless V2_TREE and
# V2_TARGET say otherwise the version 2 worktree (v2-tree) and its target dir (v2-target). This
# tree's binary: CARGO_TARGET_DIR, or ./target. Builds reuse what is there; `clean` removes the
# version 2 worktree, its target dir and the work folder.
set -eu
root=$(git rev-parse --show-toplevel)
work=${V2V3_DIR:-/tmp/fogproof-v2v3}
v2_commit=${V2_COMMIT:-8b99dde}
v2_tree=${V2_TREE:-$work/v2-tree}
v2_target=${V2_TARGET:-$work/v2-target}

if [ "${1:-}" = clean ]; then
    if [ -d "$v2_tree" ]; then
        git -C "$root" worktree remove --force "$v2_tree"
    fi
    rm -rf "$v2_target" "$work"
    exit 0
fi

records=${1:-8}
rounds=${2:-3}
shift $(( $# >= 2 ? 2 : $# ))
variants=${*:-kriegspiel sic secretchess6}

mkdir -p "$work"
if [ ! -d "$v2_tree" ]; then
    git -C "$root" worktree add --detach "$v2_tree" "$v2_commit" >&2
fi
echo "building version 2 ($v2_commit) in $v2_tree, target $v2_target" >&2
(cd "$v2_tree" && cargo build --release --locked -p fogproof-cli --target-dir "$v2_target" >&2)
v3_target=${CARGO_TARGET_DIR:-$root/target}
echo "building version 3 ($(git -C "$root" rev-parse --short HEAD)) in $root, target $v3_target" >&2
(cd "$root" && cargo build --release --locked -p fogproof-cli --target-dir "$v3_target" >&2)
v2_bin=$v2_target/release/fogproof
v3_bin=$v3_target/release/fogproof

# Self-play: RECORDS records per variant and version, kept between runs.
for v in v2 v3; do
    eval "bin=\$${v}_bin"
    for variant in $variants; do
        mkdir -p "$work/records-$v/$variant"
        seed=1
        while [ "$seed" -le "$records" ]; do
            file=$work/records-$v/$variant/$seed.record
            if [ ! -s "$file" ]; then
                "$bin" selfplay --variant "$variant" --seed "$seed" --out "$file" >&2
            fi
            seed=$((seed + 1))
        done
    done
done

# One timed `fogproof verify --jobs 1` over one version's records of one variant; appends
# "cpu_seconds wall_seconds" to $work/times-VERSION-VARIANT.
timed() {
    v=$1 variant=$2
    eval "bin=\$${v}_bin"
    files=$(seq 1 "$records" | sed "s|.*|$work/records-$v/$variant/&.record|")
    # shellcheck disable=SC2086 # one argument per file
    if ! /usr/bin/time -f '%U %S %e' -o "$work/time" "$bin" verify --jobs 1 $files \
        >"$work/verify.out" 2>&1; then
        echo "$v's verify did not find every $variant record valid:" >&2
        cat "$work/verify.out" >&2
        exit 1
    fi
    awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }' "$work/time" >>"$work/times-$v-$variant"
}

for variant in $variants; do
    rm -f "$work/times-v2-$variant" "$work/times-v3-$variant"
done
uptime >&2
round=1
while [ "$round" -le "$rounds" ]; do
    for variant in $variants; do
        timed v2 "$variant"
        timed v3 "$variant"
    done
    round=$((round + 1))
done
uptime >&2

# Bytes of one version's records of one variant.
bytes() {
    cat "$work/records-$1/$2"/*.record | wc -c
}

printf '%-13s %7s %6s %9s %9s %9s %9s %7s %9s %9s %9s %9s %7s\n' variant records rounds \
    "v2 KiB/r" "v3 KiB/r" "v2 rec/s" "v3 rec/s" "v3÷v2" "v2 MB/s" "v3 MB/s" \
    "v2 wall" "v3 wall" "v3÷v2"
for variant in $variants; do
    paste "$work/times-v2-$variant" "$work/times-v3-$variant" |
        awk -v v="$variant" -v n="$records" -v r="$rounds" \
            -v b2="$(bytes v2 "$variant")" -v b3="$(bytes v3 "$variant")" '
            { c2 += $1; w2 += $2; c3 += $3; w3 += $4 }
            END {
                t = n * r
                printf "%-13s %7d %6d %9.1f %9.1f %9.2f %9.2f %7.2f %9.2f %9.2f %9.2f %9.2f %7.2f\n",
                    v, n, r, b2 / n / 1024, b3 / n / 1024, t / c2, t / c3, c2 / c3,
                    b2 * r / c2 / 1e6, b3 * r / c3 / 1e6, t / w2, t / w3, w2 / w3
            }'
done
