//! The names the core declares once, handed to Python as constants of `atmsim._core`, so
//! that the Python package lists none of them itself (each is documented in `_core.pyi`):
//!
//! * `Metric` — an `enum.StrEnum` of the time-series metrics (`measure::Metric`): each member
//!   is its name, `Metric.CWND_BYTES == "cwnd_bytes"`;
//! * `Entity` — an `enum.StrEnum` of the kinds of entity a series samples (`measure::Entity`),
//!   `Entity.CONN == "conn"`; `METRIC_ENTITIES` maps each metric to its kind, and
//!   `entity_name(kind, name)` spells an entity's name in the series (`"conn:ttcp"`);
//! * `MUX_POLICIES`, `VC_POLICIES`, `SCHEDULERS` — the values scenarios take for `ipoa.mux`,
//!   `ipoa.vc` and `scheduler` (`MuxPolicy::ALL`, `VcPolicy::ALL`, `Discipline::ALL`);
//! * `TCP_VARIANTS` — the values `[[tcp]]` and `[[traffic]]` take for `variant`
//!   (`Variant::ALL`);
//! * `QOS_POLICIES` — Mah's 25 QoS policies (`QosPolicy::all`);
//! * `MAH_CONFIGURATIONS` — the 103 configurations of Mah's study, in the study's order
//!   (`Configuration::all`, the specification the reproduction derives its lists from);
//! * `SUMMARY_SECTIONS` — per struct of the summary, its required and optional field names
//!   (`summary::schema`), which the stub's TypedDicts must match.

use atmsim_core::atm::sched::Discipline;
use atmsim_core::iface::ipoa::qos::{Configuration, QosPolicy};
use atmsim_core::iface::ipoa::{MuxPolicy, VcPolicy};
use atmsim_core::measure::{Entity, Metric};
use atmsim_core::summary::schema;
use atmsim_core::transport::tcp::Variant;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// The name of the entity of kind `kind` named `name` in a series (`"conn:ttcp"`).
#[pyfunction]
fn entity_name(kind: &str, name: &str) -> PyResult<String> {
    let Some(e) = Entity::ALL.into_iter().find(|e| e.name() == kind) else {
        let kinds: Vec<&str> = Entity::ALL.iter().map(|e| e.name()).collect();
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "entity kind: expected one of {}, got {kind:?}",
            kinds.join(", ")
        )));
    };
    Ok(e.of(name))
}

pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let tuple = |names: Vec<String>| PyTuple::new(py, names);
    let named = |names: &[&'static str]| tuple(names.iter().map(|n| n.to_string()).collect());
    m.add("MUX_POLICIES", named(&MuxPolicy::ALL.map(MuxPolicy::name))?)?;
    m.add("VC_POLICIES", named(&VcPolicy::ALL.map(VcPolicy::name))?)?;
    m.add("SCHEDULERS", named(&Discipline::ALL.map(Discipline::name))?)?;
    m.add("TCP_VARIANTS", named(&Variant::ALL.map(Variant::name))?)?;
    m.add("QOS_POLICIES", tuple(QosPolicy::all().iter().map(ToString::to_string).collect())?)?;
    m.add("MAH_CONFIGURATIONS", tuple(Configuration::all().iter().map(ToString::to_string).collect())?)?;

    let kwargs = PyDict::new(py);
    kwargs.set_item("module", "atmsim._core")?;
    let str_enum = |name: &str, members: Vec<(String, &str)>| {
        py.import("enum")?.getattr("StrEnum")?.call((name, members), Some(&kwargs))
    };
    m.add("Metric", str_enum("Metric", Metric::ALL.iter().map(|x| (x.name().to_uppercase(), x.name())).collect())?)?;
    m.add("Entity", str_enum("Entity", Entity::ALL.iter().map(|x| (x.name().to_uppercase(), x.name())).collect())?)?;
    let entities = PyDict::new(py);
    for x in Metric::ALL {
        entities.set_item(x.name(), x.entity().name())?;
    }
    m.add("METRIC_ENTITIES", entities)?;
    m.add_function(wrap_pyfunction!(entity_name, m)?)?;

    let sections = PyDict::new(py);
    for s in schema::sections() {
        sections.set_item(s.name, (named(&s.required)?, named(&s.optional)?))?;
    }
    m.add("SUMMARY_SECTIONS", sections)?;
    Ok(())
}
