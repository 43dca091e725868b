#[derive(serde::Serialize, serde::Deserialize, kiln::Schema)]
#[serde(tag = "t", content = "c")]
enum Event { Start(u64), Stop(u64) }

fn main() {}
