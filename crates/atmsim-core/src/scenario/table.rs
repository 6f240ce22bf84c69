//! Tables must be written as tables.
//!
//! Owns: the `deserialize_with` helpers the scenario model puts on every field whose value is a
//! table (`[simulation]`, `[[host]]`, `shape = { … }`, `app = { … }`, …). serde's derived
//! `Deserialize` for a struct also accepts a *sequence* and reads it by position, so
//! `simulation = [0.2, 0.1]` would run as `duration_s = 0.2, warmup_s = 0.1` and
//! `host = [["a"]]` would be a host named "a". These helpers ask the format for a map and
//! refuse anything else with "expected a table", before the derived code ever sees it.
//! (An internally tagged enum such as `app` would likewise take `["bulk"]` as its tag.)

use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;
use std::marker::PhantomData;

/// A `T` that was written as a table (a TOML table or inline table, a JSON object).
pub struct Table<T>(pub T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Table<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Table<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a table")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Table<T>, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(Table)
            }
        }
        d.deserialize_map(V(PhantomData))
    }
}

/// `#[serde(deserialize_with = "table::one")]` on a field of struct type.
pub fn one<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    Table::<T>::deserialize(d).map(|t| t.0)
}

/// `#[serde(default, deserialize_with = "table::optional")]` on an `Option` of struct type.
pub fn optional<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    Option::<Table<T>>::deserialize(d).map(|t| t.map(|t| t.0))
}

/// `#[serde(default, deserialize_with = "table::many")]` on a `Vec` of struct type (an array
/// of tables: `[[host]]`, or `host = [{ … }, …]`).
pub fn many<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    struct V<T>(PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an array of tables")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
            while let Some(Table(t)) = seq.next_element::<Table<T>>()? {
                out.push(t);
            }
            Ok(out)
        }
    }
    d.deserialize_seq(V(PhantomData))
}
