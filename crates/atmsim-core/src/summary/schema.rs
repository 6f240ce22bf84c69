//! The summary's shape: each section struct's name and field names, the always-present ones
//! apart from those left out when absent (`skip_serializing_if`), read from the structs
//! themselves through serde. The Python binding hands it out so that the test of the type
//! stub (`python/atmsim/_core.pyi`, one TypedDict per struct) fails when the two differ.
//!
//! Owns: [`Section`], [`sections`]. How: each struct's default value is serialized into a
//! recorder that notes every field serde writes and every one it skips; the values
//! themselves are never looked at.

use super::{abr, connections, conservation, fabric, internet, signalling, traffic};
use super::{CaptureCounts, ConnectionPool, RunStats, Summary};
use serde::ser::{self, Impossible, Serialize};
use std::fmt;

/// One section struct: its name (the TypedDict's in the stub) and its fields in declaration
/// order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Section {
    pub name: &'static str,
    /// Always in the JSON (possibly `null`).
    pub required: Vec<&'static str>,
    /// In the JSON only when present.
    pub optional: Vec<&'static str>,
}

/// Every struct of the summary, the document first.
pub fn sections() -> Vec<Section> {
    vec![
        of::<Summary>(),
        of::<connections::Connection>(),
        of::<fabric::Source>(),
        of::<fabric::Port>(),
        of::<fabric::Shaper>(),
        of::<fabric::Policer>(),
        of::<internet::Host>(),
        of::<internet::Ipoa>(),
        of::<internet::Line>(),
        of::<internet::UdpFlow>(),
        of::<signalling::Signalling>(),
        of::<signalling::SignallingMessages>(),
        of::<traffic::Generator>(),
        of::<traffic::Application>(),
        of::<traffic::SampleStats>(),
        of::<traffic::Media>(),
        of::<abr::Abr>(),
        of::<abr::AbrEnd>(),
        of::<abr::ErAllocator>(),
        of::<abr::RmCells>(),
        of::<ConnectionPool>(),
        of::<CaptureCounts>(),
        of::<conservation::Conservation>(),
        of::<conservation::CellLedger>(),
        of::<conservation::FrameLedger>(),
        of::<conservation::DatagramLedger>(),
        of::<RunStats>(),
    ]
}

fn of<T: Serialize + Default>() -> Section {
    T::default().serialize(Recorder).expect("a summary section is a struct")
}

/// The one error: what was serialized is not a struct.
#[derive(Debug)]
pub struct NotAStruct;

impl fmt::Display for NotAStruct {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a struct")
    }
}

impl std::error::Error for NotAStruct {}

impl ser::Error for NotAStruct {
    fn custom<M: fmt::Display>(_: M) -> Self {
        NotAStruct
    }
}

/// Records a struct's fields; refuses anything else.
struct Recorder;

/// Each serializer method for a value that is not a struct: refuse it.
macro_rules! refuse {
    ($($method:ident($($arg:ty),*)),* $(,)?) => {
        $(fn $method(self, $(_: $arg),*) -> Result<Section, NotAStruct> { Err(NotAStruct) })*
    };
}

impl ser::Serializer for Recorder {
    type Ok = Section;
    type Error = NotAStruct;
    type SerializeSeq = Impossible<Section, NotAStruct>;
    type SerializeTuple = Impossible<Section, NotAStruct>;
    type SerializeTupleStruct = Impossible<Section, NotAStruct>;
    type SerializeTupleVariant = Impossible<Section, NotAStruct>;
    type SerializeMap = Impossible<Section, NotAStruct>;
    type SerializeStruct = Section;
    type SerializeStructVariant = Impossible<Section, NotAStruct>;

    refuse!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );

    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<Section, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, _: &T) -> Result<Section, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Section, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, NotAStruct> {
        Err(NotAStruct)
    }
    fn serialize_struct(self, name: &'static str, _: usize) -> Result<Section, NotAStruct> {
        Ok(Section { name, ..Section::default() })
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, NotAStruct> {
        Err(NotAStruct)
    }
}

impl ser::SerializeStruct for Section {
    type Ok = Section;
    type Error = NotAStruct;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, _: &T) -> Result<(), NotAStruct> {
        self.required.push(key);
        Ok(())
    }
    fn skip_field(&mut self, key: &'static str) -> Result<(), NotAStruct> {
        self.optional.push(key);
        Ok(())
    }
    fn end(self) -> Result<Section, NotAStruct> {
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_section_is_listed_once_with_its_fields_and_which_may_be_left_out() {
        let all = sections();
        let mut names: Vec<_> = all.iter().map(|s| s.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len());
        let find = |n: &str| all.iter().find(|s| s.name == n).unwrap();
        let port = find("Port");
        assert_eq!(port.required.first(), Some(&"name"));
        assert_eq!(port.optional, ["drop_regulator"]);
        // `null` when absent is required; left out when absent is optional.
        let summary = find("Summary");
        assert!(summary.required.contains(&"signalling"));
        assert_eq!(summary.optional, ["scenario", "seed", "tie_order", "applications"]);
    }

    #[test]
    fn a_value_that_is_not_a_struct_is_refused() {
        assert!(5u32.serialize(Recorder).is_err());
        assert!(vec![1u8].serialize(Recorder).is_err());
    }
}
