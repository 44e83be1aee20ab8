//! The run's fairness over the nodes that offer load: Jain's index of
//! their carried shares, the least served node, and starved nodes.

use crate::report::{NodeReport, Report};

/// The run's fairness over its sending nodes' carried shares (throughput / offered).
pub(super) struct Fairness {
    /// Jain's index: (sum x)^2 / (n sum x^2).
    pub index: f64,
    pub min_share: f64,
    /// -1 when no node offers load.
    pub min_node: i64,
    /// Nodes that carried less than `STARVED_BELOW` of their load while another carried more than `SERVED_ABOVE`.
    pub starved: Vec<u32>,
}

/// A node carrying less than this share of its offered load is starved ...
pub const STARVED_BELOW: f64 = 0.1;
/// ... when another carries more than this share of its own.
pub const SERVED_ABOVE: f64 = 0.5;

/// Recomputes the run's fairness figures from its `per_node` table (after
/// the fabric has changed a node's share: a failed node's).
pub(crate) fn refresh_fairness(r: &mut Report) {
    let f = Fairness::of(&r.per_node);
    r.summary.fairness_index = f.index;
    r.summary.min_carried_share = f.min_share;
    r.summary.min_carried_share_node = f.min_node;
    r.starved_nodes = f.starved;
}

impl Fairness {
    pub(super) fn of(nodes: &[NodeReport]) -> Fairness {
        let shares: Vec<(u32, f64)> = nodes.iter().filter(|n| n.offered_mbps > 0.0 && n.carried_share.is_finite()).map(|n| (n.node, n.carried_share)).collect();
        if shares.is_empty() {
            return Fairness { index: f64::NAN, min_share: f64::NAN, min_node: -1, starved: Vec::new() };
        }
        let sum: f64 = shares.iter().map(|s| s.1).sum();
        let squares: f64 = shares.iter().map(|s| s.1 * s.1).sum();
        let index = if squares > 0.0 { sum * sum / (shares.len() as f64 * squares) } else { f64::NAN };
        let &(min_node, min_share) = shares.iter().min_by(|a, b| a.1.total_cmp(&b.1)).expect("not empty");
        let served = shares.iter().any(|s| s.1 > SERVED_ABOVE);
        let starved = if served { shares.iter().filter(|s| s.1 < STARVED_BELOW).map(|s| s.0).collect() } else { Vec::new() };
        Fairness { index, min_share, min_node: min_node as i64, starved }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(node: u32, offered: f64, share: f64) -> NodeReport {
        NodeReport { node, offered_mbps: offered, throughput_mbps: offered * share, carried_share: if offered > 0.0 { share } else { f64::NAN }, ..NodeReport::default() }
    }

    /// Jain's index: 1 for equal shares, 1/n when one of n carries all;
    /// agents that offer nothing do not count; starved only beside a served node.
    #[test]
    fn fairness_over_the_senders() {
        let equal: Vec<_> = (0..4).map(|k| node(k, 100.0, 0.7)).collect();
        let f = Fairness::of(&equal);
        assert!((f.index - 1.0).abs() < 1e-12 && f.starved.is_empty());
        let one = vec![node(0, 100.0, 1.0), node(1, 100.0, 0.0), node(2, 100.0, 0.0), node(3, 0.0, 0.0)];
        let f = Fairness::of(&one);
        assert!((f.index - 1.0 / 3.0).abs() < 1e-12, "{}", f.index);
        assert_eq!((f.min_node, f.starved.clone()), (1, vec![1, 2]));
        // Everyone short of half: nobody is flagged, however small.
        let f = Fairness::of(&[node(0, 100.0, 0.4), node(1, 100.0, 0.05)]);
        assert!(f.starved.is_empty() && f.min_node == 1);
        let f = Fairness::of(&[node(0, 0.0, 0.0)]);
        assert!(f.index.is_nan() && f.min_node == -1);
    }
}
