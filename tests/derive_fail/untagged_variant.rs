#[derive(serde::Serialize, serde::Deserialize, kiln::Schema)]
enum Value { Known(u32), #[serde(untagged)] Other(String) }

fn main() {}
