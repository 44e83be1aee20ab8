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
    // More masters than nodes with a hot spot: refused naming the masters (it panicked counting the slaves).
    boundary(&["traffic.masters=3", "traffic.destinations=\"hotspot\""], &["traffic.masters=5", "traffic.destinations=\"hotspot\""], "traffic.masters");
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

/// Send buffers and windows sized to the channel (0, the defaults): a
/// lone node keeps its ring busy if its send buffer holds what it sends
/// while a packet goes round the ring to its echo, plus the one waiting
/// to go: ceil((nodes x (224 ns + 5 ns/m) + 2-symbol echo) / 82-symbol
/// slot) + 1, at least 8; a stream's window what its node's send buffers
/// hold on both rings, at least 16. With a fault, the folded ring's round
/// trip (14 interfaces around a failed link of 8 nodes).
#[test]
fn send_buffers_and_windows_cover_the_round_trip() {
    let symbol = 1e3 / 150.0;
    let little = |ring: f64, wire: f64| (((ring * (224.0 + 5.0 * wire) + 2.0 * symbol) / (82.0 * symbol)).ceil() as u32 + 1).max(8);
    for (nodes, wire) in [(2, 0.0), (8, 0.0), (20, 0.0), (24, 0.0), (64, 0.0), (300, 0.0), (8, 100.0)] {
        let k = settings(&[&format!("network.nodes={nodes}"), &format!("gigaring.wire_m={wire}")]);
        assert_eq!(k.send_buffer_packets(), little(nodes as f64, wire), "{nodes} nodes, {wire} m");
        assert_eq!(k.window_max() as u32, (2 * k.send_buffer_packets()).max(16), "{nodes} nodes, {wire} m");
    }
    assert_eq!(settings(&["network.nodes=64"]).send_buffer_packets(), 28);
    assert_eq!(settings(&["network.nodes=24", "gigaring.rings=1"]).window_max(), 16);
    assert_eq!(settings(&["network.nodes=64", "gigaring.rings=1"]).window_max(), 28);
    assert_eq!(settings(&["faults.fail_link=3", "network.nodes=30"]).send_buffer_packets(), little(58.0, 0.0));
    let set = settings(&["gigaring.send_buffer_packets=3", "gigaring.window_max=5"]);
    assert_eq!((set.send_buffer_packets(), set.window_max()), (3, 5));
    // With a fault too, whatever the folded ring's round trip asks (the sequence numbers' floor bounds nothing).
    assert_eq!(load(&["network.nodes=78", "faults.fail_link=1"]), Ok(()));
    assert!(settings(&["network.nodes=78", "faults.fail_link=1"]).send_buffer_packets() > 64);
}
