#!/bin/sh
# Instruction counts (callgrind) of verify ÷ batch signature check per variant, over the bench's
# corpus (verifier/benches/verify.rs, `FOGPROOF_BENCH_COUNT`). Instruction counts repeat exactly
# for the same binary and inputs whatever the machine's load, unlike the bench's timings.
#
#   verifier/benches/callgrind.sh BENCH_BINARY [ROUNDS] [VARIANT...]
#
# BENCH_BINARY is the bench executable that
#   cargo bench -p fogproof-verifier --bench verify --no-run
# names ("Executable benches/verify.rs (...)"). Output files (and the self-played records,
# unless FOGPROOF_BENCH_RECORDS names another folder) go to ${CALLGRIND_OUT:-/tmp}.
set -eu
bin=$1
rounds=${2:-1}
shift $(( $# >= 2 ? 2 : 1 ))
variants=${*:-chess kriegspiel sic intrigue secretchess6 espionage}
out=${CALLGRIND_OUT:-/tmp}
# Self-play once, natively, and keep the records: under callgrind it would take minutes.
export FOGPROOF_BENCH_RECORDS=${FOGPROOF_BENCH_RECORDS:-$out}
for v in $variants; do
    FOGPROOF_BENCH_COUNT=$v:0 "$bin" >/dev/null
done
printf '%-13s %16s %16s %7s\n' variant "verify Ir/rec" "sigs Ir/rec" ratio
for v in $variants; do
    file=$out/callgrind.verify.$v
    FOGPROOF_BENCH_COUNT=$v:$rounds valgrind --tool=callgrind --callgrind-out-file="$file" \
        "$bin" >"$file.stdout" 2>"$file.stderr"
    records=$(sed -n 's/.* over \([0-9]*\) records.*/\1/p' "$file.stdout")
    # Inclusive counts of the bench's two functions (names are demangled, `verify::verify_all`).
    incl() {
        callgrind_annotate --inclusive=yes --threshold=100 "$file" |
            awk -v f="$1" '$0 ~ f" \\[" || $0 ~ f"$" { gsub(",", "", $1); print $1; exit }'
    }
    full=$(incl '::verify_all')
    sigs=$(incl '::signatures_only')
    awk -v v="$v" -v f="$full" -v s="$sigs" -v n="$records" -v r="$rounds" 'BEGIN {
        printf "%-13s %16d %16d %7.3f\n", v, f / (n * r), s / (n * r), f / s }'
done
