//! `ringlet._core`: the thin PyO3 binding. Strings in, JSON strings out, so
//! the Python side owns the data frames and the Rust side owns the model.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

type Overrides = Vec<(String, String)>;

/// Parses, validates and checks against the model (so a sweep can reject a
/// bad point before it runs anything).
fn scenario(text: &str, overrides: &Overrides) -> PyResult<ringlet_scenario::Scenario> {
    let s = ringlet_scenario::load_str(text, overrides).map_err(|e| PyValueError::new_err(e.message))?;
    ringlet::check(&s).map_err(|e| PyValueError::new_err(e.message))?;
    Ok(s)
}

/// The ringlet version.
#[pyfunction]
fn version() -> &'static str {
    ringlet::VERSION
}

/// Validates scenario text with overrides; returns it as canonical TOML with
/// every default filled. Raises ValueError with a one-line message.
#[pyfunction]
#[pyo3(signature = (text, overrides=Vec::new()))]
fn validate(text: &str, overrides: Overrides) -> PyResult<String> {
    Ok(scenario(text, &overrides)?.to_toml())
}

/// The validated scenario as JSON.
#[pyfunction]
#[pyo3(signature = (text, overrides=Vec::new()))]
fn scenario_json(text: &str, overrides: Overrides) -> PyResult<String> {
    Ok(scenario(text, &overrides)?.to_json())
}

/// The scenario hash used in provenance.
#[pyfunction]
#[pyo3(signature = (text, overrides=Vec::new()))]
fn scenario_hash(text: &str, overrides: Overrides) -> PyResult<String> {
    Ok(scenario(text, &overrides)?.hash())
}

/// Runs one simulation point; returns the result as JSON. The GIL is
/// released while the simulation runs.
#[pyfunction]
#[pyo3(signature = (text, overrides=Vec::new()))]
fn run(py: Python<'_>, text: &str, overrides: Overrides) -> PyResult<String> {
    let s = scenario(text, &overrides)?;
    let result = py.allow_threads(|| ringlet::run(&s)).map_err(|e| PyValueError::new_err(e.message))?;
    Ok(serde_json::to_string(&result).expect("result serialises"))
}

/// Runs the reference benchmark workloads; returns JSON. (Named `bench_`
/// in Rust because `bench` is a built-in attribute name.)
#[pyfunction]
#[pyo3(name = "bench", signature = (repeats=5, quick=false))]
fn bench_(py: Python<'_>, repeats: usize, quick: bool) -> PyResult<String> {
    let r = py.allow_threads(|| ringlet::bench::run_all(repeats, quick));
    Ok(serde_json::to_string(&r).expect("bench serialises"))
}

/// The scenario reference (docs/scenario.md) generated from the schema.
#[pyfunction]
fn params_markdown() -> String {
    ringlet_scenario::schema::markdown()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_json, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_hash, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(bench_, m)?)?;
    m.add_function(wrap_pyfunction!(params_markdown, m)?)?;
    Ok(())
}
