#[derive(serde::Serialize, serde::Deserialize, kiln::Schema)]
struct Config {
    name: String,
    #[serde(skip_serializing)]
    cache: u32,
}

fn main() {}
