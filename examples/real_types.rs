//! A frame of a record with the types real programs hold: a timestamp, an
//! id, a non-zero count, a decimal amount and a 3-D array, each written and
//! read with one derive line. Run with
//! `cargo run --example real_types --features chrono,uuid,rust_decimal,ndarray`.

use std::num::NonZeroU32;

use chrono::{DateTime, TimeZone, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

#[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq)]
struct Scan {
    taken: DateTime<Utc>,
    id: Uuid,
    retries: NonZeroU32,
    #[serde(with = "rust_decimal::serde::str")]
    cost: Decimal,
    #[serde(with = "kiln::array::serde_ndarray")]
    volume: ndarray::Array3<f32>,
}

fn main() -> Result<(), kiln::Error> {
    let scan = Scan {
        taken: Utc.with_ymd_and_hms(2026, 12, 5, 9, 30, 0).unwrap(),
        id: Uuid::from_u128(0x1234_5678_9abc_def0),
        retries: NonZeroU32::new(3).unwrap(),
        cost: Decimal::new(1999, 2),
        volume: ndarray::Array3::from_shape_fn((2, 3, 4), |(z, y, x)| (z * 12 + y * 4 + x) as f32),
    };
    let bytes = kiln::frame::to_vec(&scan)?;
    let back: Scan = kiln::frame::from_slice(&bytes)?;
    assert_eq!(back, scan);

    let schema = kiln::schema::schema_of::<Scan>()?;
    print!("{}", schema.text().unwrap_or_default());
    println!(
        "fingerprint {}, frame of {} bytes",
        schema.fingerprint(),
        bytes.len()
    );
    Ok(())
}
