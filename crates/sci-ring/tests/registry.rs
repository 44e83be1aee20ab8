//! The protocol registry: what the registered protocols give the scenario
//! contract, and that a protocol written outside the crate plugs in through
//! `Registration::of` alone (its name, section, checks and run).

use ringlet_engine::Time;
use ringlet_fabric::family::Mode;
use ringlet_fabric::packet::Packet;
use ringlet_fabric::params::Params;
use ringlet_fabric::protocol::{Admission, Effects, Permit, ProtoCounters, QueueView, RingProtocol, RingletView, Rules};
use ringlet_sci::keys::Settings;
use ringlet_sci::protocol::{Registered, Registration, REGISTRY};
use ringlet_scenario::schema::{Default, FamilySchema, Kind, Param, ProtocolSchema, Schema};
use ringlet_scenario::Scenario;

/// Every registered protocol is a value of `network.protocol`, each section
/// it declares is a section of the contract, and each runs.
#[test]
fn registered_protocols_make_the_contract_and_run() {
    let schema = ringlet_sci::schema();
    let family = schema.family("sci-ring").unwrap();
    let names: Vec<&str> = family.protocols.iter().map(|p| p.name).collect();
    assert_eq!(names, ["sci", "ppq", "train", "dfc"]);
    assert_eq!(schema.sections(family), ["network", "node", "traffic", "run", "ppq", "train", "dfc"]);
    for r in REGISTRY {
        let o = vec![
            ("network.protocol".to_string(), r.schema.name.to_string()),
            ("network.nodes".to_string(), "4".to_string()),
            ("run.measure_transactions".to_string(), "300".to_string()),
            ("run.warmup_ns".to_string(), "1000".to_string()),
        ];
        let s = ringlet_sci::load_str("", &o).unwrap();
        assert_eq!(s.section("network").str("protocol"), r.schema.name);
        ringlet_sci::check(&s).unwrap();
        let report = ringlet_sci::simulate(&s).unwrap();
        assert_eq!(report.stopped_by, "transactions", "{}", r.schema.name);
        assert!(report.transactions >= 300, "{}", r.schema.name);
    }
}

