#!/usr/bin/env bash
# Instruction counts of `parse-porter validate` against a libcsv-only parse of the same CSV
# files (Benchmarks/csv_fields.c), both counted by valgrind's callgrind in the same run. On this
# shared machine times move by a fifth from minute to minute; instruction counts move by far
# less, so they are what backs a claim about the CPU cost of the reading path.
#
# Usage: Benchmarks/profile.sh [BOOKS]          (default 20000: a few minutes under valgrind)
#
# Steps:
#   1. generate the library dataset (Benchmarks/generate_library.py) of BOOKS books, and of 1
#      book, into Benchmarks/out/profile-BOOKS/ (a few seconds; regenerated every run);
#   2. build parse-porter for profiling into .build-profile/ (its own build directory):
#        swift build -c release --product parse-porter --scratch-path .build-profile \
#            -Xswiftc -dwarf-version=4 -Xcc -gdwarf-4
#      (valgrind 3.19 gives up on a binary with any DWARF 5 unit in it: the toolchain's clang
#      writes DWARF 5 for the C files of Yams (CYaml) unless told -gdwarf-4; swiftc writes
#      DWARF 4 on Linux already, which -dwarf-version=4 pins; log:
#      Benchmarks/out/profile-BOOKS/build.log), and with gcc the field counter
#      (Benchmarks/csv_fields.c) and the preload that lets valgrind run parse-porter
#      (Benchmarks/valgrind_sigsuspend.c);
#   3. valgrind --tool=callgrind on `parse-porter validate DIR` and on `csv_fields` over the
#      five CSV files of DIR, for both datasets; checks that validate succeeded and that the
#      field counter read as many records as the dataset has;
#   4. prints each total instruction count (Ir, all threads), the ratio validate / csv_fields,
#      and the same ratio beyond the fixed cost (the 1-book runs subtracted: start-up, manifest,
#      tables), which is what a large dataset approaches; then the TOP functions of validate's
#      profile by self and by inclusive count (callgrind_annotate, names demangled by
#      `swift demangle`).
#
# Environment:
#   SEED=S                 dataset seed (default 42)
#   TOP=N                  functions listed from validate's profile (default 15; 0: none)
#   PARSE_PORTER_BIN=PATH  profile this binary instead of building one (with no DWARF 5 unit
#                          in it, or valgrind stops reading it)
#
# Outputs (Benchmarks/out/profile-BOOKS/, git-ignored): callgrind.validate.out,
# callgrind.csv_fields.out (and .1book. of each), the programs' stdout/stderr, summary.txt.
# Read a profile further with e.g.
#   callgrind_annotate --inclusive=yes --auto=yes FILE | swift demangle --simplified

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
SEED=${SEED:-42}
TOP=${TOP:-15}
SCRATCH=$ROOT/.build-profile
CSV_FILES=(genres authors publishers books book_genres)

log() { printf '%s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

case ${1:-} in
    -h | --help) sed -n '2,/^$/{s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
