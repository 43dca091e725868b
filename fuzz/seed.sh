#!/usr/bin/env bash
# Writes the seed corpora fuzz/corpus/<target>/ from the
# sample values, spec/golden/*.kiln and spec/vectors/*.json. Reproducible:
# the same files on every run. Corpora are not committed (.gitignore).
set -euo pipefail
cd "$(dirname "$0")"
cargo +nightly run --quiet --example seeds
