#!/usr/bin/env bash
# Kiln's tests of blocks, records and the spec's vectors on a big-endian
# machine: Miri interprets them for s390x, so the paths only a big-endian
# host takes (blocks swapped element by element, records read through their
# serde impls) really run, and Miri checks the unsafe code they reach for
# undefined behaviour. Called by .ci/run; needs the nightly toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=s390x-unknown-linux-gnu
rustup component add --toolchain nightly miri rust-src >/dev/null
cargo +nightly miri setup --target "$TARGET" >/dev/null

# criterion's alloca compiles C in its build script; Miri never links it,
# so the host's compiler stands in for a cross compiler.
export CC_s390x_unknown_linux_gnu=gcc AR_s390x_unknown_linux_gnu=ar
# The error handle turns an exposed address back into a pointer
# (src/error/mod.rs); the spec's tests read their vectors from disk.
export MIRIFLAGS="-Zmiri-permissive-provenance -Zmiri-disable-isolation"

miri_test() {
    cargo +nightly miri test --target "$TARGET" "$@"
}

miri_test --test records_element_path
# The golden files and the vectors of blocks, batches, values, arrays and
# files (the core, frame and rejection vectors take minutes under Miri).
miri_test --test spec -- golden:: vectors_block:: vectors_batch:: vectors_values:: \
    vectors_frame::golden_frames vectors_file::the_golden_files_are_the_vectors \
    vectors_directory::directory_vectors
# Left out: the tests that feed megabytes through a stream, each a minute
# or more under Miri (the element path they compare with is the one
# checked here), and three of half a minute or more that do not depend on
# the byte order (the swap routines, which every block here runs, what a
# stream leaves after the records, and records larger than a stream's
# buffer, which a big-endian host reads element by element on both sides).
miri_test --test format -- block:: records:: byte_arrays:: \
    roundtrip::integer_rows roundtrip::float_rows roundtrip::float_bit_patterns_are_exact \
    roundtrip::seq_rows roundtrip::struct_rows roundtrip::enum_rows roundtrip::map_rows \
    --skip block::blocks_larger_than_the_reader_buffer \
    --skip block::byte_strings_and_strings \
    --skip block::count_larger_than_stream_fails_with_bounded_memory \
    --skip block::large_blocks_from_streams_fail_as_the_element_path_at_every_step \
    --skip byte_arrays::byte_arrays_read_as_tuples_of_bytes_do \
    --skip records::large_streamed_records_fail_as_the_element_path_at_every_step \
    --skip records::random_arrays_match_the_element_path \
    --skip records::streamed_records_fail_as_the_element_path_at_every_kind_of_cut \
    --skip records::streams_longer_than_their_buffer_read_and_fail_as_the_element_path_does \
    --skip block::swap_routines_reverse_each_element \
    --skip records::streamed_records_leave_what_follows_in_the_stream \
    --skip records::streamed_records_larger_than_the_buffer_fail_as_the_element_path_does