(($# <= 1)) || die "usage: Benchmarks/profile.sh [BOOKS]"
BOOKS=${1:-20000}
[[ $BOOKS =~ ^[1-9][0-9]*$ ]] || die "BOOKS must be a positive integer, got '$BOOKS'"
[[ $TOP =~ ^[0-9]+$ ]] || die "TOP must be a number, got '$TOP'"
for tool in valgrind callgrind_annotate gcc python3; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool not found (apt-get install valgrind gcc python3)"
done
[[ -f /usr/include/csv.h ]] || die "libcsv's header not found (apt-get install libcsv-dev)"

OUT=$BENCH_DIR/out/profile-$BOOKS
mkdir -p "$OUT"

# 1. datasets
generate() {  # generate BOOKS DIR
    rm -rf "$2"
    python3 "$BENCH_DIR/generate_library.py" "$2" --books "$1" --seed "$SEED" --quiet \
        || die "dataset generation failed ($2)"
}
log "dataset: $BOOKS books and 1 book (seed $SEED) into $OUT ..."
generate "$BOOKS" "$OUT/library"
generate 1 "$OUT/library-1book"
records() {  # data records of a generated dataset (headers excluded)
    python3 -c 'import json, sys; print(sum(json.load(open(sys.argv[1]))["records"].values()))' "$1/.generated.json"
}

# 2. builds
if [[ -n ${PARSE_PORTER_BIN:-} ]]; then
    [[ -x $PARSE_PORTER_BIN ]] || die "PARSE_PORTER_BIN=$PARSE_PORTER_BIN is not an executable"
    PARSE_PORTER=$PARSE_PORTER_BIN
    log "build: skipped, using PARSE_PORTER_BIN=$PARSE_PORTER"
else
    BUILD_FLAGS=(-c release --product parse-porter --scratch-path "$SCRATCH" -Xswiftc -dwarf-version=4 -Xcc -gdwarf-4)
    log "build: swift build ${BUILD_FLAGS[*]} (log: $OUT/build.log) ..."
    (cd "$ROOT" && swift build "${BUILD_FLAGS[@]}") >"$OUT/build.log" 2>&1 \
        || { tail -n 40 "$OUT/build.log" >&2; die "swift build failed (log: $OUT/build.log)"; }
    PARSE_PORTER=$(cd "$ROOT" && swift build "${BUILD_FLAGS[@]}" --show-bin-path 2>>"$OUT/build.log")/parse-porter
    [[ -x $PARSE_PORTER ]] || die "build succeeded but $PARSE_PORTER is missing"
fi
gcc -O2 -g -o "$OUT/csv_fields" "$BENCH_DIR/csv_fields.c" -lcsv \
    || die "building Benchmarks/csv_fields.c failed"
gcc -O2 -shared -fPIC -o "$OUT/valgrind_sigsuspend.so" "$BENCH_DIR/valgrind_sigsuspend.c" \
    || die "building Benchmarks/valgrind_sigsuspend.c failed"

# 3. callgrind runs
# callgrind NAME -- CMD...: runs CMD under callgrind (output $OUT/callgrind.NAME.out) and sets IR
# to its total instruction count.
callgrind() {
    local name=$1 file=$OUT/callgrind.$1.out status=0
    shift 2
    rm -f "$file"
    LD_PRELOAD=$OUT/valgrind_sigsuspend.so valgrind --tool=callgrind --callgrind-out-file="$file" \
        "$@" >"$OUT/$name.stdout" 2>"$OUT/$name.stderr" || status=$?
    ((status == 0)) || { tail -n 20 "$OUT/$name.stderr" >&2; die "$name exited with status $status under valgrind (see $OUT/$name.stderr)"; }
    IR=$(awk '/^totals:/ { print $2; exit }' "$file")
    [[ $IR =~ ^[0-9]+$ ]] || die "no total instruction count in $file"
}

# run_pair SUFFIX DIR: callgrind both programs on one dataset; sets VALIDATE_IR and CSV_IR.
run_pair() {
    local suffix=$1 dir=$2 files=() file expected
    for file in "${CSV_FILES[@]}"; do files+=("$dir/$file.csv"); done
    log "callgrind: parse-porter validate $dir ..."
    callgrind "validate$suffix" -- "$PARSE_PORTER" validate "$dir"
    VALIDATE_IR=$IR
    grep -q '^valid: ' "$OUT/validate$suffix.stdout" || die "validate did not report its dataset valid (see $OUT/validate$suffix.stdout)"
    log "callgrind: csv_fields over ${CSV_FILES[*]} ..."
    callgrind "csv_fields$suffix" -- "$OUT/csv_fields" "${files[@]}"
    CSV_IR=$IR
    # Its records include the five header rows.
    expected=$(($(records "$dir") + ${#CSV_FILES[@]}))
    grep -q "records=$expected " "$OUT/csv_fields$suffix.stdout" \
        || die "csv_fields read $(cat "$OUT/csv_fields$suffix.stdout"), expected records=$expected"
}

run_pair "" "$OUT/library"
validate_ir=$VALIDATE_IR csv_ir=$CSV_IR
run_pair ".1book" "$OUT/library-1book"
validate_fixed=$VALIDATE_IR csv_fixed=$CSV_IR
rows=$(records "$OUT/library")

# 4. report
# top self|inclusive: validate's TOP functions by that count. callgrind_annotate lists a
# function once per source file its inlined parts came from, and once more per level of
# recursion (name'2): the self counts of one name are added up, of the inclusive ones the
# largest is kept, and the inclusive list leaves out the frames every thread runs through
# (thread start-up, the closures that start the pass and its reading threads).
top() {
    local options=()
    [[ $1 == inclusive ]] && options=(--inclusive=yes)
    callgrind_annotate --threshold=100 --auto=no "${options[@]}" "$OUT/callgrind.validate.out" 2>/dev/null \
        | { if command -v swift >/dev/null 2>&1; then swift demangle --simplified; else cat; fi } \
        | python3 -c '
import re, sys
mode, top, root = sys.argv[1], int(sys.argv[2]), sys.argv[3] + "/"
plumbing = re.compile(r"start_thread|clone|NSThreadStart|Thread\.main|partial apply|Cancellation\.onThread"
                      r"|Importer\.(validate|check)|ImportPass\.(run|readEverything)|ReadAheadReader\.init"
                      r"|^\(below main\)|^main$|^0x[0-9a-f]+$")
total, counts, table = 0, {}, False
for line in sys.stdin:
    line = line.rstrip("\n")
    if line.endswith("PROGRAM TOTALS"):
        total = int(line.split()[0].replace(",", ""))
    elif line.endswith("file:function"):
        table = True
    elif table and line and not line.startswith("-"):
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)  (.*?)(?: \[[^]]*\])?$", line)
        if not m:
            continue
        where, _, name = m.group(2).partition(":")
        name = re.sub(r"\x27\d+$", "", name)
        if mode == "inclusive" and plumbing.search(name):
            continue
        ir = int(m.group(1).replace(",", ""))
        entry = counts.setdefault(name, [0, ""])
        entry[0] = entry[0] + ir if mode == "self" else max(entry[0], ir)
        if where.endswith(".swift") and not entry[1]:
            entry[1] = where.replace(root, "")
    elif table and not line:
        table = False
for name, (ir, place) in sorted(counts.items(), key=lambda kv: -kv[1][0])[:top]:
    name = name if len(name) <= 100 else name[:99] + "…"
    print("%14s %5.1f%%  %s%s" % (format(ir, ","), 100.0 * ir / total, name, "  (" + place + ")" if place else ""))
' "$1" "$TOP" "$ROOT"
}
{
    echo "== validate against a libcsv-only parse: callgrind instruction counts, $BOOKS books ($rows records) =="
    awk -v v="$validate_ir" -v c="$csv_ir" -v vf="$validate_fixed" -v cf="$csv_fixed" -v n="$rows" 'BEGIN {
        printf "%-36s %16s %16s %12s\n", "", "parse-porter", "csv_fields", "ratio"
        printf "%-36s %16.0f %16.0f %11.2fx\n", "Ir, whole run", v, c, v / c
        printf "%-36s %16.0f %16.0f %11.2fx\n", "Ir, 1-book dataset (fixed cost)", vf, cf, vf / cf
        printf "%-36s %16.0f %16.0f %11.2fx\n", "Ir beyond the fixed cost", v - vf, c - cf, (v - vf) / (c - cf)
        printf "%-36s %16.0f %16.0f\n", "Ir per record beyond it", (v - vf) / n, (c - cf) / n
    }'
    if ((TOP > 0)); then
        echo
        echo "validate: top $TOP functions by self Ir"
        top self
        echo
        echo "validate: top $TOP functions by inclusive Ir"
        top inclusive
    fi
} | tee "$OUT/summary.txt"
log ""
log "outputs: $OUT"
