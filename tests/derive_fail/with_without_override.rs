fn ser<S: serde::Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> { s.collect_str(v) }
fn de<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> { serde::Deserialize::deserialize(d) }

#[derive(serde::Serialize, serde::Deserialize, kiln::Schema)]
struct Account {
    #[serde(serialize_with = "ser", deserialize_with = "de")]
    balance: u64,
}

fn main() {}
