//! Core outputs to Python objects.
//!
//! * the summary (`serde_json::Value`) becomes plain dicts/lists/numbers/strings;
//! * the series columns become `array.array("d")` for numbers (buffer protocol:
//!   `numpy.frombuffer` reads them without a copy), and each name column (`entity`,
//!   `metric`) an `array.array("i")` of codes into its sorted distinct names, given beside it
//!   (`entity_names`, `metric_names`): the dictionary `pandas.Categorical` and Arrow's
//!   dictionary arrays keep, so that neither is built row by row in Python;
//! * captures become a list of `{"name": str, "host": str, "pcap": bytes}`.

use atmsim_core::api::{Capture, Series};
use pyo3::exceptions::PyValueError;
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

/// The rows' names (`codes` into `table`) as `array("i")` codes into the sorted distinct
/// names, and those names. UTF-8's byte order is the order of code points, Python's order of
/// strings.
fn coded<'py>(
    py: Python<'py>,
    codes: impl Iterator<Item = usize>,
    table: &[String],
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyList>)> {
    let mut sorted: Vec<usize> = (0..table.len()).collect();
    sorted.sort_unstable_by(|&a, &b| table[a].cmp(&table[b]));
    let mut rank = vec![0i32; table.len()];
    for (r, &i) in sorted.iter().enumerate() {
        rank[i] = i32::try_from(r).map_err(|_| PyValueError::new_err("more distinct names than int32 codes"))?;
    }
    let bytes: Vec<u8> = codes.flat_map(|i| rank[i].to_ne_bytes()).collect();
    let array = py.import("array")?.getattr("array")?.call1(("i", PyBytes::new(py, &bytes)))?;
    Ok((array, PyList::new(py, sorted.iter().map(|&i| PyString::new(py, &table[i])))?))
}

pub fn series_to_py<'py>(py: Python<'py>, s: &Series) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("time_s", floats(py, &s.time_s)?)?;
    let (entity, entity_names) = coded(py, s.entity.iter().map(|&e| e as usize), &s.entity_names)?;
    let (metric, metric_names) = coded(py, s.metric.iter().map(|&m| m as usize), &s.metric_names)?;
    d.set_item("entity", entity)?;
    d.set_item("entity_names", entity_names)?;
    d.set_item("metric", metric)?;
    d.set_item("metric_names", metric_names)?;
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
