//! Reading what an older version of a type wrote (`FrameOptions::evolve`,
//! spec chapter 12) beside the matched read, in one run: the log and
//! savegame datasets written by a version with one field fewer, one field
//! more and one narrower number, read as today's types.
//!
//! Rows per dataset: `matched` (today's frames, `FrameOptions`' plain
//! reader), `matched-evolve` (today's frames through `Evolve`, which reads
//! them positionally too), `evolved` (the old version's frames, resolved).
//!
//! Run: `cargo bench --bench evolve`. Short run:
//! `cargo bench --bench evolve -- --warm-up-time 1 --measurement-time 3`.

#[allow(dead_code)]
mod datasets;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kiln::frame::FrameOptions;
use serde::Serialize;

use datasets::log::Log;
use datasets::mesh::Vector3;
use datasets::rng_for;
use datasets::savegame::{
    Attributes, Class, Effect, Equipment, Gauge, Player, Quest, SaveGame, Slot,
};

/// The log record as an older version wrote it: no `userid` (today's has
/// a default), a `referrer` since dropped, and a `u32` size (today `u64`).
#[derive(Serialize, kiln::Schema)]
#[serde(rename = "Log")]
struct LogV0 {
    address: [u8; 4],
    identity: String,
    referrer: String,
    date: String,
    request: String,
    status: u16,
    size: u32,
}

/// The saved game as an older version wrote it: its players had no
/// `title` (today an option), a `deaths` count since dropped, and a `u8`
/// level (today `u16`).
#[derive(Serialize, kiln::Schema)]
#[serde(rename = "SaveGame")]
struct SaveGameV0 {
    version: u32,
    world_seed: u64,
    world_name: String,
    players: Vec<PlayerV0>,
}

#[derive(Serialize, kiln::Schema)]
#[serde(rename = "Player")]
struct PlayerV0 {
    id: u64,
    name: String,
    class: Class,
    level: u8,
    deaths: u32,
    experience: u64,
    position: Vector3,
    facing: f32,
    health: Gauge,
    mana: Gauge,
    attributes: Attributes,
    inventory: Vec<Slot>,
    equipment: Equipment,
    quests: Vec<Quest>,
    effects: Vec<Effect>,
    guild: Option<String>,
    last_login: Option<u64>,
}

fn old_log(log: &Log) -> LogV0 {
    LogV0 {
        address: log.address,
        identity: log.identity.clone(),
        referrer: "-".into(),
        date: log.date.clone(),
        request: log.request.clone(),
        status: log.status,
        size: log.size as u32,
    }
}

fn old_player(p: &Player) -> PlayerV0 {
    PlayerV0 {
        id: p.id,
        name: p.name.clone(),
        class: p.class,
        level: p.level as u8,
        deaths: (p.id % 7) as u32,
        experience: p.experience,
        position: p.position,
        facing: p.facing,
        health: p.health,
        mana: p.mana,
        attributes: p.attributes,
        inventory: p.inventory.clone(),
        equipment: p.equipment.clone(),
        quests: p.quests.clone(),
        effects: p.effects.clone(),
        guild: p.guild.clone(),
        last_login: p.last_login,
    }
}

fn log(c: &mut Criterion) {
    let log: Vec<Log> = datasets::log::generate(&mut rng_for("log"), 10_000)
        .into_iter()
        .map(|l| Log {
            size: l.size.min(u64::from(u32::MAX)),
            ..l
        })
        .collect();
    let old: Vec<LogV0> = log.iter().map(old_log).collect();
    // Batches without their text, as an appending service writes them; the
    // old version's text comes from a store.
    let opts = FrameOptions::new();
    let today = opts.batch_to_vec(&log).unwrap();
    let before = opts.batch_to_vec(&old).unwrap();
    let mut store = kiln::schema::Store::new();
    store.add::<LogV0>().unwrap();
    let evolve = opts.evolve().schema_store(store);
    // The old records read as today's, with the dropped field gone and the
    // new one at its default.
    let read: Vec<Log> = evolve
        .batch_from_slice(&before)
        .unwrap()
        .collect::<kiln::Result<_>>()
        .unwrap();
    let expected: Vec<Log> = log
        .iter()
        .map(|l| Log {
            userid: String::new(),
            ..l.clone()
        })
        .collect();
    assert_eq!(read, expected);

    let mut g = c.benchmark_group("evolve-log");
    g.throughput(Throughput::Elements(log.len() as u64));
    g.bench_function("matched", |b| {
        b.iter(|| {
            opts.batch_from_slice::<Log>(black_box(&today))
                .unwrap()
                .collect::<kiln::Result<Vec<_>>>()
                .unwrap()
        })
    });
    g.bench_function("matched-evolve", |b| {
        b.iter(|| {
            evolve
                .batch_from_slice::<Log>(black_box(&today))
                .unwrap()
                .collect::<kiln::Result<Vec<_>>>()
                .unwrap()
        })
    });
    g.bench_function("evolved", |b| {
        b.iter(|| {
            evolve
                .batch_from_slice::<Log>(black_box(&before))
                .unwrap()
                .collect::<kiln::Result<Vec<_>>>()
                .unwrap()
        })
    });
    g.finish();
}

fn savegame(c: &mut Criterion) {
    let save = datasets::savegame::generate(&mut rng_for("savegame"), 500);
    let old = SaveGameV0 {
        version: save.version,
        world_seed: save.world_seed,
        world_name: save.world_name.clone(),
        players: save.players.iter().map(old_player).collect(),
    };
    // One record in a frame that embeds its text.
    let opts = FrameOptions::new().embed_schema(true);
    let today = opts.to_vec(&save).unwrap();
    let before = opts.to_vec(&old).unwrap();
    let evolve = opts.evolve();
    let read: SaveGame = evolve.from_slice(&before).unwrap();
    let mut expected = save.clone();
    for p in &mut expected.players {
        p.title = None;
    }
    assert_eq!(read, expected);

    let mut g = c.benchmark_group("evolve-savegame");
    g.throughput(Throughput::Elements(save.players.len() as u64));
    g.bench_function("matched", |b| {
        b.iter(|| opts.from_slice::<SaveGame>(black_box(&today)).unwrap())
    });
    g.bench_function("matched-evolve", |b| {
        b.iter(|| evolve.from_slice::<SaveGame>(black_box(&today)).unwrap())
    });
    g.bench_function("evolved", |b| {
        b.iter(|| evolve.from_slice::<SaveGame>(black_box(&before)).unwrap())
    });
    g.finish();
}

criterion_group!(benches, log, savegame);
criterion_main!(benches);
