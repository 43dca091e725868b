#[derive(serde::Serialize, serde::Deserialize, kiln::Schema)]
struct Config {
    #[serde(skip_deserializing)]
    computed: u32,
    name: String,
}

fn main() {}
