#[derive(serde::Serialize, serde::Deserialize, kiln::Schema)]
#[serde(transparent)]
struct Nest(Option<Box<Nest>>);

fn main() {}
