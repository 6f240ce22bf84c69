//! Core outputs to Python objects.
//!
//! * the summary (`serde_json::Value`) becomes plain dicts/lists/numbers/strings;
//! * the series columns become `array.array("d")` for numbers (buffer protocol:
//!   `numpy.frombuffer` reads them without a copy) and lists of `str` for names, with
//!   repeated names sharing one string object;
//! * captures become a list of `{"name": str, "host": str, "pcap": bytes}`.

use atmsim_core::api::{Capture, Series};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyList, PyString};
use serde_json::Value;

pub fn json_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json_to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, item) in map {
                dict.set_item(k, json_to_py(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

fn floats<'py>(py: Python<'py>, xs: &[f64]) -> PyResult<Bound<'py, PyAny>> {
    let bytes: Vec<u8> = xs.iter().flat_map(|x| x.to_ne_bytes()).collect();
    py.import("array")?.getattr("array")?.call1(("d", PyBytes::new(py, &bytes)))
}

/// The rows' names as a list: each name one Python string, shared by its rows.
fn names<'py>(py: Python<'py>, codes: impl Iterator<Item = usize>, table: &[String]) -> PyResult<Bound<'py, PyList>> {
    let strings: Vec<Bound<'py, PyString>> = table.iter().map(|n| PyString::new(py, n)).collect();
    let list = PyList::empty(py);
    for i in codes {
        list.append(&strings[i])?;
    }
    Ok(list)
}

pub fn series_to_py<'py>(py: Python<'py>, s: &Series) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("time_s", floats(py, &s.time_s)?)?;
    d.set_item("entity", names(py, s.entity.iter().map(|&e| e as usize), &s.entity_names)?)?;
    d.set_item("metric", names(py, s.metric.iter().map(|&m| m as usize), &s.metric_names)?)?;
    d.set_item("value", floats(py, &s.value)?)?;
    Ok(d)
}

pub fn captures_to_py<'py>(py: Python<'py>, caps: &[Capture]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for c in caps {
        let d = PyDict::new(py);
        d.set_item("name", &c.name)?;
        d.set_item("host", &c.host)?;
        d.set_item("pcap", PyBytes::new(py, &c.pcap))?;
        list.append(d)?;
    }
    Ok(list)
}
