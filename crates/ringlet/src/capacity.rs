//! What a scenario's network can carry per sending node, for the
//! pre-flight warning that a run's offered load is far above it
//! (`ringlet.api.preflight`): the analytic model's saturation load
//! (docs/analytic.md), from the fabric built and not run.

use ringlet_fabric::analytic::Plan;
use ringlet_fabric::family::Mode;
use ringlet_scenario::Scenario;

/// The load one sending node can have carried, in the unit of
/// `traffic.load_mbps_per_node` over all its priorities, MB/s: the analytic
/// model's saturation load (where its busiest resource is always busy)
/// times the priorities. `None` where the model has none (a trace-driven
/// run, no load) or the network cannot be built.
pub fn capacity_mbps_per_node(s: &Scenario) -> Option<f64> {
    let family = crate::registry().families().iter().find(|f| f.schema.kind == s.network.kind)?;
    // The saturation load is the load's scale over the busiest resource's
    // use, whatever the load: taken at a nominal one, so that the load the
    // pre-flight is to judge (1e308 MB/s) does not overflow the model.
    let mut nominal = s.clone();
    if nominal.traffic.load_mbps_per_node > 0.0 {
        nominal.traffic.load_mbps_per_node = 1.0;
    }
    let outcome = (family.run)(&nominal, Mode::Model(Plan::default())).ok()?;
    let per_priority = outcome.report.summary.model_saturation_load_mbps_per_node;
    (per_priority.is_finite() && per_priority > 0.0).then_some(per_priority * s.traffic.priorities as f64)
}

#[cfg(test)]
mod tests {
    use super::capacity_mbps_per_node;

    fn scenario(text: &str) -> ringlet_scenario::Scenario {
        crate::load_str(text, &[]).expect("a valid scenario")
    }

    /// The ring's is the seed's uniform bound (1,066.7 MB/s with one idle)
    /// over its nodes, whatever the priorities share it; with `local`
    /// traffic a read's response goes round the rest of the ring, so less;
    /// every family has one: the model's saturation of the same scenario
    /// run; and a load that would overflow the model (1e305 MB/s) has it too.
    #[test]
    fn the_capacity_is_the_models_saturation() {
        let ring = capacity_mbps_per_node(&scenario("[network]\nnodes = 8\n")).unwrap();
        assert!((ring - 64.0 / (30.0 * 2e-9) / 1e6 / 8.0).abs() < 1e-9, "{ring}");
        let two = capacity_mbps_per_node(&scenario("[network]\nnodes = 8\n[traffic]\npriorities = 2\n")).unwrap();
        assert!((two - ring).abs() < 1e-9, "{two}");
        let local = capacity_mbps_per_node(&scenario("[network]\nnodes = 8\n[traffic]\ndestinations = \"local\"\n")).unwrap();
        assert!(local < ring, "{local}");
        for text in ["[network]\nkind = \"banyan\"\nnodes = 16\n", "[network]\nkind = \"sci-switch\"\nnodes = 2\n", "[network]\nkind = \"gigaring\"\nnodes = 2\n"] {
            let s = scenario(&format!("{text}[run]\nmeasure_transactions = 100\n"));
            let c = capacity_mbps_per_node(&s).unwrap();
            let run = crate::run(&s).unwrap().report;
            // (Taken at a nominal load: the same as the run's within rounding.)
            assert!((c / run.model_saturation_load_mbps_per_node - 1.0).abs() < 1e-12, "{text}: {c} against {}", run.model_saturation_load_mbps_per_node);
        }
        let absurd = capacity_mbps_per_node(&scenario("[network]\nnodes = 8\n[traffic]\nload_mbps_per_node = 1e305\n"));
        assert!(absurd.is_some_and(|c| (c - ring).abs() < 1e-9), "{absurd:?}");
    }
}
