#[derive(serde::Serialize, serde::Deserialize, kiln::Schema)]
enum State {
    #[serde(skip_deserializing)]
    Internal,
    Ready,
    Done(u32),
}

fn main() {}
