#[derive(serde::Serialize, serde::Deserialize, kiln::Schema)]
#[serde(untagged)]
enum Either { A(u32), B(String) }

fn main() {}
