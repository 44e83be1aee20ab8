//! TRAIN's keys (`[train]`) and the settings read from them.

use super::Train;
use crate::protocol::Registered;
use ringlet_scenario::schema::{Default, Kind, Param};
use ringlet_scenario::Scenario;

/// The keys of `[train]`.
pub(super) const PARAMS: &[Param] = &[
    Param { section: "train", key: "ticketmaster", kind: Kind::Int { min: 0, max: 4095 }, default: Default::Int(0),
        doc: "The TicketMaster node, which creates the LocalMotive and switches modes." },
    Param { section: "train", key: "locomotive_symbols", kind: Kind::Int { min: 1, max: 1024 }, default: Default::Int(8),
        doc: "Length of the LocalMotive, symbols (a 16-byte header, like a request)." },
    Param { section: "train", key: "ticket_symbols", kind: Kind::Int { min: 1, max: 1024 }, default: Default::Int(4),
        doc: "Length of one ticket, symbols (priority, size, target, source: 8 bytes)." },
    Param { section: "train", key: "budget_symbols", kind: Kind::Int { min: 0, max: 1_000_000 }, default: Default::Derived("4 x the symbols one link carries while the LocalMotive circles an idle ring: what the ring carries (twice a link's worth with uniform traffic) over the two revolutions from one grant train to the next"),
        doc: "Bandwidth the TicketMaster offers per request train (the size limit of its tickets, for the request and the grant revolution), in send-packet symbols; an immediate-mode revolution's tally is half of it. 0 = derived." },
    Param { section: "train", key: "handling_cycles", kind: Kind::Int { min: 0, max: 1_000_000 }, default: Default::Derived("the LocalMotive's length: a node reads the LocalMotive whole before it passes the train on"),
        doc: "Cycles a node holds the train, from the arrival of its head, before passing it on (it reads the LocalMotive, then claims, tickets or takes its grants); the TicketMaster too, as it sets the next revolution's mode. 0 = derived." },
    Param { section: "train", key: "send_mode", kind: Kind::Choice(&["switching", "arbitrated"]), default: Default::Str("switching"),
        doc: "switching: immediate send mode at low load and arbitrated send mode near capacity, the TicketMaster switching between them on `arbitrate_above` and `immediate_below` (the seed's two basic modes; 'a system can switch from arbitration mode back into immediate send mode'). arbitrated: every revolution arbitrated, a request train then a grant train, whatever the load (the seed's 'because of the arbitrated nature of the TRAIN protocol, the latency of every transaction is increased'). Not with `gearshift`." },
    Param { section: "train", key: "arbitrate_above", kind: Kind::Float { min: 0.0, max: 1.0 }, default: Default::Float(0.75),
        doc: "Mode switch: when nodes claim, or wish to send but find no room for, more than this fraction of the budget in one immediate-mode revolution, the TicketMaster switches to arbitrated send mode." },
    Param { section: "train", key: "immediate_below", kind: Kind::Float { min: 0.0, max: 1.0 }, default: Default::Float(0.25),
        doc: "Mode switch: when nodes put tickets for less than this fraction of the budget on a request train (tickets a full destination deleted, or truncated, count: they are demand), the TicketMaster switches back to immediate send mode after its grant train." },
    Param { section: "train", key: "max_tickets_per_node", kind: Kind::Int { min: 1, max: 256 }, default: Default::Int(2),
        doc: "Tickets one node may put on one request train (its highest-priority waiting packets)." },
    Param { section: "train", key: "gearshift", kind: Kind::Bool, default: Default::Bool(false),
        doc: "Gearshift (beyond the seed): below the arbitration threshold nodes send as in base SCI, without waiting for the LocalMotive, and only report what they sent on it." },
];

/// TRAIN's settings, read from `[train]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub ticketmaster: u32,
    pub locomotive_symbols: u32,
    pub ticket_symbols: u32,
    /// 0 = derived.
    pub budget_symbols: u32,
    /// 0 = derived.
    pub handling_cycles: u32,
    pub arbitrate_above: f64,
    pub immediate_below: f64,
    pub max_tickets_per_node: u32,
    pub gearshift: bool,
    /// `send_mode = "arbitrated"`: no immediate send mode.
    pub always_arbitrated: bool,
}

impl Settings {
    pub fn of(s: &Scenario) -> Settings {
        let k = s.section(Train::NAME);
        Settings {
            ticketmaster: k.int("ticketmaster") as u32,
            locomotive_symbols: k.int("locomotive_symbols") as u32,
            ticket_symbols: k.int("ticket_symbols") as u32,
            budget_symbols: k.int("budget_symbols") as u32,
            handling_cycles: k.int("handling_cycles") as u32,
            arbitrate_above: k.float("arbitrate_above"),
            immediate_below: k.float("immediate_below"),
            max_tickets_per_node: k.int("max_tickets_per_node") as u32,
            gearshift: k.bool("gearshift"),
            always_arbitrated: k.str("send_mode") == "arbitrated",
        }
    }
}
