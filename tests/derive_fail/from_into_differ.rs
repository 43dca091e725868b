#[derive(Clone, serde::Serialize, serde::Deserialize, kiln::Schema)]
#[serde(from = "u32", into = "String")]
struct Id(u32);

impl From<u32> for Id {
    fn from(v: u32) -> Self { Id(v) }
}
impl From<Id> for String {
    fn from(v: Id) -> Self { v.0.to_string() }
}

fn main() {}
