//! 500 player records: the shape of a game's saved state, with nested
//! structs, enums with payloads, optional fields, small vectors and strings.

use serde::{Deserialize, Serialize};

use super::Rng;
use super::mesh::{Vector3, vector};

#[derive(
    Serialize,
    Deserialize,
    Debug,
    Clone,
    PartialEq,
    kiln::Schema,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
pub struct SaveGame {
    pub version: u32,
    pub world_seed: u64,
    pub world_name: String,
    pub players: Vec<Player>,
}

#[derive(
    Serialize,
    Deserialize,
    Debug,
    Clone,
    PartialEq,
    kiln::Schema,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
pub struct Player {
    pub id: u64,
    pub name: String,
    pub class: Class,
    pub level: u16,
    pub experience: u64,
    pub position: Vector3,
    pub facing: f32,
    pub health: Gauge,
    pub mana: Gauge,
    pub attributes: Attributes,
    pub inventory: Vec<Slot>,
    pub equipment: Equipment,
    pub quests: Vec<Quest>,
    pub effects: Vec<Effect>,
    pub guild: Option<String>,
    pub title: Option<String>,
    pub last_login: Option<u64>,
}

#[derive(
    Serialize,
    Deserialize,
    Debug,
    Clone,
    Copy,
    PartialEq,
    kiln::Schema,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
pub enum Class {
    Warrior,
    Mage,
    Rogue,
    Cleric,
    Ranger,
}

#[derive(
    Serialize,
    Deserialize,
    Debug,
    Clone,
    Copy,
    PartialEq,
    kiln::Schema,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
pub struct Gauge {
    pub current: u32,
    pub max: u32,
}

#[derive(
    Serialize,
    Deserialize,
    Debug,
    Clone,
    Copy,
    PartialEq,
    kiln::Schema,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
pub struct Attributes {
    pub strength: u8,
    pub dexterity: u8,
    pub intelligence: u8,
    pub vitality: u8,
    pub luck: u8,
}

#[derive(
    Serialize,
    Deserialize,
    Debug,
    Clone,
    PartialEq,
    kiln::Schema,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
pub struct Slot {
    pub item: Item,
    pub count: u16,
}

#[derive(
    Serialize,
    Deserialize,
    Debug,
    Clone,
    PartialEq,
    kiln::Schema,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
pub enum Item {
    Weapon {
        kind: WeaponKind,
        damage: u16,
        durability: u16,
        enchantment: Option<Enchantment>,
    },
    Armor {
        defense: u16,
        weight: f32,
    },
    Potion(Potion, u8),
    Material {
        id: u32,
        name: String,
    },
    Key(u32),
    Junk,
}

#[derive(
    Serialize,
    Deserialize,
    Debug,
    Clone,
    Copy,
    PartialEq,
    kiln::Schema,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
pub enum WeaponKind {
    Sword,
    Axe,
    Bow,
    Staff,
    Dagger,
}

#[derive(
    Serialize,
    Deserialize,
    Debug,
    Clone,
    PartialEq,
    kiln::Schema,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
pub struct Enchantment {
    pub name: String,
    pub power: u8,
}

#[derive(
    Serialize,
    Deserialize,
    Debug,
    Clone,
    Copy,
    PartialEq,
    kiln::Schema,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
pub enum Potion {
    Health,
    Mana,
    Strength,
    Invisibility,
}

#[derive(
    Serialize,
    Deserialize,
    Debug,
    Clone,
    PartialEq,
    kiln::Schema,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
pub struct Equipment {
    pub head: Option<Item>,
    pub body: Option<Item>,
    pub main_hand: Option<Item>,
    pub off_hand: Option<Item>,
}

#[derive(
    Serialize,
    Deserialize,
    Debug,
    Clone,
    PartialEq,
    kiln::Schema,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
pub struct Quest {
    pub id: u32,
    pub state: QuestState,
    pub objectives: Vec<Objective>,
}

#[derive(
    Serialize,
    Deserialize,
    Debug,
    Clone,
    PartialEq,
    kiln::Schema,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
pub enum QuestState {
    Active { step: u8 },
    Completed { at: u64 },
    Failed(String),
}

#[derive(
    Serialize,
    Deserialize,
    Debug,
    Clone,
    Copy,
    PartialEq,
    kiln::Schema,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
pub struct Objective {
    pub target: u32,
    pub progress: u16,
    pub goal: u16,
}

