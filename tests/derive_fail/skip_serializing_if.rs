#[derive(serde::Serialize, serde::Deserialize, kiln::Schema)]
struct Profile {
    #[serde(skip_serializing_if = "Option::is_none")]
    nickname: Option<String>,
    age: u8,
}

fn main() {}
