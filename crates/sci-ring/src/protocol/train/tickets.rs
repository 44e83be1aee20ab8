//! Tickets, and a ticket put on the request train (the seed's Figure 3).

use ringlet_engine::Time;

/// One ticket: a request to send one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket {
    pub priority: u16,
    pub size: u32,
    pub src: u16,
    pub dst: u16,
    /// The packet's traffic class: its input queue at the destination.
    pub side: u8,
    /// The packet the ticket is for.
    pub pkt: u32,
    /// When the packet entered its output queue: older tickets go first
    /// within a priority. (Not the transaction's birth: under overload a
    /// request waits long in the application queue, and by birth every
    /// request ticket would outrank every response ticket.)
    pub queued_at: Time,
    /// The destination has reserved a slot for it.
    pub approved: bool,
}

/// Inserts `t` into `tickets` by priority, oldest first within a priority
/// (the order of the seed's priority queues), and truncates the train where the running size exceeds
/// `budget`. The tickets removed (the new one among them if it did not
/// fit) are appended to `dropped`, in train order. This is Figure 3 of the seed.
pub fn insert_ticket(tickets: &mut Vec<Ticket>, t: Ticket, budget: u32, dropped: &mut Vec<Ticket>) {
    let at = tickets.iter().position(|x| x.priority < t.priority || (x.priority == t.priority && x.queued_at > t.queued_at)).unwrap_or(tickets.len());
    tickets.insert(at, t);
    let mut sum = 0;
    let keep = tickets.iter().position(|x| {
        sum += x.size;
        sum > budget
    });
    if let Some(k) = keep {
        dropped.extend(tickets.drain(k..));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(priority: u16, size: u32) -> Ticket {
        Ticket { priority, size, src: 0, dst: 1, side: 0, pkt: priority as u32, queued_at: 0, approved: false }
    }

    /// Seed Figure 3: budget 40, tickets (255, 20) (200, 10) (100, 5) (10, 5);
    /// a node inserts (201, 20): the train becomes (255, 20) (201, 20) and
    /// the rest is stripped.
    #[test]
    fn figure_3_ticket_insertion_truncates_the_train() {
        let mut train = vec![t(255, 20), t(200, 10), t(100, 5), t(10, 5)];
        let mut dropped = vec![t(1, 1)];
        insert_ticket(&mut train, t(201, 20), 40, &mut dropped);
        assert_eq!(train, vec![t(255, 20), t(201, 20)]);
        assert_eq!(dropped, vec![t(1, 1), t(200, 10), t(100, 5), t(10, 5)], "appended to what was there");
    }

    #[test]
    fn a_ticket_that_does_not_fit_is_dropped_itself() {
        let mut train = vec![t(255, 30)];
        let mut dropped = Vec::new();
        insert_ticket(&mut train, t(100, 20), 40, &mut dropped);
        assert_eq!(train, vec![t(255, 30)]);
        assert_eq!(dropped, vec![t(100, 20)]);
        // Equal priority: the older ticket goes ahead, whoever inserts it.
        let mut train = vec![t(7, 10)];
        train[0].queued_at = 5;
        let mut newer = t(7, 10);
        newer.pkt = 99;
        newer.queued_at = 9;
        insert_ticket(&mut train, newer, 40, &mut dropped);
        assert_eq!(train[1].pkt, 99);
        let mut older = t(7, 10);
        older.pkt = 42;
        older.queued_at = 1;
        insert_ticket(&mut train, older, 40, &mut dropped);
        assert_eq!(train.iter().map(|x| x.pkt).collect::<Vec<_>>(), vec![42, 7, 99]);
        assert_eq!(dropped, vec![t(100, 20)], "nothing more dropped");
    }
}