#[derive(
    Serialize,
    Deserialize,
    Debug,
    Clone,
    PartialEq,
    kiln::Schema,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
)]
pub enum Effect {
    Poison { per_second: f32, remaining: f32 },
    Haste(f32),
    Shield { amount: u32 },
    Blessed,
}

/// [`SaveGame`] with its strings borrowed from the input (the borrowed
/// read of the community benchmark's minecraft dataset). The types without
/// strings are shared with [`SaveGame`]. No rkyv derive: rkyv reads
/// [`SaveGame`]'s archived form in place instead.
#[derive(
    Serialize,
    Deserialize,
    Debug,
    PartialEq,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
)]
pub struct SaveGameRef<'a> {
    pub version: u32,
    pub world_seed: u64,
    pub world_name: &'a str,
    #[serde(borrow)]
    pub players: Vec<PlayerRef<'a>>,
}

/// [`Player`], borrowing.
#[derive(
    Serialize,
    Deserialize,
    Debug,
    PartialEq,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
)]
pub struct PlayerRef<'a> {
    pub id: u64,
    pub name: &'a str,
    pub class: Class,
    pub level: u16,
    pub experience: u64,
    pub position: Vector3,
    pub facing: f32,
    pub health: Gauge,
    pub mana: Gauge,
    pub attributes: Attributes,
    #[serde(borrow)]
    pub inventory: Vec<SlotRef<'a>>,
    #[serde(borrow)]
    pub equipment: EquipmentRef<'a>,
    #[serde(borrow)]
    pub quests: Vec<QuestRef<'a>>,
    pub effects: Vec<Effect>,
    #[serde(borrow)]
    pub guild: Option<&'a str>,
    #[serde(borrow)]
    pub title: Option<&'a str>,
    pub last_login: Option<u64>,
}

/// [`Slot`], borrowing.
#[derive(
    Serialize,
    Deserialize,
    Debug,
    PartialEq,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
)]
pub struct SlotRef<'a> {
    #[serde(borrow)]
    pub item: ItemRef<'a>,
    pub count: u16,
}

/// [`Item`], borrowing.
#[derive(
    Serialize,
    Deserialize,
    Debug,
    PartialEq,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
)]
pub enum ItemRef<'a> {
    Weapon {
        kind: WeaponKind,
        damage: u16,
        durability: u16,
        #[serde(borrow)]
        enchantment: Option<EnchantmentRef<'a>>,
    },
    Armor {
        defense: u16,
        weight: f32,
    },
    Potion(Potion, u8),
    Material {
        id: u32,
        name: &'a str,
    },
    Key(u32),
    Junk,
}

/// [`Enchantment`], borrowing.
#[derive(
    Serialize,
    Deserialize,
    Debug,
    PartialEq,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
)]
pub struct EnchantmentRef<'a> {
    pub name: &'a str,
    pub power: u8,
}

/// [`Equipment`], borrowing.
#[derive(
    Serialize,
    Deserialize,
    Debug,
    PartialEq,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
)]
pub struct EquipmentRef<'a> {
    #[serde(borrow)]
    pub head: Option<ItemRef<'a>>,
    #[serde(borrow)]
    pub body: Option<ItemRef<'a>>,
    #[serde(borrow)]
    pub main_hand: Option<ItemRef<'a>>,
    #[serde(borrow)]
    pub off_hand: Option<ItemRef<'a>>,
}

/// [`Quest`], borrowing.
#[derive(
    Serialize,
    Deserialize,
    Debug,
    PartialEq,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
)]
pub struct QuestRef<'a> {
    pub id: u32,
    #[serde(borrow)]
    pub state: QuestStateRef<'a>,
    pub objectives: Vec<Objective>,
}

/// [`QuestState`], borrowing.
#[derive(
    Serialize,
    Deserialize,
    Debug,
    PartialEq,
    bitcode::Encode,
    bitcode::Decode,
    wincode::SchemaWrite,
    wincode::SchemaRead,
)]
pub enum QuestStateRef<'a> {
    Active { step: u8 },
    Completed { at: u64 },
    Failed(&'a str),
}

