//! The report's counters as the fabric gathers them from the protocols.

mod common;
use common::*;
use ringlet_sci::protocol::train::Train;

/// TRAIN's input-queue slot reservations: of four requests on an
/// arbitrating TRAIN ring, two go with a reserved slot, released when they
/// arrive, held 112 and 114 ns. The report gives the mean of the holding
/// times and the longest.
#[test]
fn train_slot_reservations_report_their_mean_and_longest_hold() {
    let mut r = ring_with::<Train>(4, &["network.protocol=train", "train.arbitrate_above=0.0", "train.immediate_below=0.0", "node.iqst_ns=10000.0"]);
    r.inject(1, 2, 0, 0);
    r.inject(2, 3, 0, 30 * NS);
    r.inject(3, 1, 0, 30 * NS);
    r.inject(0, 1, 0, 30 * NS);
    r.run_until(600 * NS);
    let c = r.report().counters;
    assert_eq!((c.slots_reserved, c.slots_released), (2, 2));
    assert_eq!((c.slot_held_ns_mean, c.slot_held_ns_max), (113.0, 114.0));
}
