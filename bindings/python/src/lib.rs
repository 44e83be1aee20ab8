//! `ringlet._core`: the thin PyO3 binding. Strings in, JSON strings out, so
//! the Python side owns the data frames and the Rust side owns the model.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

type Overrides = Vec<(String, String)>;

/// Parses, validates and checks against the model (so a sweep can reject a
/// bad point before it runs anything).
fn scenario(text: &str, overrides: &Overrides) -> PyResult<ringlet_scenario::Scenario> {
    checked(ringlet::load_str(text, overrides))
}

fn checked(loaded: Result<ringlet_scenario::Scenario, ringlet_scenario::ScenarioError>) -> PyResult<ringlet_scenario::Scenario> {
    let s = loaded.map_err(|e| PyValueError::new_err(e.message))?;
    ringlet::check(&s).map_err(|e| PyValueError::new_err(e.message))?;
    Ok(s)
}

/// The ringlet version.
#[pyfunction]
fn version() -> &'static str {
    ringlet::VERSION
}

/// Validates scenario text with overrides; returns it as canonical TOML with
/// every default filled. Raises ValueError with a one-line message, which
/// for a syntax error starts with `origin` (the file the text came from), if given.
#[pyfunction]
#[pyo3(signature = (text, overrides=Vec::new(), origin=None))]
fn validate(text: &str, overrides: Overrides, origin: Option<&str>) -> PyResult<String> {
    let loaded = match origin {
        Some(name) => checked(ringlet::load_named(text, name, &overrides)),
        None => scenario(text, &overrides),
    };
    Ok(loaded?.to_toml())
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

/// A simple estimate of what a sending node can have carried, MB/s in the
/// unit of `traffic.load_mbps_per_node` (None where there is none): the
/// pre-flight check's bound (`ringlet::capacity`).
#[pyfunction]
#[pyo3(signature = (text, overrides=Vec::new()))]
fn capacity_mbps_per_node(text: &str, overrides: Overrides) -> PyResult<Option<f64>> {
    let s = ringlet::load_str(text, &overrides).map_err(|e| PyValueError::new_err(e.message))?;
    Ok(ringlet::capacity::capacity_mbps_per_node(&s))
}

/// Calls back into Python from a long computation that released the GIL:
/// checks for Ctrl-C, then runs `call`. Returns whether to go on; on an
/// error (the interrupt, or whatever `call` raised) keeps it in `failure`,
/// to be raised once the computation has stopped.
fn tell_python(failure: &mut Option<PyErr>, call: impl FnOnce(Python<'_>) -> PyResult<()>) -> bool {
    Python::with_gil(|py| match py.check_signals().and_then(|_| call(py)) {
        Ok(()) => true,
        Err(e) => {
            *failure = Some(e);
            false
        }
    })
}

/// Runs one simulation point; returns the result as JSON. The GIL is
/// released while the simulation runs.
///
/// With `progress`, a callable `(fraction, sim_time_ns, transactions,
/// target_transactions)` is called about every `every_s` seconds of wall
/// time; Ctrl-C and any exception the callable raises stop the run and are
/// raised here.
#[pyfunction]
#[pyo3(signature = (text, overrides=Vec::new(), progress=None, every_s=0.2))]
fn run(py: Python<'_>, text: &str, overrides: Overrides, progress: Option<PyObject>, every_s: f64) -> PyResult<String> {
    // The set-up time counts reading and checking the scenario as well as building the network.
    let since = std::time::Instant::now();
    let s = scenario(text, &overrides)?;
    let result = match progress {
        None => py.allow_threads(|| ringlet::run_since(&s, since)).map_err(|e| PyValueError::new_err(e.message))?,
        Some(callback) => {
            let every = std::time::Duration::from_secs_f64(every_s.max(0.0));
            let mut failure: Option<PyErr> = None;
            let outcome = py.allow_threads(|| {
                let mut report = |p: ringlet::Progress| {
                    tell_python(&mut failure, |py| {
                        callback.call1(py, (p.fraction, p.sim_time_ns, p.transactions, p.target_transactions)).map(|_| ())
                    })
                };
                ringlet::run_with_progress(&s, every, &mut report, Some(since))
            });
            if let Some(e) = failure {
                return Err(e);
            }
            outcome.map_err(|e| PyValueError::new_err(e.message))?.0
        }
    };
    Ok(serde_json::to_string(&result).expect("result serialises"))
}

/// Runs one point traced over `[from_ns, to_ns]` (`to_ns` None: the whole
/// run), keeping at most `max_records` records; returns `(result JSON,
/// Chrome trace-event JSON, the trace's otherData as JSON)`.
#[pyfunction]
#[pyo3(signature = (text, overrides=Vec::new(), from_ns=0.0, to_ns=None, max_records=200_000))]
fn trace(
    py: Python<'_>,
    text: &str,
    overrides: Overrides,
    from_ns: f64,
    to_ns: Option<f64>,
    max_records: usize,
) -> PyResult<(String, String, String)> {
    let s = scenario(text, &overrides)?;
    let opts = ringlet::TraceOptions { from_ns, to_ns, max_records };
    let t = py.allow_threads(|| ringlet::trace(&s, opts)).map_err(|e| PyValueError::new_err(e.message))?;
    Ok((serde_json::to_string(&t.result).expect("result serialises"), t.json, t.info.to_string()))
}

/// Two-sided 95% Student t quantile with `df` degrees of freedom (the
/// batch-means intervals' own; NaN for 0).
#[pyfunction]
fn t95(df: usize) -> f64 {
    ringlet::t95(df)
}

/// Runs the reference benchmark workloads; returns JSON. `progress`, if
/// given, is called as `progress(done, total, workload)` after each run,
/// outside the timing. (Named `bench_` in Rust because `bench` is a
/// built-in attribute name.)
#[pyfunction]
#[pyo3(name = "bench", signature = (repeats=5, quick=false, progress=None))]
fn bench_(py: Python<'_>, repeats: usize, quick: bool, progress: Option<PyObject>) -> PyResult<String> {
    let mut failure: Option<PyErr> = None;
    let report = py.allow_threads(|| {
        // Ctrl-C between runs stops the bench (a run itself is short).
        let mut tell = |done: usize, total: usize, workload: &str| {
            tell_python(&mut failure, |py| match &progress {
                Some(f) => f.call1(py, (done, total, workload)).map(|_| ()),
                None => Ok(()),
            })
        };
        ringlet::bench::run_all(repeats, quick, &mut tell)
    });
    match (report, failure) {
        (_, Some(e)) => Err(e),
        (Some(r), None) => Ok(serde_json::to_string(&r).expect("bench serialises")),
        (None, None) => unreachable!("the bench stops only when told to"),
    }
}

/// The report's column schema as JSON: `summary`, `tables` (per table, its
/// columns), `counters`, `conservation` (each a list of `{name, unit, doc}`,
/// counters a run's view shows also with a `label`), and `sweep`: the
/// per-priority figures and the `[column, figure]` totals a sweep row copies.
#[pyfunction]
fn report_schema() -> String {
    ringlet::report_schema().to_string()
}

/// The scenario reference (docs/scenario.md) generated from the schema.
#[pyfunction]
fn params_markdown() -> String {
    ringlet::schema().markdown()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_json, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_hash, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(trace, m)?)?;
    m.add_function(wrap_pyfunction!(t95, m)?)?;
    m.add_function(wrap_pyfunction!(bench_, m)?)?;
    m.add_function(wrap_pyfunction!(params_markdown, m)?)?;
    m.add_function(wrap_pyfunction!(report_schema, m)?)?;
    m.add_function(wrap_pyfunction!(capacity_mbps_per_node, m)?)?;
    Ok(())
}
