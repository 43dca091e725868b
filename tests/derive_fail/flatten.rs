#[derive(serde::Serialize, serde::Deserialize, kiln::Schema)]
struct Inner { a: u32 }

#[derive(serde::Serialize, serde::Deserialize, kiln::Schema)]
struct Outer {
    #[serde(flatten)]
    inner: Inner,
}

fn main() {}
