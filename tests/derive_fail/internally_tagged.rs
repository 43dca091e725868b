#[derive(serde::Serialize, serde::Deserialize, kiln::Schema)]
#[serde(tag = "type")]
enum Event { Start { at: u64 }, Stop { at: u64 } }

fn main() {}
