//! Kiln's main job in one page: encode real values, print their bytes,
//! decode them back and check they are the same.
//!
//! Run with `cargo run --example quickstart`.

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Message {
    text: String,
}

/// Bytes as space-separated lowercase hex pairs.
fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Encodes `value`, prints its bytes, decodes them and checks the result.
fn show<T>(label: &str, value: &T) -> Result<(), kiln::Error>
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    let bytes = kiln::to_vec(value)?;
    let back: T = kiln::from_slice(&bytes)?;
    assert_eq!(&back, value, "{label} did not survive the round trip");
    println!("{label:<10} {value:?}");
    println!("{:<10} {} ({} bytes)", "", hex(&bytes), bytes.len());
    Ok(())
}

fn main() -> Result<(), kiln::Error> {
    show("Point", &Point { x: 9, y: -4 })?;
    show("Message", &Message { text: "hi".into() })?;
    show("Vec<f32>", &vec![1.0f32, -2.0])?;

    // A reader built from another type fails with a typed error and an offset.
    let err = kiln::from_slice::<Message>(&[0x02, 0, 0, 0, 0x68]).unwrap_err();
    println!("truncated  {err}");
    Ok(())
}
