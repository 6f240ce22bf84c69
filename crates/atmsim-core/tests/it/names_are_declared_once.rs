//! Each list of names the core reads from scenarios (multiplexing and VC policies, schedulers,
//! tie orders, class matching, TCP variants, application kinds) is declared once, as an enum
//! with `ALL` and `name()` (`AppSec::KINDS` for the tagged application sections): every variant
//! serde knows is in `ALL`, in serde's order, under serde's name. The binding hands these lists
//! to Python (`atmsim._core`), so Python lists none of them itself.

use atmsim_core::atm::sched::Discipline;
use atmsim_core::iface::ipoa::{MuxPolicy, VcPolicy};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The variant names serde's derive knows for `T`, read from the error it gives for a name it
/// does not know ("unknown variant `x`, expected one of `a`, `b`").
fn serde_variants<T: DeserializeOwned>() -> Vec<String> {
    let err = serde_json::from_str::<T>("\"?\"").err().expect("? is no variant").to_string();
    let list = err.split("expected one of ").nth(1).or_else(|| err.split("expected ").nth(1)).expect(&err);
    list.split(['`', ','])
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != "or" && !s.starts_with("at line"))
        .map(|s| s.trim_start_matches("or ").to_string())
        .filter(|s| !s.contains(' '))
        .collect()
}

fn check<T: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug + Copy>(all: &[T], name: fn(T) -> &'static str) {
    let names: Vec<String> = all.iter().map(|&v| name(v).to_string()).collect();
    assert_eq!(names, serde_variants::<T>(), "ALL against serde's variants");
    for &v in all {
        assert_eq!(serde_json::to_value(v).unwrap(), name(v), "{v:?} serializes under its name");
        assert_eq!(serde_json::from_value::<T>(name(v).into()).unwrap(), v, "{v:?} reads back from its name");
    }
}

#[test]
fn multiplexing_policies_are_listed_once_under_serde_names() {
    check(&MuxPolicy::ALL, MuxPolicy::name);
}

#[test]
fn vc_policies_are_listed_once_under_serde_names() {
    check(&VcPolicy::ALL, VcPolicy::name);
}

#[test]
fn schedulers_are_listed_once_under_serde_names() {
    check(&Discipline::ALL, Discipline::name);
}

#[test]
fn tie_orders_are_listed_once_under_serde_names() {
    use atmsim_core::scenario::model::TieOrderSpec;
    check(&TieOrderSpec::ALL, TieOrderSpec::name);
}

#[test]
fn tcp_variants_are_listed_once_under_serde_names() {
    use atmsim_core::transport::tcp::Variant;
    check(&Variant::ALL, Variant::name);
}

#[test]
fn class_matches_are_listed_once_under_serde_names() {
    use atmsim_core::scenario::internet::ClassMatchName;
    check(&ClassMatchName::ALL, ClassMatchName::name);
}

/// The application kinds of `[[tcp]]` and `[[traffic]]` (`app.kind`, an internally tagged
/// enum): `AppSec::KINDS` against the tags serde knows.
#[test]
fn application_kinds_are_listed_once_under_serde_names() {
    use atmsim_core::scenario::model::AppSec;
    let err = serde_json::from_str::<AppSec>(r#"{"kind": "?"}"#).expect_err("? is no kind").to_string();
    let list = err.split("expected one of ").nth(1).expect(&err);
    let tags: Vec<&str> = list.split(['`', ',']).map(str::trim).filter(|s| !s.is_empty() && !s.contains(' ')).collect();
    assert_eq!(tags, AppSec::KINDS, "AppSec::KINDS against serde's tags");
}

#[test]
fn the_variant_reader_reads_every_name_of_the_error() {
    assert_eq!(serde_variants::<VcPolicy>(), ["pvc", "svc", "svccache"]);
}

/// `Metric` has no serde names to compare with, so its declaration is read: every variant of
/// the enum is in `Metric::ALL`, once, in declaration order, and names a distinct series.
#[test]
fn every_metric_is_listed_once() {
    use atmsim_core::measure::Metric;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/measure/metric.rs");
    let file = syn::parse_file(&std::fs::read_to_string(path).unwrap()).unwrap();
    let declared: Vec<String> = file
        .items
        .iter()
        .find_map(|i| match i {
            syn::Item::Enum(e) if e.ident == "Metric" => Some(e.variants.iter().map(|v| v.ident.to_string()).collect()),
            _ => None,
        })
        .expect("enum Metric in measure/metric.rs");
    let listed: Vec<String> = Metric::ALL.iter().map(|m| format!("{m:?}")).collect();
    assert_eq!(listed, declared, "Metric::ALL against the enum's variants");
    let names: std::collections::BTreeSet<&str> = Metric::ALL.iter().map(|m| m.name()).collect();
    assert_eq!(names.len(), Metric::ALL.len(), "each metric names its own series");
}
