//! Sets of a ringlet's nodes as bits: visited in node order, with lazy
//! removal, and one set per node.

/// What a visit to one node of a [`NodeSet`] says.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Visit {
    /// Go on to the next node.
    Keep,
    /// The node no longer belongs to the set: drop it and go on.
    Drop,
    /// This is the node looked for.
    Stop,
}

/// A set of nodes as bits, visited in node order.
#[derive(Clone, Debug, Default)]
pub(super) struct NodeSet {
    words: Vec<u64>,
}

impl NodeSet {
    pub(super) fn new(n: usize) -> Self {
        NodeSet { words: vec![0; n.div_ceil(64)] }
    }

    #[inline]
    pub(super) fn insert(&mut self, i: usize) {
        self.words[i / 64] |= 1u64 << (i % 64);
    }

    /// Visits the nodes in node order until `f` says `Stop` (returns that
    /// node), dropping those it says to.
    #[inline]
    pub(super) fn find(&mut self, mut f: impl FnMut(usize) -> Visit) -> Option<usize> {
        for w in 0..self.words.len() {
            let mut word = self.words[w];
            while word != 0 {
                let bit = word.trailing_zeros() as usize;
                word &= word - 1;
                match f(w * 64 + bit) {
                    Visit::Keep => {}
                    Visit::Drop => self.words[w] &= !(1u64 << bit),
                    Visit::Stop => return Some(w * 64 + bit),
                }
            }
        }
        None
    }
}

/// One set of nodes per node, as rows of bits.
#[derive(Clone, Debug)]
pub(super) struct NodeSets {
    words: usize,
    bits: Vec<u64>,
}

impl NodeSets {
    /// `rows` sets of nodes `0..n`.
    pub(super) fn new(rows: usize, n: usize) -> Self {
        let words = n.div_ceil(64);
        NodeSets { words, bits: vec![0; rows * words] }
    }

    /// Adds `j` to row `i`; whether it was new.
    #[inline]
    pub(super) fn insert(&mut self, i: usize, j: usize) -> bool {
        let (w, bit) = (&mut self.bits[i * self.words + j / 64], 1u64 << (j % 64));
        let new = *w & bit == 0;
        *w |= bit;
        new
    }

    #[inline]
    pub(super) fn remove(&mut self, i: usize, j: usize) {
        self.bits[i * self.words + j / 64] &= !(1u64 << (j % 64));
    }
}


#[cfg(test)]
mod tests {
    use super::*;

    /// A node set visits its members in node order (across words), drops
    /// those it is told to, and stops where it is told to.
    #[test]
    fn a_node_set_visits_in_order_drops_and_stops() {
        let mut set = NodeSet::new(130);
        for i in [129, 3, 64, 70, 0] {
            set.insert(i);
        }
        let mut seen = Vec::new();
        let found = set.find(|i| {
            seen.push(i);
            if i == 3 { Visit::Drop } else { Visit::Keep }
        });
        assert_eq!((found, seen), (None, vec![0, 3, 64, 70, 129]));
        let mut seen = Vec::new();
        let found = set.find(|i| {
            seen.push(i);
            if i == 70 { Visit::Stop } else { Visit::Keep }
        });
        assert_eq!((found, seen), (Some(70), vec![0, 64, 70]));
        let mut rows = NodeSets::new(2, 130);
        assert!(rows.insert(1, 129) && !rows.insert(1, 129) && rows.insert(0, 129));
        rows.remove(1, 129);
        assert!(rows.insert(1, 129));
    }
}
