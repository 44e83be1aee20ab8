//! Fetching ahead what events will read (`Fabric::fetch_ahead`, on by
//! default in networks of a thousand interfaces or more) is only a hint to
//! the processor: a network gives the same report with it as without it,
//! figure for figure. Small networks, so that the test is quick and the
//! debug build checks every id the hints compute; both ringlet kinds, so
//! that every hint is given (arrivals, echoes, bus requests, transfers).

fn report(text: &str, on: bool) -> String {
    let s = ringlet_switch::load_str(text, &[]).expect("a valid scenario");
    let r = ringlet_switch::built(&s).expect("a valid network").fetch_ahead(on).run();
    serde_json::to_string(&r).expect("a report serializes")
}

#[test]
fn fetching_ahead_changes_no_figure() {
    for ringlets in ["bidirectional", "unidirectional"] {
        let text = format!(
            "[network]\nkind = \"banyan\"\nnodes = 16\nswitch_ports = 2\nringlets = \"{ringlets}\"\n\
             [traffic]\ntransaction = \"dmove64\"\ndestinations = \"uniform\"\nload_mbps_per_node = 150.0\n\
             [run]\nmeasure_transactions = 3000\n"
        );
        let (with, without) = (report(&text, true), report(&text, false));
        assert!(with.contains("\"transactions\":3000"), "{ringlets}: the run completed its transactions");
        assert_eq!(with, without, "{ringlets}: the hints changed the report");
    }
}
