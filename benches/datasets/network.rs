//! A stream of game-server network updates: many small records with enums
//! and vectors of small structs, and now and then a large byte payload
//! (an asset pushed to the client), which goes through `serde_bytes`.

use serde::{Deserialize, Serialize};

use super::Rng;
use super::mesh::{Vector3, vector};

/// One packet of updates.
#[derive(
    Serialize,
    Deserialize,
    Debug,
    Clone,
    PartialEq,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
pub struct Packet {
    pub sequence: u32,
    pub ack: u32,
    pub sent_at: u64,
    pub events: Vec<Event>,
}

/// A small component change.
#[derive(
    Serialize,
    Deserialize,
    Debug,
    Clone,
    Copy,
    PartialEq,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
pub struct Component {
    pub id: u16,
    pub value: i32,
}

/// What happened in the world.
#[derive(
    Serialize,
    Deserialize,
    Debug,
    Clone,
    PartialEq,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
pub enum Event {
    Move {
        entity: u32,
        position: Vector3,
        velocity: Vector3,
    },
    Components {
        entity: u32,
        changes: Vec<Component>,
    },
    Spawn {
        entity: u32,
        kind: u16,
        position: Vector3,
    },
    Despawn(u32),
    Chat {
        from: u32,
        text: String,
    },
    Asset {
        id: u32,
        #[serde(with = "serde_bytes")]
        data: Vec<u8>,
    },
}

/// [`Packet`] with its strings and payloads borrowed from the input. No
/// bitcode derive (bitcode has no `Decode` for `&[u8]`) and no rkyv derive
/// (rkyv reads [`Packet`]'s archived form in place instead).
#[derive(Serialize, Deserialize, Debug, PartialEq, wincode::SchemaWrite, wincode::SchemaRead)]
pub struct PacketRef<'a> {
    pub sequence: u32,
    pub ack: u32,
    pub sent_at: u64,
    #[serde(borrow)]
    pub events: Vec<EventRef<'a>>,
}

/// [`Event`] with its strings and payloads borrowed from the input.
#[derive(Serialize, Deserialize, Debug, PartialEq, wincode::SchemaWrite, wincode::SchemaRead)]
pub enum EventRef<'a> {
    Move {
        entity: u32,
        position: Vector3,
        velocity: Vector3,
    },
    Components {
        entity: u32,
        changes: Vec<Component>,
    },
    Spawn {
        entity: u32,
        kind: u16,
        position: Vector3,
    },
    Despawn(u32),
    Chat {
        from: u32,
        text: &'a str,
    },
    Asset {
        id: u32,
        #[serde(with = "serde_bytes")]
        data: &'a [u8],
    },
}

fn event(rng: &mut Rng) -> Event {
    let entity = rng.below(100_000) as u32;
    // One event in 1,000 carries an asset of 4 to 64 KiB.
    if rng.chance(0.001) {
        let len = rng.range(4 << 10, 64 << 10) as usize;
        return Event::Asset {
            id: rng.next_u32(),
            data: rng.bytes(len),
        };
    }
    match rng.below(10) {
        0..=4 => Event::Move {
            entity,
            position: vector(rng, 1000.0),
            velocity: vector(rng, 10.0),
        },
        5 | 6 => Event::Components {
            entity,
            changes: (0..rng.range(1, 6))
                .map(|_| Component {
                    id: rng.below(64) as u16,
                    value: rng.next_u32() as i32,
                })
                .collect(),
        },
        7 => Event::Spawn {
            entity,
            kind: rng.below(300) as u16,
            position: vector(rng, 1000.0),
        },
        8 => Event::Despawn(entity),
        _ => {
            let words = rng.range(1, 8);
            let text = (0..words)
                .map(|_| rng.word(1, 9))
                .collect::<Vec<_>>()
                .join(" ");
            Event::Chat { from: entity, text }
        }
    }
}

/// `count` packets of one to eight events each.
pub fn generate(rng: &mut Rng, count: usize) -> Vec<Packet> {
    let mut sent_at = 1_700_000_000_000u64;
    (0..count as u32)
        .map(|sequence| {
            sent_at += rng.range(10, 40);
            Packet {
                sequence,
                ack: sequence.saturating_sub(rng.range(0, 3) as u32),
                sent_at,
                events: (0..rng.range(1, 8)).map(|_| event(rng)).collect(),
            }
        })
        .collect()
}
