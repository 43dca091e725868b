//! The cases of the matrix: one module per pair, `w` the writer's version
//! and `r` the reader's, both of one serde name.

use std::collections::BTreeMap;

use super::Expect::{Fails, Refused, Value};
use super::Matrix;

/// Declares a writer module and a reader module with the derives each side
/// needs.
macro_rules! pair {
    ($case:ident { $($w:item)* } => { $($r:item)* }) => {
        #[allow(dead_code)]
        mod $case {
            pub mod w {
                #[allow(unused_imports)]
                use std::collections::{BTreeMap, HashMap};
                use serde::Serialize;
                $(#[derive(Serialize, kiln::Schema, Clone, Debug)] $w)*
            }
            pub mod r {
                #[allow(unused_imports)]
                use std::collections::{BTreeMap, HashMap};
                use serde::{Deserialize, Serialize};
                $(#[derive(Serialize, Deserialize, kiln::Schema, Debug, PartialEq)] $r)*
            }
        }
    };
}

// ----- struct fields -----
pair!(added_default { pub struct Rec { pub a: u32 } }
    => { pub struct Rec { pub a: u32, #[serde(default)] pub b: u16 } });
pair!(added_option { pub struct Rec { pub a: u32 } }
    => { pub struct Rec { pub a: u32, pub b: Option<String> } });
pair!(added_refused { pub struct Rec { pub a: u32 } }
    => { pub struct Rec { pub a: u32, pub b: u8 } });
pair!(added_container_default { pub struct Rec { pub a: u32 } }
    => { #[derive(Default)] #[serde(default)] pub struct Rec { pub a: u32, pub b: String, pub c: Vec<u8> } });
pair!(removed { pub struct Rec { pub a: u8, pub b: String, pub c: u8 } }
    => { pub struct Rec { pub a: u8, pub c: u8 } });
pair!(moved { pub struct Rec { pub a: u8, pub b: String } }
    => { pub struct Rec { pub b: String, pub a: u8 } });
pair!(alias { pub struct Rec { pub old: u8, pub keep: bool } }
    => { pub struct Rec { #[serde(alias = "old")] pub new: u8, pub keep: bool } });
pair!(alias_and_name { pub struct Rec { pub old: u8, pub new: u8 } }
    => { pub struct Rec { #[serde(alias = "old")] pub new: u8 } });
pair!(renamed_container { #[serde(rename = "Old")] pub struct Rec { pub a: i16 } }
    => { #[serde(rename = "New")] pub struct Rec { pub a: i16 } });
pair!(removed_complex {
        pub enum Kind { A, B(String), C { x: f32 } }
        pub struct Rec { pub a: u8, pub junk: Vec<Option<(String, [u32; 2])>>, pub kind: Kind, pub map: BTreeMap<u8, bool>, pub b: u8 }
    } => { pub struct Rec { pub a: u8, pub b: u8 } });
pair!(nested_removed {
    pub struct Inner { pub a: u16, pub b: String }
    pub struct Rec { pub inner: Inner, pub n: u8 }
} => {
    pub struct Inner { pub a: u16 }
    pub struct Rec { pub inner: Inner, pub n: u8 }
});
pair!(vec_of_structs {
    pub struct Item { pub id: u32 }
    pub struct Rec { pub items: Vec<Item> }
} => {
    pub struct Item { pub id: u64, #[serde(default)] pub tag: String }
    pub struct Rec { pub items: Vec<Item> }
});
pair!(option_of_struct {
    pub struct Inner { pub x: i8, pub y: i8 }
    pub struct Rec { pub o: Option<Inner> }
} => {
    pub struct Inner { pub y: i8 }
    pub struct Rec { pub o: Option<Inner> }
});
pair!(recursive {
    pub struct Tree { pub v: i32, pub kids: Vec<Tree> }
} => {
    pub struct Tree { pub v: i64, pub kids: Vec<Tree> }
});
pair!(tuple_struct { pub struct Pair(pub u8, pub i16); }
    => { pub struct Pair(pub u16, pub i32); });
pair!(tuple_struct_longer { pub struct Pair(pub u8, pub u16); }
    => { pub struct Pair(pub u8, pub u16, pub u32); });
pair!(struct_to_enum { pub struct Thing { pub a: u8 } }
    => { pub enum Thing { A(u8) } });

// ----- enums -----
pair!(variant_added { pub enum E { A, B(u8) } }
    => { pub enum E { A, B(u8), C } });
pair!(variant_moved { pub enum E { A, B(u8) } }
    => { pub enum E { B(u8), A } });
pair!(variant_removed_met { pub enum E { A, B(u8), C } }
    => { pub enum E { A, B(u8) } });
pair!(variant_removed_unmet { pub enum E { A, B(u8), C } }
    => { pub enum E { A, B(u8) } });
pair!(variant_other { pub enum E { A, Gone(String) } }
    => { pub enum E { A, #[serde(other)] Unknown } });
pair!(variant_alias { pub enum E { Old(u8), Z } }
    => { pub enum E { #[serde(alias = "Old")] New(u8), Z } });
pair!(variant_promoted { pub enum E { N(i32), S(String) } }
    => { pub enum E { N(i64), S(String) } });
pair!(variant_struct_field { pub enum E { S { a: u8 }, T } }
    => { pub enum E { S { a: u8, #[serde(default)] b: u8 }, T } });
pair!(variant_tuple_promoted { pub enum E { T(u8, f32), U } }
    => { pub enum E { T(u16, f64), U } });
pair!(variant_shape_changed { pub enum E { A(u8), B } }
    => { pub enum E { A { x: u8 }, B } });
pair!(enum_in_vec { pub enum E { A, B(u8), C } pub struct Rec { pub es: Vec<E> } }
    => { pub enum E { C, #[serde(other)] Other } pub struct Rec { pub es: Vec<E> } });

// ----- numbers -----
pair!(i8_to_i64 { pub struct Rec { pub n: i8 } } => { pub struct Rec { pub n: i64 } });
pair!(u16_to_u32 { pub struct Rec { pub n: u16 } } => { pub struct Rec { pub n: u32 } });
pair!(u32_to_i64 { pub struct Rec { pub n: u32 } } => { pub struct Rec { pub n: i64 } });
pair!(u64_to_u128 { pub struct Rec { pub n: u64 } } => { pub struct Rec { pub n: u128 } });
pair!(i32_to_u64 { pub struct Rec { pub n: i32 } } => { pub struct Rec { pub n: u64 } });
pair!(u64_to_u32 { pub struct Rec { pub n: u64 } } => { pub struct Rec { pub n: u32 } });
pair!(i32_to_f64 { pub struct Rec { pub n: i32 } } => { pub struct Rec { pub n: f64 } });
pair!(u16_to_f32 { pub struct Rec { pub n: u16 } } => { pub struct Rec { pub n: f32 } });
pair!(i64_to_f64 { pub struct Rec { pub n: i64 } } => { pub struct Rec { pub n: f64 } });
pair!(f32_to_f64 { pub struct Rec { pub n: f32 } } => { pub struct Rec { pub n: f64 } });
pair!(f64_to_f32 { pub struct Rec { pub n: f64 } } => { pub struct Rec { pub n: f32 } });
pair!(root_number { pub struct Meters(pub u32); } => { pub struct Meters(pub u64); });

// ----- options, newtypes, arrays, strings -----
pair!(into_option { pub struct Rec { pub a: u8, pub s: String } }
    => { pub struct Rec { pub a: Option<u8>, pub s: Option<String> } });
pair!(out_of_option { pub struct Rec { pub a: Option<u8> } }
    => { pub struct Rec { pub a: u8 } });
pair!(option_promoted { pub struct Rec { pub a: Option<u8> } }
    => { pub struct Rec { pub a: Option<u32> } });
pair!(newtype_unwrapped { pub struct Meters(pub f64); pub struct Rec { pub m: Meters } }
    => { pub struct Rec { pub m: f64 } });
pair!(newtype_wrapped { pub struct Rec { pub m: f64 } }
    => { pub struct Meters(pub f64); pub struct Rec { pub m: Meters } });
pair!(newtype_promoted { pub struct Id(pub u32); pub struct Rec { pub id: Id } }
    => { pub struct Id(pub u64); pub struct Rec { pub id: Id } });
pair!(array_to_vec { pub struct Rec { pub a: [u16; 3] } }
    => { pub struct Rec { pub a: Vec<u16> } });
pair!(array_to_vec_promoted { pub struct Rec { pub a: [i16; 3] } }
    => { pub struct Rec { pub a: Vec<i32> } });
pair!(array_promoted { pub struct Rec { pub a: [u8; 4] } }
    => { pub struct Rec { pub a: [u32; 4] } });
pair!(vec_to_array { pub struct Rec { pub a: Vec<u16> } }
    => { pub struct Rec { pub a: [u16; 3] } });
pair!(str_to_bytes { pub struct Rec { pub s: String } }
    => { pub struct Rec { #[serde(with = "serde_bytes")] pub s: Vec<u8> } });
pair!(bytes_to_str { pub struct Rec { #[serde(with = "serde_bytes")] pub s: Vec<u8> } }
    => { pub struct Rec { pub s: String } });
pair!(str_to_number { pub struct Rec { pub s: String } }
    => { pub struct Rec { pub s: u32 } });

// ----- tuples and maps -----
pair!(tuple_promoted { pub struct Rec { pub t: (u8, String) } }
    => { pub struct Rec { pub t: (u16, String) } });
pair!(tuple_shorter { pub struct Rec { pub t: (u8, u8, u8) } }
    => { pub struct Rec { pub t: (u8, u8) } });
pair!(map_value_promoted { pub struct Rec { pub m: BTreeMap<String, i32> } }
    => { pub struct Rec { pub m: HashMap<String, i64> } });
pair!(map_key_promoted { pub struct Rec { pub m: BTreeMap<u8, String> } }
    => { pub struct Rec { pub m: BTreeMap<u16, String> } });
pair!(map_of_structs {
    pub struct V { pub a: u8, pub gone: f64 }
    pub struct Rec { pub m: BTreeMap<String, V> }
} => {
    pub struct V { pub a: u8 }
    pub struct Rec { pub m: BTreeMap<String, V> }
});

// ----- bytes that lie -----
pair!(lie_bool { pub struct Rec { pub flag: bool, pub n: u8 } }
    => { pub struct Rec { pub n: u8 } });
pair!(lie_block { pub struct Rec { pub a: u8, pub v: Vec<u16> } }
    => { pub struct Rec { pub a: u8 } });
pair!(lie_count { pub struct Rec { pub a: u8, pub s: String, pub n: u8 } }
    => { pub struct Rec { pub s: String, pub n: u8 } });

pub fn all(m: &mut Matrix) {
    m.case(
        "field-added-default",
        added_default::w::Rec { a: 7 },
        Value(
            added_default::r::Rec { a: 7, b: 0 },
            &["field-added-default"],
        ),
    );
    m.case(
        "field-added-option",
        added_option::w::Rec { a: 7 },
        Value(
            added_option::r::Rec { a: 7, b: None },
            &["field-added-option"],
        ),
    );
    m.case(
        "field-added-refused",
        added_refused::w::Rec { a: 7 },
        Refused::<added_refused::r::Rec>("field-added", "Rec.b"),
    );
    m.case(
        "field-added-container-default",
        added_container_default::w::Rec { a: 7 },
        Value(
            added_container_default::r::Rec {
                a: 7,
                b: String::new(),
                c: vec![],
            },
            &["field-added-default"],
        ),
    );
    m.case(
        "field-removed",
        removed::w::Rec {
            a: 1,
            b: "gone".into(),
            c: 3,
        },
        Value(removed::r::Rec { a: 1, c: 3 }, &["field-removed"]),
    );
    m.case(
        "field-moved",
        moved::w::Rec {
            a: 1,
            b: "b".into(),
        },
        Value(
            moved::r::Rec {
                b: "b".into(),
                a: 1,
            },
            &["field-moved"],
        ),
    );
    m.case(
        "field-alias",
        alias::w::Rec { old: 9, keep: true },
        Value(alias::r::Rec { new: 9, keep: true }, &["field-alias"]),
    );
    // The writer field of the reader's own name wins over its alias.
    m.case(
        "field-alias-and-name",
        alias_and_name::w::Rec { old: 1, new: 2 },
        Value(alias_and_name::r::Rec { new: 2 }, &["field-removed"]),
    );
    m.case(
        "container-renamed",
        renamed_container::w::Rec { a: -2 },
        Value(renamed_container::r::Rec { a: -2 }, &[]),
    );
    {
        use removed_complex::w::{Kind, Rec};
        let mut map = BTreeMap::new();
        map.insert(1, true);
        map.insert(2, false);
        m.case(
            "field-removed-complex",
            Rec {
                a: 1,
                junk: vec![Some(("x".into(), [1, 2])), None],
                kind: Kind::C { x: 1.5 },
                map,
                b: 2,
            },
            Value(removed_complex::r::Rec { a: 1, b: 2 }, &["field-removed"]),
        );
    }
    m.case(
        "nested-field-removed",
        nested_removed::w::Rec {
            inner: nested_removed::w::Inner {
                a: 5,
                b: "no".into(),
            },
            n: 6,
        },
        Value(
            nested_removed::r::Rec {
                inner: nested_removed::r::Inner { a: 5 },
                n: 6,
            },
            &["field-removed"],
        ),
    );
    m.case(
        "vec-of-structs",
        vec_of_structs::w::Rec {
            items: vec![
                vec_of_structs::w::Item { id: 1 },
                vec_of_structs::w::Item { id: 2 },
            ],
        },
        Value(
            vec_of_structs::r::Rec {
                items: vec![
                    vec_of_structs::r::Item {
                        id: 1,
                        tag: String::new(),
                    },
                    vec_of_structs::r::Item {
                        id: 2,
                        tag: String::new(),
                    },
                ],
            },
            &["int-widened", "field-added-default"],
        ),
    );
    m.case(
        "option-of-struct",
        option_of_struct::w::Rec {
            o: Some(option_of_struct::w::Inner { x: 1, y: -1 }),
        },
        Value(
            option_of_struct::r::Rec {
                o: Some(option_of_struct::r::Inner { y: -1 }),
            },
            &["field-removed"],
        ),
    );
    {
        use recursive::r::Tree as R;
        use recursive::w::Tree as W;
        let w = W {
            v: 1,
            kids: vec![
                W { v: 2, kids: vec![] },
                W {
                    v: 3,
                    kids: vec![W { v: 4, kids: vec![] }],
                },
            ],
        };
        let r = R {
            v: 1,
            kids: vec![
                R { v: 2, kids: vec![] },
                R {
                    v: 3,
                    kids: vec![R { v: 4, kids: vec![] }],
                },
            ],
        };
        m.case("recursive", w, Value(r, &["int-widened"]));
    }
    m.case(
        "tuple-struct-promoted",
        tuple_struct::w::Pair(1, -2),
        Value(tuple_struct::r::Pair(1, -2), &["int-widened"]),
    );
    m.case(
        "tuple-struct-longer",
        tuple_struct_longer::w::Pair(1, 2),
        Refused::<tuple_struct_longer::r::Pair>("shape-changed", "Pair"),
    );
    m.case(
        "struct-to-enum",
        struct_to_enum::w::Thing { a: 1 },
        Refused::<struct_to_enum::r::Thing>("kind-changed", "Thing"),
    );

    m.case(
        "variant-added",
        variant_added::w::E::B(7),
        Value(variant_added::r::E::B(7), &["variant-added"]),
    );
    m.case(
        "variant-moved",
        variant_moved::w::E::A,
        Value(variant_moved::r::E::A, &["variant-moved"]),
    );
    m.case(
        "variant-removed-met",
        variant_removed_met::w::E::C,
        Fails::<variant_removed_met::r::E>("variant-not-in-reader", 0),
    );
    m.case(
        "variant-removed-unmet",
        variant_removed_unmet::w::E::B(3),
        Value(variant_removed_unmet::r::E::B(3), &["variant-removed"]),
    );
    m.case(
        "variant-other",
        variant_other::w::E::Gone("x".into()),
        Value(variant_other::r::E::Unknown, &["variant-other"]),
    );
    m.case(
        "variant-alias",
        variant_alias::w::E::Old(4),
        Value(variant_alias::r::E::New(4), &["variant-alias"]),
    );
    m.case(
        "variant-payload-promoted",
        variant_promoted::w::E::N(-5),
        Value(variant_promoted::r::E::N(-5), &["int-widened"]),
    );
    m.case(
        "variant-struct-field-added",
        variant_struct_field::w::E::S { a: 1 },
        Value(
            variant_struct_field::r::E::S { a: 1, b: 0 },
            &["field-added-default"],
        ),
    );
    m.case(
        "variant-tuple-promoted",
        variant_tuple_promoted::w::E::T(1, 0.5),
        Value(
            variant_tuple_promoted::r::E::T(1, 0.5),
            &["int-widened", "float-widened"],
        ),
    );
    m.case(
        "variant-shape-changed",
        variant_shape_changed::w::E::B,
        Refused::<variant_shape_changed::r::E>("shape-changed", "E::A"),
    );
    {
        use enum_in_vec::w::E;
        m.case(
            "enum-in-vec-other",
            enum_in_vec::w::Rec {
                es: vec![E::A, E::B(1), E::C],
            },
            Value(
                enum_in_vec::r::Rec {
                    es: vec![
                        enum_in_vec::r::E::Other,
                        enum_in_vec::r::E::Other,
                        enum_in_vec::r::E::C,
                    ],
                },
                &["variant-other", "variant-moved"],
            ),
        );
    }

    m.case(
        "i8-to-i64",
        i8_to_i64::w::Rec { n: -128 },
        Value(i8_to_i64::r::Rec { n: -128 }, &["int-widened"]),
    );
    m.case(
        "u16-to-u32",
        u16_to_u32::w::Rec { n: 65535 },
        Value(u16_to_u32::r::Rec { n: 65535 }, &["int-widened"]),
    );
    m.case(
        "u32-to-i64",
        u32_to_i64::w::Rec { n: u32::MAX },
        Value(u32_to_i64::r::Rec { n: u32::MAX as i64 }, &["int-widened"]),
    );
    m.case(
        "u64-to-u128",
        u64_to_u128::w::Rec { n: u64::MAX },
        Value(
            u64_to_u128::r::Rec {
                n: u64::MAX as u128,
            },
            &["int-widened"],
        ),
    );
    m.case(
        "i32-to-u64",
        i32_to_u64::w::Rec { n: 1 },
        Refused::<i32_to_u64::r::Rec>("number-narrowed", "Rec.n"),
    );
    m.case(
        "u64-to-u32",
        u64_to_u32::w::Rec { n: 1 },
        Refused::<u64_to_u32::r::Rec>("number-narrowed", "Rec.n"),
    );
    m.case(
        "i32-to-f64",
        i32_to_f64::w::Rec { n: i32::MIN },
        Value(i32_to_f64::r::Rec { n: i32::MIN as f64 }, &["int-to-float"]),
    );
    m.case(
        "u16-to-f32",
        u16_to_f32::w::Rec { n: 65535 },
        Value(u16_to_f32::r::Rec { n: 65535.0 }, &["int-to-float"]),
    );
    m.case(
        "i64-to-f64",
        i64_to_f64::w::Rec { n: 1 },
        Refused::<i64_to_f64::r::Rec>("number-narrowed", "Rec.n"),
    );
    m.case(
        "f32-to-f64",
        f32_to_f64::w::Rec { n: 0.1 },
        Value(
            f32_to_f64::r::Rec {
                n: f64::from(0.1f32),
            },
            &["float-widened"],
        ),
    );
    m.case(
        "f64-to-f32",
        f64_to_f32::w::Rec { n: 0.5 },
        Refused::<f64_to_f32::r::Rec>("number-narrowed", "Rec.n"),
    );
    m.case(
        "root-newtype-promoted",
        root_number::w::Meters(7),
        Value(root_number::r::Meters(7), &["int-widened"]),
    );

    m.case(
        "into-option",
        into_option::w::Rec {
            a: 1,
            s: "s".into(),
        },
        Value(
            into_option::r::Rec {
                a: Some(1),
                s: Some("s".into()),
            },
            &["into-option"],
        ),
    );
    m.case(
        "out-of-option",
        out_of_option::w::Rec { a: Some(1) },
        Refused::<out_of_option::r::Rec>("kind-changed", "Rec.a"),
    );
    m.case(
        "option-promoted",
        option_promoted::w::Rec { a: Some(200) },
        Value(option_promoted::r::Rec { a: Some(200) }, &["int-widened"]),
    );
    m.case(
        "newtype-unwrapped",
        newtype_unwrapped::w::Rec {
            m: newtype_unwrapped::w::Meters(2.5),
        },
        Value(newtype_unwrapped::r::Rec { m: 2.5 }, &["newtype-unwrapped"]),
    );
    m.case(
        "newtype-wrapped",
        newtype_wrapped::w::Rec { m: 2.5 },
        Value(
            newtype_wrapped::r::Rec {
                m: newtype_wrapped::r::Meters(2.5),
            },
            &["newtype-wrapped"],
        ),
    );
    m.case(
        "newtype-promoted",
        newtype_promoted::w::Rec {
            id: newtype_promoted::w::Id(9),
        },
        Value(
            newtype_promoted::r::Rec {
                id: newtype_promoted::r::Id(9),
            },
            &["int-widened"],
        ),
    );
    m.case(
        "array-to-vec",
        array_to_vec::w::Rec { a: [1, 2, 3] },
        Value(array_to_vec::r::Rec { a: vec![1, 2, 3] }, &["array-to-seq"]),
    );
    m.case(
        "array-to-vec-promoted",
        array_to_vec_promoted::w::Rec { a: [-1, 0, 1] },
        Value(
            array_to_vec_promoted::r::Rec { a: vec![-1, 0, 1] },
            &["array-to-seq", "int-widened"],
        ),
    );
    m.case(
        "array-promoted",
        array_promoted::w::Rec { a: [1, 2, 3, 255] },
        Value(
            array_promoted::r::Rec { a: [1, 2, 3, 255] },
            &["int-widened"],
        ),
    );
    m.case(
        "vec-to-array",
        vec_to_array::w::Rec { a: vec![1, 2, 3] },
        Refused::<vec_to_array::r::Rec>("kind-changed", "Rec.a"),
    );
    m.case(
        "str-to-bytes",
        str_to_bytes::w::Rec { s: "hé".into() },
        Value(
            str_to_bytes::r::Rec {
                s: "hé".as_bytes().to_vec(),
            },
            &["str-to-bytes"],
        ),
    );
    m.case(
        "bytes-to-str",
        bytes_to_str::w::Rec { s: b"x".to_vec() },
        Refused::<bytes_to_str::r::Rec>("kind-changed", "Rec.s"),
    );
    m.case(
        "str-to-number",
        str_to_number::w::Rec { s: "1".into() },
        Refused::<str_to_number::r::Rec>("kind-changed", "Rec.s"),
    );

    m.case(
        "tuple-promoted",
        tuple_promoted::w::Rec { t: (1, "t".into()) },
        Value(
            tuple_promoted::r::Rec { t: (1, "t".into()) },
            &["int-widened"],
        ),
    );
    m.case(
        "tuple-shorter",
        tuple_shorter::w::Rec { t: (1, 2, 3) },
        Refused::<tuple_shorter::r::Rec>("length-changed", "Rec.t"),
    );
    {
        let mut w = BTreeMap::new();
        // One entry: the reader's HashMap writes its entries in any order.
        w.insert("a".to_owned(), -1);
        let r = w.iter().map(|(k, v)| (k.clone(), i64::from(*v))).collect();
        m.case(
            "map-value-promoted",
            map_value_promoted::w::Rec { m: w },
            Value(map_value_promoted::r::Rec { m: r }, &["int-widened"]),
        );
        let mut w = BTreeMap::new();
        w.insert(3u8, "three".to_owned());
        let r = w.iter().map(|(k, v)| (u16::from(*k), v.clone())).collect();
        m.case(
            "map-key-promoted",
            map_key_promoted::w::Rec { m: w },
            Value(map_key_promoted::r::Rec { m: r }, &["int-widened"]),
        );
        let mut w = BTreeMap::new();
        w.insert("k".to_owned(), map_of_structs::w::V { a: 1, gone: 2.0 });
        let mut r = BTreeMap::new();
        r.insert("k".to_owned(), map_of_structs::r::V { a: 1 });
        m.case(
            "map-of-structs",
            map_of_structs::w::Rec { m: w },
            Value(map_of_structs::r::Rec { m: r }, &["field-removed"]),
        );
    }

    // A dropped bool that is not 0 or 1: checked as the plain reader would.
    let mut framed = kiln::frame::FrameOptions::new()
        .checksum(false)
        .embed_schema(true)
        .to_vec(&lie_bool::w::Rec { flag: true, n: 5 })
        .unwrap();
    let at = framed.len() - 2;
    framed[at] = 2;
    m.hostile::<lie_bool::r::Rec>(
        "lie-dropped-bool",
        framed,
        "invalid-bool",
        at as u64,
        "Rec.flag",
    );
    // A string count that runs past the payload.
    let mut framed = kiln::frame::FrameOptions::new()
        .checksum(false)
        .embed_schema(true)
        .to_vec(&lie_count::w::Rec {
            a: 1,
            s: "abc".into(),
            n: 2,
        })
        .unwrap();
    let at = framed.len() - 9;
    framed[at + 1..at + 5].copy_from_slice(&[0xff, 0xff, 0, 0]);
    m.hostile::<lie_count::r::Rec>(
        "lie-string-count",
        framed,
        "unexpected-end",
        at as u64 + 5,
        "Rec.s",
    );
    // A dropped block whose count claims one element more than is there:
    // the error is at the element that cannot be read whole, from a slice
    // as from a stream, as the plain reader's is.
    let mut framed = kiln::frame::FrameOptions::new()
        .checksum(false)
        .embed_schema(true)
        .to_vec(&lie_block::w::Rec {
            a: 1,
            v: vec![1, 2, 3],
        })
        .unwrap();
    let at = framed.len() - 10;
    framed[at] = 4;
    m.hostile::<lie_block::r::Rec>(
        "lie-dropped-block-count",
        framed,
        "unexpected-end",
        at as u64 + 4 + 6,
        "Rec.v",
    );
}
