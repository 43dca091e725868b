//! A million levels of nesting, decoded on the main thread's default stack
//! (the test harness would run them on 2 MiB threads, which hides how much
//! stack a real program has). Built with `harness = false`: `main` runs the
//! checks and prints "N passed, 0 failed", or exits non-zero.

use std::process::ExitCode;

use serde::de::DeserializeOwned;

const LEVELS: usize = 1_000_000;

#[path = "common/nesting.rs"]
mod nesting;
use nesting::{Chain, Nest, Opt};

/// A plain `Vec<Vec<...>>` eight levels deep inside the recursion, so the
/// limit is met inside generic containers as well as user types.
type Vecs = Vec<Vec<Vec<Vec<Vec<Vec<Vec<Vec<Nest>>>>>>>>;

/// Decodes `input` as `T` from a slice and from a reader, with the default
/// limit and with a limit of 1,000 (what a debug build fits in 8 MiB with
/// room to spare); all must fail with `depth-limit` at
/// the same offset for slice and reader.
fn check<T: DeserializeOwned>(what: &str, input: &[u8]) -> Result<(), String> {
    for opts in [kiln::Options::new(), kiln::Options::new().max_depth(1_000)] {
        let slice = opts.from_slice::<T>(input).map(drop);
        let reader = opts.from_reader::<_, T>(input).map(drop);
        let (Err(e), Err(f)) = (slice, reader) else {
            return Err(format!("{what}: {LEVELS} levels decoded without an error"));
        };
        for err in [&e, &f] {
            if err.kind().code() != "depth-limit" {
                return Err(format!("{what}: expected depth-limit, got {err}"));
            }
        }
        if e.offset() != f.offset() {
            return Err(format!("{what}: slice says {e}, reader says {f}"));
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let chain = [[1u8, 0, 0, 0].repeat(LEVELS), vec![0; 4]].concat();
    let nest = [[1u8, 0, 0, 0].repeat(LEVELS), vec![0; 4]].concat();
    let opt = [vec![1u8; LEVELS], vec![0]].concat();
    let results = [
        ("recursive enum", check::<Chain>("recursive enum", &chain)),
        ("nested Vec", check::<Nest>("nested Vec", &nest)),
        ("Vec<Vec<..>>", check::<Vecs>("Vec<Vec<..>>", &nest)),
        (
            "nested Option<Box<..>>",
            check::<Opt>("nested Option", &opt),
        ),
    ];
    let mut failed = 0;
    for (name, result) in &results {
        match result {
            Ok(()) => println!("depth {name} ... ok"),
            Err(msg) => {
                failed += 1;
                println!("depth {name} ... FAILED: {msg}");
            }
        }
    }
    println!("{} passed, {failed} failed", results.len() - failed);
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
