//! The checks across keys a GigaRing scenario gets when it is loaded: each
//! at its boundary, the value just inside accepted and the one just outside
//! refused with a message that names the key.

fn load(extra: &[&str]) -> Result<(), String> {
    let text = "[network]\nkind = \"gigaring\"\nnodes = 4\n";
    let overrides: Vec<_> = extra.iter().map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE")).collect();
    ringlet_gigaring::load_str(text, &overrides).map(|_| ()).map_err(|e| e.message)
}

/// `ok` loads; `bad` is refused naming `key`.
fn boundary(ok: &[&str], bad: &[&str], key: &str) {
    assert_eq!(load(ok), Ok(()), "{ok:?}");
    let e = load(bad).expect_err(&format!("{bad:?} should be refused"));
    assert!(e.starts_with(key), "{bad:?}: {e}");
}

#[test]
fn each_check_at_its_boundary() {
    let message = "traffic.transaction=\"message\"";
    boundary(&[message, "traffic.block_words=32"], &[message, "traffic.block_words=33"], "traffic.block_words");
    boundary(&["traffic.masters=3"], &["traffic.masters=4"], "traffic.masters");
    // With masters the hot spot is one of the slaves, numbered among them: 4 nodes, 1 master, slaves 0..2.
    let hot = ["traffic.masters=1", "traffic.destinations=\"hotspot\""];
    boundary(&[&hot[..], &["traffic.hotspot_node=2"]].concat(), &[&hot[..], &["traffic.hotspot_node=3"]].concat(), "traffic.hotspot_node");
    assert_eq!(load(&["traffic.masters=0", "traffic.destinations=\"hotspot\"", "traffic.hotspot_node=3"]), Ok(()), "every node receives");
    boundary(&["gigaring.window_min=16", "gigaring.window_max=16"], &["gigaring.window_min=17", "gigaring.window_max=16"], "gigaring.window_min");
    boundary(&["faults.fail_node=3"], &["faults.fail_node=4"], "faults.fail_node");
    boundary(&["faults.fail_link=3"], &["faults.fail_link=4"], "faults.fail_link");
    boundary(&["faults.fail_link=1", "gigaring.rings=2"], &["faults.fail_link=1", "gigaring.rings=1"], "faults.fail_link");
    boundary(&["faults.fail_node=1", "network.nodes=3"], &["faults.fail_node=1", "network.nodes=2"], "faults.fail_node");
    boundary(&["faults.fail_link=1", "network.nodes=2"], &["faults.fail_node=1", "network.nodes=2"], "faults.fail_node");
    // Any send buffer, with a fault or without (the sequence numbers' floor keeps what a target must know).
    assert_eq!(load(&["faults.fail_node=1", "gigaring.send_buffer_packets=1000"]), Ok(()));
    boundary(&["traffic.masters=1", "faults.fail_node=1"], &["traffic.masters=1", "faults.fail_node=0"], "faults.fail_node");
    assert_eq!(load(&["traffic.masters=2", "faults.fail_node=0"]), Ok(()));
}

fn settings(extra: &[&str]) -> ringlet_gigaring::keys::Settings {
    let text = "[network]\nkind = \"gigaring\"\nnodes = 8\n";
    let overrides: Vec<_> = extra.iter().map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE")).collect();
    ringlet_gigaring::keys::Settings::of(&ringlet_gigaring::load_str(text, &overrides).unwrap())
}

/// The per-request law's idles per request: by default the longest packet
/// (a full data packet, 81 symbols) and its idle; or the key's count.
#[test]
fn idles_per_request_default_to_a_full_packet_slot() {
    use ringlet_gigaring::params::{params, sharing_idles};
    let k = settings(&[]);
    assert_eq!(sharing_idles(&k, &params(&k)), 82 * 20_000);
    let k = settings(&["gigaring.sharing_idle_symbols=5"]);
    assert_eq!(sharing_idles(&k, &params(&k)), 5 * 20_000);
}

/// A fold's times: the failure at `at_ns`, the fold `detection_ns` later,
/// the folded ring live after `reinit_circulations` circulations of it,
/// each interface a hop of 224 ns and 5 ns per metre of wire: around the
/// failed link between nodes 3 and 4 of 8 the folded ring has 14
/// interfaces, so at 10 m 4 x 14 x 274 ns.
#[test]
fn a_fold_is_live_after_its_detection_and_reinitialisation() {
    use ringlet_engine::time::ns_to_time;
    let k = settings(&["faults.fail_link=3", "faults.at_ns=5000", "faults.detection_ns=1000", "gigaring.wire_m=10"]);
    let t = ringlet_gigaring::network::topology(&k).unwrap();
    let r = ringlet_gigaring::network::fold(&k, &t).expect("a fault");
    assert_eq!((r.failed_at, r.at), (ns_to_time(5000.0), ns_to_time(6000.0)));
    assert_eq!(r.live_at, ns_to_time(6000.0) + 4 * 14 * ns_to_time(274.0));
}
