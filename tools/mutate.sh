#!/usr/bin/env bash
# Mutation testing: how many plausible one-line bugs do the tests catch?
#
#   tools/mutate.sh [--count N] [--seed S] [--timeout SECONDS] [--out DIR]
#                   [--rerun-survivors] [--report-only] [--bazel-arg ARG]... [PATH...]
#   tools/mutate.sh --clean       # remove the scratch worktree
#
# PATHs are C/C++ sources or folders (default: core plugins/reference/numerics).
# Folders contribute their *.cc and *.h files except tests, benchmarks, fuzz
# targets and test-only helpers (see is_test_source below).
#
# What it does:
#  1. Installs `universalmutator` from PyPI into a venv under
#     ${XDG_CACHE_HOME:-~/.cache}/teplug-mutate/venv if it is missing.
#  2. Makes a scratch git worktree of the checkout's HEAD commit under
#     $MUTATE_SCRATCH (default /tmp/teplug-mutate-<uid>) with its own Bazel
#     output base, so the user's checkout and build are never touched.
#     Uncommitted changes are not seen: commit first.
#  3. Generates every mutant of each source with universalmutator's C/C++ rules
#     and draws --count of them (default 200) at random with --seed (default 1);
#     they are evaluated in the drawn order, so a partial run is itself a
#     random sample.
#  4. For each mutant, one at a time: writes it over the file in the scratch
#     tree and runs `bazel test --notest_keep_going` on the tests that depend
#     on the file (`tests(rdeps(//..., FILE))`, manual tests excluded), first
#     those that depend on the file's own target directly, then the rest, so a
#     mutant the nearby tests catch costs only their build. A build failure or
#     a test failure kills the mutant; --timeout (default 900 s) ends a hung
#     run and counts it as killed (timeout); anything else (Bazel itself
#     failing) is an error that a later run retries.
#  5. Appends one line per mutant to DIR/results.tsv (DIR: --out, default
#     tests/mutation/last-run; the run is resumable:
#     mutants already there are skipped; the last line for a mutant wins) and
#     writes DIR/report.md: killed / survived / equivalent, the score
#     killed / (total - equivalent), and every survivor as a diff.
#
# Equivalent mutants (the change cannot alter behaviour) are listed, with a
# reason each, in tools/mutation_equivalents.txt as lines
#   <mutant id> <reason>
# where the id is the one the report prints (path:line:hash; the line number
# is informational, path and hash identify the mutant).
#
# --bazel-arg passes ARG to every `bazel test` (`--bazel-arg --config=ubsan`
# also kills mutants whose only effect is undefined behaviour; it builds the
# tree once more in the sanitizer's own output folder).
#
# --rerun-survivors evaluates the surviving mutants of DIR/results.tsv again
# against the current HEAD (after adding tests or fixing code), found by id
# even where their line moved. --report-only rewrites the report.
#
# The documented runs (command, seed, score, survivors and equivalents, time)
# are in tests/mutation/README.md, the one place for them. Not part of CI: 200
# mutants took about 35 minutes on two shared cores (most C++ mutants fail to
# build within seconds; a survivor costs a full test run). Use `nice` on
# shared machines.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/teplug-mutate"
scratch="${MUTATE_SCRATCH:-/tmp/teplug-mutate-$(id -u)}"
count=200
seed=1
timeout_s=900
out="$root/tests/mutation/last-run"
rerun_survivors=0
report_only=0
paths=()
extra_bazel_args=()

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "mutate.sh: $*" >&2; exit 2; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --count) count="${2:?--count needs a number}"; shift 2 ;;
    --seed) seed="${2:?--seed needs a value}"; shift 2 ;;
    --timeout) timeout_s="${2:?--timeout needs seconds}"; shift 2 ;;
    --out) out="${2:?--out needs a folder}"; shift 2 ;;
    --rerun-survivors) rerun_survivors=1; shift ;;
    --bazel-arg) extra_bazel_args+=("${2:?--bazel-arg needs an argument}"); shift 2 ;;
    --report-only) report_only=1; shift ;;
    --clean)
      # Removes the scratch worktree (the cache and results stay).
      git -C "$root" worktree remove --force "$scratch"
      exit 0 ;;
    -h|--help) usage; exit 0 ;;
    --*) die "unknown option $1 (see --help)" ;;
    *) paths+=("$1"); shift ;;
  esac