/// A protocol may pick a variant of itself from its settings
/// (`Registered::run`): `dfc.bandwidth_allocation = "ieee"` runs DFC with
/// base SCI's go bits and debts under it (they hold nodes and debts are
/// repaid); the seed's DFC has none.
#[test]
fn a_protocol_picks_its_variant_from_its_settings() {
    let run = |allocation: &str| {
        let o: Vec<(String, String)> = [
            ("network.protocol", "dfc"),
            ("dfc.bandwidth_allocation", allocation),
            ("traffic.load_mbps_per_node", "100"),
            ("run.measure_transactions", "3000"),
            ("run.warmup_ns", "1000"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let s = ringlet_sci::load_str("", &o).unwrap();
        (ringlet_sci::FAMILY.run)(&s, Mode::Plain).unwrap().report.counters
    };
    let with = run("ieee");
    assert!(with.debts_repaid > 0 && with.debt_holds + with.go_bit_holds > 0, "{with:?}");
    let without = run("none");
    assert_eq!((without.debts_repaid, without.debt_holds, without.go_bit_holds), (0, 0, 0));
}

/// A protocol's own checks run when any scenario is loaded, as key ranges do.
#[test]
fn protocol_checks_run_at_load_whatever_the_protocol() {
    let err = |sets: &[(&str, &str)]| {
        let o: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        ringlet_sci::load_str("", &o).unwrap_err().message
    };
    assert_eq!(err(&[("train.ticketmaster", "8")]), "train.ticketmaster: expected a node index in 0..7 (network.nodes = 8), got 8");
    let e = err(&[("network.protocol", "dfc"), ("train.immediate_below", "0.9")]);
    assert_eq!(e, "train.immediate_below: expected at most train.arbitrate_above (0.75), got 0.9");
    assert_eq!(err(&[("ppq.aging_ns", "0")]), "ppq.aging_ns: expected a number in 1..1000000000000, got 0");
    assert_eq!(err(&[("network.protocol", "token")]), "network.protocol: expected one of \"sci\", \"ppq\", \"train\", \"dfc\", got \"token\"");
}

/// A protocol that lets every node send whenever the register-insertion
/// rule allows and busies a packet that finds its input queue full: what
/// a user's fifth protocol would be, in a file of its own.
struct Greedy {
    /// From its own section: busy retries wait this long.
    holdoff: Time,
    counters: ProtoCounters,
}

const GREEDY_PARAMS: &[Param] = &[Param {
    section: "greedy",
    key: "holdoff_ns",
    kind: Kind::Float { min: 0.0, max: 1e6 },
    default: Default::Float(0.0),
    doc: "Wait before a busied packet is sent again, ns.",
}];

impl Registered for Greedy {
    const NAME: &'static str = "greedy";
    const DOC: &'static str = "No flow control beyond the register-insertion rule.";
    const PARAMS: &'static [Param] = GREEDY_PARAMS;

    fn validate(s: &Scenario) -> Result<(), String> {
        let h = s.section("greedy").float("holdoff_ns");
        if h > 0.0 && h < 1.0 {
            return Err(format!("greedy.holdoff_ns: expected 0 or at least 1, got {h}"));
        }
        Ok(())
    }

    fn build(_view: &RingletView, _p: &Params, s: &Scenario) -> Result<Self, String> {
        let holdoff = ringlet_engine::time::ns_to_time(s.section("greedy").float("holdoff_ns"));
        Ok(Greedy { holdoff, counters: ProtoCounters::default() })
    }
}

impl RingProtocol for Greedy {
    const RULES: Rules = Rules::IEEE;

    fn may_send(&mut self, _node: usize, _now: Time, _id: u32, _pk: &Packet, _fx: &mut Effects) -> Permit {
        Permit::Go
    }

    fn on_sent(&mut self, _node: usize, _now: Time, _id: u32, _pk: &Packet, _next: Option<u16>, _fx: &mut Effects) {}

    fn on_blocked(&mut self, _node: usize, _now: Time, _waiting: u16, _fx: &mut Effects) -> bool {
        false
    }

    fn admit(&mut self, _node: usize, _now: Time, _side: usize, _id: u32, _pk: &Packet, q: QueueView) -> Admission {
        Admission::if_room(q.free())
    }

    fn retry_holdoff(&self) -> Time {
        self.holdoff
    }

    fn counters(&self) -> ProtoCounters {
        self.counters
    }
}

/// The registration alone makes `greedy` a protocol the contract accepts,
/// with its section, its check, its reference entry, and a run.
#[test]
fn a_protocol_plugs_in_by_its_registration_alone() {
    let regs = [Registration::of::<ringlet_sci::protocol::sci::BaseSci>(), Registration::of::<Greedy>()];
    const PROTOCOLS: &[ProtocolSchema] = &[Registration::of::<ringlet_sci::protocol::sci::BaseSci>().schema, Registration::of::<Greedy>().schema];
    let schema = Schema::new(&[FamilySchema { protocols: PROTOCOLS, ..ringlet_sci::FAMILY.schema }]);
    let text = "[network]\nnodes = 4\nprotocol = \"greedy\"\n[node]\niqst_ns = 1000\n[greedy]\nholdoff_ns = 50\n\
                [traffic]\nload_mbps_per_node = 150\n[run]\nmeasure_transactions = 500\nwarmup_ns = 1000\n";
    let s = ringlet_scenario::load_str(&schema, text, &[]).unwrap();
    assert_eq!(s.section("greedy").float("holdoff_ns"), 50.0);
    assert!(s.to_toml().contains("[greedy]\nholdoff_ns = 50.0"), "{}", s.to_toml());
    let bad = ringlet_scenario::load_str(&schema, "[greedy]\nholdoff_ns = 0.5", &[]).unwrap_err().message;
    assert_eq!(bad, "greedy.holdoff_ns: expected 0 or at least 1, got 0.5");
    let unknown = ringlet_scenario::load_str(&schema, "[greedy]\nholdof_ns = 5", &[]).unwrap_err().message;
    assert_eq!(unknown, "greedy.holdof_ns: unknown key");
    let doc = schema.markdown();
    assert!(doc.contains("| `greedy` | No flow control beyond the register-insertion rule. | [greedy] |"), "{doc}");
    assert!(doc.contains("| `holdoff_ns` | number 0..1000000 | 0 | Wait before a busied packet is sent again, ns. |"), "{doc}");

    let greedy = &regs[1];
    let k = Settings::of(&s);
    let p = ringlet_sci::params::params(&k).unwrap();
    let t = ringlet_sci::ring::topology(&s, &k);
    (greedy.check)(&t, &p, &s).unwrap();
    let outcome = (greedy.run)(&s, t, p, Mode::Plain).unwrap();
    let r = outcome.report;
    assert_eq!(r.stopped_by, "transactions");
    // IQST 1 us at 150 MB/s fills the input queues: the greedy protocol busies.
    assert!(r.counters.busy_echoes > 0 && r.retries > 0, "{:?}", r.counters);
    assert_eq!(r.counters.go_bit_holds, 0);
}

#[test]
#[should_panic(expected = "outside its section")]
fn a_key_outside_the_protocols_section_is_a_registration_error() {
    const STRAY: &[Param] = &[Param { section: "node", key: "x", kind: Kind::Bool, default: Default::Bool(false), doc: "x" }];
    const STRAYS: &[ProtocolSchema] = &[ProtocolSchema { name: "stray", doc: "x", params: STRAY, validate: |_| Ok(()) }];
    Schema::new(&[FamilySchema { protocols: STRAYS, ..ringlet_sci::FAMILY.schema }]);
}

#[test]
#[should_panic(expected = "no protocol registered as \"sci\", network.protocol's default")]
fn a_schema_without_the_default_protocol_is_a_registration_error() {
    const GREEDY: &[ProtocolSchema] = &[Registration::of::<Greedy>().schema];
    Schema::new(&[FamilySchema { protocols: GREEDY, ..ringlet_sci::FAMILY.schema }]);
}
