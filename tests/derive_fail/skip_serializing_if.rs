#[derive(serde::Serialize, serde::Deserialize, kiln::Schema)]
struct Profile {
    #[serde(skip_serializing_if = "Option::is_none")]
    nickname: Option<String>,
    age: u8,
}

fn main() {
    // The refusal is the only error: the type still implements Schema.
    let _ = kiln::schema::schema_of::<Profile>();
}