done
[[ "$count" =~ ^[0-9]+$ ]] || die "--count must be a number, got '$count'"
[[ "$timeout_s" =~ ^[0-9]+$ ]] || die "--timeout must be seconds, got '$timeout_s'"
[[ ${#paths[@]} -gt 0 ]] || paths=(core plugins/reference/numerics)
mkdir -p "$out" "$cache"
out="$(cd "$out" && pwd)"
results="$out/results.tsv"
equivalents="$root/tools/mutation_equivalents.txt"

venv="$cache/venv"
py="$venv/bin/python3"
if [[ ! -x "$venv/bin/mutate" ]]; then
  echo "mutate.sh: installing universalmutator into $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet universalmutator
fi

# The report logic lives in one Python helper beside this script.
helper="$root/tools/mutation_report.py"

write_report() {
  # The sample's seed and size, as recorded when it was drawn.
  [[ -f "$out/sample.txt" ]] && read -r seed count < "$out/sample.txt"
  "$py" "$helper" report --results "$results" --equivalents "$equivalents" \
    --diffs "$cache/diffs" --report "$out/report.md" --seed "$seed" --count "$count"
}

if [[ $report_only -eq 1 ]]; then
  write_report
  echo "mutate.sh: wrote $out/report.md"
  exit 0
fi

# --- scratch tree at the checkout's HEAD -----------------------------------
head_commit="$(git -C "$root" rev-parse HEAD)"
if [[ ! -e "$scratch/.git" ]]; then
  git -C "$root" worktree add --detach "$scratch" "$head_commit" >/dev/null
else
  git -C "$scratch" checkout --quiet --force --detach "$head_commit"
  git -C "$scratch" clean --quiet -fd
fi
if [[ -n "$(git -C "$root" status --porcelain --untracked-files=no)" ]]; then
  echo "mutate.sh: note: uncommitted changes in $root are not part of this run (HEAD $head_commit)" >&2
fi
bazel_cmd=(bazel "--output_base=$cache/output_base")
# Reuse the checkout's disk cache for unmutated actions, without uploading
# mutants' outputs into it.
if [[ -f "$root/.bazelrc.user" ]]; then
  disk_cache="$(sed -n 's/^build --disk_cache=\(.*\)$/\1/p' "$root/.bazelrc.user" | head -n1)"
  [[ -n "$disk_cache" ]] && printf 'build --disk_cache=%s\nbuild --noremote_upload_local_results\n' "$disk_cache" \
    > "$scratch/.bazelrc.user"
fi
test_flags=(--notest_keep_going --nokeep_going --test_output=errors --curses=no --color=no
            --show_progress_rate_limit=60 ${extra_bazel_args[@]+"${extra_bazel_args[@]}"})

# --- sources and mutants ---------------------------------------------------
is_test_source() {
  case "$1" in
    *_test.cc|*_test.h|*_benchmark.cc|*_fuzzer.cc|*/testing/*|*/testdata/*|*/fuzz/*) return 0 ;;
    *_test_support.h|*random_op_facts.h|*testdata_path.h|*_oracle.h) return 0 ;;
  esac
  return 1
}

sources=()
for p in "${paths[@]}"; do
  p="${p%/}"
  if [[ -d "$scratch/$p" ]]; then
    while IFS= read -r f; do
      is_test_source "$f" || sources+=("$f")
    done < <(cd "$scratch" && git ls-files -- "$p" | grep -E '\.(cc|h)$' | sort)
  elif [[ -f "$scratch/$p" ]]; then
    sources+=("$p")
  else
    die "no such file or folder at HEAD: $p"
  fi
done
[[ ${#sources[@]} -gt 0 ]] || die "no C/C++ sources under ${paths[*]}"

# Mutants are generated again only for sources whose content changed.
mkdir -p "$cache/mutants"
for f in "${sources[@]}"; do
  dir="$cache/mutants/$f"
  sum="$(sha256sum < "$scratch/$f")"
  [[ -f "$dir/.source-sha256" && "$(cat "$dir/.source-sha256")" == "$sum" ]] && continue
  rm -rf "$dir"
  mkdir -p "$dir"
  # universalmutator picks its rules by extension; headers here are C++.
  (cd "$dir" && "$venv/bin/mutate" "$scratch/$f" cpp --noCheck --mutantDir "$dir" >/dev/null)
  echo "$sum" > "$dir/.source-sha256"
done
printf '%s\n' "${sources[@]}" > "$cache/sources.txt"

# Sampled mutants, one per line: id <TAB> source <TAB> mutant file. Survivors
# to evaluate again are taken by id, not drawn again: a changed source changes
# the pool, and with it a fresh draw.
only_ids=()
if [[ $rerun_survivors -eq 1 && -f "$results" ]]; then
  awk -F'\t' 'NR > 1 { status[$1] = $3 } END { for (id in status) if (status[id] == "survived") print id }' \
    "$results" | sort > "$cache/survivors.txt"
  only_ids=(--only-ids "$cache/survivors.txt")
fi
"$py" "$helper" sample --mutants "$cache/mutants" --sources "$cache/sources.txt" --scratch "$scratch" \
  --seed "$seed" --count "$count" --diffs "$cache/diffs" "${only_ids[@]}" > "$cache/sample.tsv"
echo "mutate.sh: $(wc -l < "$cache/sample.tsv") mutants drawn (seed $seed) from ${#sources[@]} files" >&2
[[ $rerun_survivors -eq 1 ]] || echo "$seed $count" > "$out/sample.txt"

# --- tests per source ------------------------------------------------------
label_of() {  # core/loader/abi_range.h -> //core/loader:abi_range.h (its package)
  local f="$1" dir
  dir="$(dirname "$f")"
  while [[ "$dir" != "." && ! -f "$scratch/$dir/BUILD" && ! -f "$scratch/$dir/BUILD.bazel" ]]; do
    dir="$(dirname "$dir")"
  done
  echo "//${dir#.}:${f#"$dir"/}"
}
tests_for() {  # cached: "near" tests (depend on the file's own target), then the rest
  local f="$1" key
  # Keyed by commit: a new test changes the answer.
  key="$cache/tests/$head_commit/$(echo "$f" | tr / _)"
  mkdir -p "$cache/tests/$head_commit"
  if [[ ! -f "$key.all" ]]; then
    local label
    label="$(label_of "$f")"
    (cd "$scratch" && "${bazel_cmd[@]}" query --noshow_progress \
      "tests(rdeps(//..., $label)) except attr(tags, manual, //...)" 2>/dev/null < /dev/null | sort) > "$key.all.tmp"
    (cd "$scratch" && "${bazel_cmd[@]}" query --noshow_progress \
      "tests(rdeps(//..., $label, 2)) except attr(tags, manual, //...)" 2>/dev/null < /dev/null | sort) > "$key.near.tmp"
    mv "$key.near.tmp" "$key.near"
    mv "$key.all.tmp" "$key.all"
  fi
  echo "$key"
}

done_ids() {  # ids whose last result is final
  [[ -f "$results" ]] || return 0
  "$py" "$helper" done --results "$results" --rerun-survivors "$rerun_survivors"
}

restore() { [[ -n "${current:-}" ]] && git -C "$scratch" checkout --quiet -- "$current"; current=""; }
trap 'restore; write_report 2>/dev/null || true' EXIT
trap 'exit 130' INT TERM

run_tests() {  # run_tests LOG TARGETS...: Bazel's exit status
  local log="$1"; shift
  [[ $# -gt 0 ]] || return 0
  (cd "$scratch" && timeout --kill-after=30 "$timeout_s" "${bazel_cmd[@]}" test "${test_flags[@]}" "$@") \
    >> "$log" 2>&1 < /dev/null
}

# Baseline: every test the sample touches must pass on the unmutated tree,
# or every mutant would look killed.
declare -A seen_src=()
baseline=()
while IFS=$'\t' read -r _ src _; do
  [[ -n "${seen_src[$src]:-}" ]] && continue
  seen_src[$src]=1
  mapfile -t -O "${#baseline[@]}" baseline < "$(tests_for "$src").all"
done < "$cache/sample.tsv"
mapfile -t baseline < <(printf '%s\n' "${baseline[@]}" | sort -u | sed '/^$/d')
echo "mutate.sh: baseline: ${#baseline[@]} tests on the unmutated tree" >&2
start=$SECONDS
if ! (cd "$scratch" && "${bazel_cmd[@]}" test --keep_going --test_output=errors --curses=no --color=no \
        --show_progress_rate_limit=60 ${extra_bazel_args[@]+"${extra_bazel_args[@]}"} "${baseline[@]}") \
        > "$cache/baseline.log" 2>&1 < /dev/null; then
  die "the unmutated tree fails its tests (see $cache/baseline.log); fix that first"
fi
echo "mutate.sh: baseline passed in $((SECONDS - start)) s" >&2

declare -A finished=()
while IFS= read -r id; do finished[$id]=1; done < <(done_ids)
[[ -f "$results" ]] || printf 'id\tsource\tstatus\tdetail\tseconds\tcommit\n' > "$results"

n=0
total="$(wc -l < "$cache/sample.tsv")"
while IFS=$'\t' read -r id src mutant; do
  n=$((n + 1))
  [[ -n "${finished[${id%:*:*}:${id##*:}]:-}" ]] && continue  # matched on path:hash
  key="$(tests_for "$src")"
  mapfile -t near < "$key.near"
  mapfile -t rest < <(comm -13 "$key.near" "$key.all")
  log="$cache/logs/$(echo "$id" | tr '/:' '__').log"
  mkdir -p "$cache/logs"
  : > "$log"
  current="$src"
  cp "$mutant" "$scratch/$src"
  t0=$SECONDS
  status=survived
  detail="$(( ${#near[@]} + ${#rest[@]} )) tests passed"
  [[ ${#near[@]} -eq 0 && ${#rest[@]} -eq 0 ]] && detail="no test depends on this file"
  for phase in near rest; do
    if [[ $phase == near ]]; then set -- "${near[@]}"; else set -- "${rest[@]}"; fi
    rc=0
    run_tests "$log" "$@" || rc=$?
    case $rc in
      0) continue ;;
      1) status=killed; detail="build failed" ;;
      3) status=killed
         detail="test failed: $(grep -m1 -oE '^//[^ ]+ +(FAILED|TIMEOUT)' "$log" | tr -s ' ' || true)" ;;
      124|137) status=killed; detail="timeout after ${timeout_s} s" ;;
      *) status=error; detail="bazel exit $rc (see $log)" ;;
    esac
    break
  done
  restore
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$src" "$status" "$detail" "$((SECONDS - t0))" "$head_commit" \
    >> "$results"
  echo "mutate.sh: [$n/$total] $id: $status ($detail) in $((SECONDS - t0)) s" >&2
done < "$cache/sample.tsv"

write_report
echo "mutate.sh: wrote $out/report.md" >&2
