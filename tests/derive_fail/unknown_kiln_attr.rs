#[derive(serde::Serialize, serde::Deserialize, kiln::Schema)]
struct Point {
    #[kiln(rename = "z")]
    x: i32,
}

fn main() {}
