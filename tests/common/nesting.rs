//! Types that nest through themselves, for the depth limit: each level of
//! the input is one level of nesting, so a short input can be very deep.

use serde::Deserialize;

/// A recursive enum: `01 00 00 00` per link, `00 00 00 00` at the end.
#[derive(Deserialize, Debug)]
#[allow(dead_code)]
pub enum Chain {
    End,
    Link(Box<Chain>),
}

/// A sequence nesting through itself: a count of 1 per level.
#[derive(Deserialize, Debug)]
pub struct Nest(#[allow(dead_code)] pub Vec<Nest>);

/// An option nesting through itself: a tag `01` per level.
#[derive(Deserialize, Debug)]
pub struct Opt(#[allow(dead_code)] pub Option<Box<Opt>>);
