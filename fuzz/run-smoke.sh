#!/usr/bin/env bash
# Smoke run of every fuzz target: seeds the corpora, builds all targets, and
# runs each for SMOKE_SECONDS (default 20), SMOKE_JOBS (default 2) at a
# time. Fails on any crash, leak, timeout or out-of-memory. Needs rustup; installs the nightly toolchain and
# cargo-fuzz when they are missing, so it runs from a clean clone.
set -euo pipefail
cd "$(dirname "$0")"
secs="${SMOKE_SECONDS:-20}"
# A fixed seed (SMOKE_SEED, default 1) makes the smoke run replay the same
# mutations on every run, so CI passes or fails reproducibly; the long
# exploratory runs (fuzz/README.md) use random seeds.

if ! cargo +nightly --version >/dev/null 2>&1; then
    rustup toolchain install nightly --profile minimal
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

./seed.sh
cargo +nightly fuzz build

# Each fuzzer runs on one core: SMOKE_JOBS (default 2, this machine's
# cores) run at a time, each logging to a file of its own.
jobs="${SMOKE_JOBS:-2}"
logs="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$logs"' EXIT

smoke() {
    local target="$1"
    mkdir -p "corpus/$target"
    cargo +nightly fuzz run "$target" "corpus/$target" -- \
        -seed="${SMOKE_SEED:-1}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        >"$logs/$target" 2>&1
}

# Waits for one run to end; shows its result, and stops everything if it failed.
finish_one() {
    local status=0
    wait -n -p ended || status=$?
    local target="${names[$ended]}"
    if [ "$status" -ne 0 ]; then
        tail -n 60 "$logs/$target" || true
        echo "FAIL: fuzz target $target crashed; the input is in fuzz/artifacts/$target/"
        exit 1
    fi
    echo "== fuzz target $target: ${secs}s"
    grep -E "DONE|stat::number_of_executed_units" "$logs/$target" || true
}

declare -A names
running=0
for target in $(cargo +nightly fuzz list); do
    if [ "$running" -ge "$jobs" ]; then
        finish_one
        running=$((running - 1))
    fi
    smoke "$target" &
    names[$!]="$target"
    running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
    finish_one
    running=$((running - 1))
done
echo "fuzz smoke: all targets clean"
