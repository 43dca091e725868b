#!/usr/bin/env bash
# Smoke run of every fuzz target: seeds the corpora, builds all targets, and
# runs each for SMOKE_SECONDS (default 20). Fails on any crash, leak, timeout
# or out-of-memory. Needs rustup; installs the nightly toolchain and
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
for target in $(cargo +nightly fuzz list); do
    mkdir -p "corpus/$target"
    echo "== fuzz target $target: ${secs}s"
    log="$(mktemp)"
    if ! cargo +nightly fuzz run "$target" "corpus/$target" -- \
        -seed="${SMOKE_SEED:-1}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        >"$log" 2>&1; then
        tail -n 60 "$log"
        echo "FAIL: fuzz target $target crashed; the input is in fuzz/artifacts/$target/"
        rm -f "$log"
        exit 1
    fi
    grep -E "DONE|stat::number_of_executed_units" "$log" || true
    rm -f "$log"
done
echo "fuzz smoke: all targets clean"
