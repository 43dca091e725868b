fn text<S: serde::Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> { s.collect_str(v) }

#[derive(serde::Serialize, kiln::Schema)]
enum Amount {
    #[serde(serialize_with = "text")]
    Exact(u64),
    Unknown,
}

fn main() {}
