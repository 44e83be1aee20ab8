//! The registry of network families, and everything run through it: a
//! scenario validated against the contract the families make together,
//! checked and run by the family its `network.kind` names.

use crate::{RunResult, TraceOptions, Traced, VERSION};
use ringlet_engine::run::{Progress, TraceWindow};
use ringlet_engine::time::ns_to_time;
use ringlet_fabric::family::{Family, Mode, Outcome, Workload};
use ringlet_scenario::schema::Schema;
use ringlet_scenario::{Scenario, ScenarioError};
use std::time::Instant;

/// A set of network families and the scenario contract they make.
pub struct Registry {
    families: &'static [Family],
    schema: Schema,
}

impl Registry {
    /// The registry of `families`; the first is the one listed first in the
    /// reference. Panics on a registration error (see `Schema::new`).
    pub fn new(families: &'static [Family]) -> Registry {
        Registry { families, schema: Schema::new(&families.iter().map(|f| f.schema).collect::<Vec<_>>()) }
    }

    /// The scenario contract: the core keys plus every family's.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    pub fn families(&self) -> &'static [Family] {
        self.families
    }

    /// The family a (validated) scenario runs.
    fn family(&self, s: &Scenario) -> &'static Family {
        self.families.iter().find(|f| f.schema.kind == s.network.kind).expect("the schema admits only registered families")
    }

    /// Parses and validates scenario text with `--set` overrides applied.
    pub fn load_str(&self, text: &str, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
        ringlet_scenario::load_str(&self.schema, text, overrides)
    }

    /// Parses and validates the text of the file named `origin` (its name
    /// leads a syntax error's message).
    pub fn load_named(&self, text: &str, origin: &str, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
        ringlet_scenario::load_named(&self.schema, text, origin, overrides)
    }

    /// Reads, parses and validates a scenario file.
    pub fn load_file(&self, path: &std::path::Path, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
        ringlet_scenario::load_file(&self.schema, path, overrides)
    }

    /// Checks what only the model can check (for example that the bypass
    /// FIFO holds the longest packet of the chosen transaction), without running.
    pub fn check(&self, s: &Scenario) -> Result<(), ScenarioError> {
        (self.family(s).check)(s).map_err(ScenarioError::new)
    }

    /// Runs one validated scenario.
    pub fn run(&self, s: &Scenario) -> Result<RunResult, ScenarioError> {
        self.run_since(s, Instant::now())
    }

    /// Runs one validated scenario whose set-up began at `since` (before
    /// it was read): the result's wall and set-up times count from there.
    pub fn run_since(&self, s: &Scenario, since: Instant) -> Result<RunResult, ScenarioError> {
        self.run_in(s, Mode::Plain, since).map(|(r, _)| r)
    }

    fn run_in(&self, s: &Scenario, mode: Mode<'_>, since: Instant) -> Result<(RunResult, Outcome), ScenarioError> {
        let mut outcome = (self.family(s).run)(s, mode).map_err(ScenarioError::new)?;
        let report = std::mem::take(&mut outcome.report);
        // (`started` is after `since` unless a caller's instant lies; saturate rather than panic.)
        let setup_time_s = outcome.started.saturating_duration_since(since).as_secs_f64();
        let result = RunResult { report, provenance: crate::provenance(s), wall_time_s: since.elapsed().as_secs_f64(), setup_time_s };
        Ok((result, outcome))
    }

    /// Runs one validated scenario, calling `progress` about every `every`
    /// of wall time (and once at the end). Returns the result and whether
    /// the run finished: `false` when `progress` returned `false` to stop it
    /// early (the result then covers the part that ran).
    pub fn run_with_progress(
        &self,
        s: &Scenario,
        every: std::time::Duration,
        progress: &mut dyn FnMut(Progress) -> bool,
        since: Option<Instant>,
    ) -> Result<(RunResult, bool), ScenarioError> {
        let (result, outcome) = self.run_in(s, Mode::Observed { every, progress }, since.unwrap_or_else(Instant::now))?;
        Ok((result, !outcome.interrupted))
    }

    /// Runs a scenario traced (see [`Traced`]).
    pub fn trace(&self, s: &Scenario, opts: TraceOptions) -> Result<Traced, ScenarioError> {
        // NaN fails these checks too.
        if !opts.from_ns.is_finite() || opts.from_ns < 0.0 {
            return Err(ScenarioError::new(format!("--from: expected a finite time >= 0 ns, got {}", opts.from_ns)));
        }
        if let Some(to) = opts.to_ns {
            if !to.is_finite() || to <= opts.from_ns {
                return Err(ScenarioError::new(format!("--to: expected a time after --from ({} ns), got {to}", opts.from_ns)));
            }
        }
        if opts.max_records == 0 {
            return Err(ScenarioError::new("--max-events: expected an integer >= 1, got 0"));
        }
        let window = TraceWindow {
            from: ns_to_time(opts.from_ns),
            to: opts.to_ns.map_or(ringlet_engine::Time::MAX, ns_to_time),
            max_records: opts.max_records,
        };
        let (result, outcome) = self.run_in(s, Mode::Traced(window), Instant::now())?;
        let meta = serde_json::json!({
            "version": VERSION,
            "scenario_hash": result.provenance.scenario_hash,
            "seed": result.provenance.seed,
            "counters": result.report.counters,
            "sim_time_ns": result.report.sim_time_ns,
        });
        let (json, info) = outcome.trace.expect("traced mode gives a trace").to_chrome_json(meta);
        Ok(Traced { result, json, info })
    }

    /// Every family's benchmark workloads, family by family.
    pub fn workloads(&self) -> impl Iterator<Item = &'static Workload> {
        self.families.iter().flat_map(|f| f.workloads.iter())
    }
}