const CLASSES: &[Class] = &[
    Class::Warrior,
    Class::Mage,
    Class::Rogue,
    Class::Cleric,
    Class::Ranger,
];
const WEAPONS: &[WeaponKind] = &[
    WeaponKind::Sword,
    WeaponKind::Axe,
    WeaponKind::Bow,
    WeaponKind::Staff,
    WeaponKind::Dagger,
];
const POTIONS: &[Potion] = &[
    Potion::Health,
    Potion::Mana,
    Potion::Strength,
    Potion::Invisibility,
];

fn item(rng: &mut Rng) -> Item {
    match rng.below(6) {
        0 => Item::Weapon {
            kind: rng.pick(WEAPONS),
            damage: rng.range(1, 500) as u16,
            durability: rng.range(0, 1000) as u16,
            enchantment: rng.chance(0.3).then(|| Enchantment {
                name: rng.word(4, 12),
                power: rng.range(1, 10) as u8,
            }),
        },
        1 => Item::Armor {
            defense: rng.range(1, 300) as u16,
            weight: rng.f32_in(0.5, 40.0),
        },
        2 => Item::Potion(rng.pick(POTIONS), rng.range(1, 5) as u8),
        3 => Item::Material {
            id: rng.next_u32(),
            name: rng.word(3, 14),
        },
        4 => Item::Key(rng.next_u32()),
        _ => Item::Junk,
    }
}

fn gauge(rng: &mut Rng) -> Gauge {
    let max = rng.range(50, 5000) as u32;
    Gauge {
        current: rng.range(0, max.into()) as u32,
        max,
    }
}

fn player(rng: &mut Rng, id: u64) -> Player {
    Player {
        id,
        name: rng.word(3, 16),
        class: rng.pick(CLASSES),
        level: rng.range(1, 99) as u16,
        experience: rng.below(10_000_000),
        position: vector(rng, 5000.0),
        facing: rng.f32_in(0.0, 360.0),
        health: gauge(rng),
        mana: gauge(rng),
        attributes: Attributes {
            strength: rng.range(1, 99) as u8,
            dexterity: rng.range(1, 99) as u8,
            intelligence: rng.range(1, 99) as u8,
            vitality: rng.range(1, 99) as u8,
            luck: rng.range(1, 99) as u8,
        },
        inventory: (0..rng.range(0, 30))
            .map(|_| Slot {
                item: item(rng),
                count: rng.range(1, 99) as u16,
            })
            .collect(),
        equipment: Equipment {
            head: rng.chance(0.7).then(|| item(rng)),
            body: rng.chance(0.8).then(|| item(rng)),
            main_hand: rng.chance(0.9).then(|| item(rng)),
            off_hand: rng.chance(0.4).then(|| item(rng)),
        },
        quests: (0..rng.range(0, 6))
            .map(|_| Quest {
                id: rng.next_u32(),
                state: match rng.below(3) {
                    0 => QuestState::Active {
                        step: rng.range(0, 9) as u8,
                    },
                    1 => QuestState::Completed {
                        at: 1_600_000_000 + rng.below(200_000_000),
                    },
                    _ => QuestState::Failed(rng.word(8, 24)),
                },
                objectives: (0..rng.range(1, 4))
                    .map(|_| {
                        let goal = rng.range(1, 100) as u16;
                        Objective {
                            target: rng.next_u32(),
                            progress: rng.range(0, goal.into()) as u16,
                            goal,
                        }
                    })
                    .collect(),
            })
            .collect(),
        effects: (0..rng.range(0, 3))
            .map(|_| match rng.below(4) {
                0 => Effect::Poison {
                    per_second: rng.f32_in(1.0, 20.0),
                    remaining: rng.f32_in(0.0, 60.0),
                },
                1 => Effect::Haste(rng.f32_in(1.0, 2.0)),
                2 => Effect::Shield {
                    amount: rng.range(10, 1000) as u32,
                },
                _ => Effect::Blessed,
            })
            .collect(),
        guild: rng.chance(0.5).then(|| rng.word(4, 20)),
        title: rng.chance(0.2).then(|| rng.word(5, 15)),
        last_login: rng
            .chance(0.9)
            .then(|| 1_700_000_000 + rng.below(50_000_000)),
    }
}

/// A saved game with `count` players.
pub fn generate(rng: &mut Rng, count: usize) -> SaveGame {
    SaveGame {
        version: 7,
        world_seed: rng.next_u64(),
        world_name: rng.word(6, 12),
        players: (0..count as u64).map(|id| player(rng, id)).collect(),
    }
}
