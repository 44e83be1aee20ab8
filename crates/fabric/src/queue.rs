//! The prioritized FIFO queue of seed 003 section 2.1: highest priority
//! first, oldest first within a priority. With a single level it is a plain
//! FIFO, which is what base SCI uses.
//!
//! One `VecDeque` per level and a bitmap of non-empty levels: push and pop
//! are O(1) plus a leading-zeros count, whatever the number of levels (up to
//! 256), so a 128-priority study costs no more per packet than one priority.
//! Level 0, a FIFO's only one, is kept inline and the other levels behind
//! one pointer: a FIFO is small, and each of its operations is one test and
//! its `VecDeque`'s own, following one pointer, to its items, where a list
//! of levels made it two (each a cache miss in a network of thousands of
//! queues).

use std::collections::VecDeque;

/// Most levels a queue can have (the scenario's `traffic.priorities` limit).
pub const MAX_LEVELS: usize = 256;

#[derive(Debug)]
pub struct PriorityFifo<T> {
    /// A FIFO's items, oldest first, or a prioritized queue's level 0.
    low: VecDeque<T>,
    /// With several levels: the levels above 0, and the queue's bookkeeping
    /// (`None` for a FIFO, whose every operation is then `low`'s own).
    high: Option<Box<Levels<T>>>,
}

/// A prioritized queue's levels above 0, and which of all its levels hold
/// items. Its methods get level 0 from their caller; those that change the
/// queue are not inlined, so that a FIFO's operations, inlined where the
/// fabric uses them, stay small.
#[derive(Debug)]
struct Levels<T> {
    /// Level `l` at index `l - 1`.
    above: Vec<VecDeque<T>>,
    /// Bit `l % 64` of word `l / 64` is set when level `l` is non-empty.
    nonempty: [u64; MAX_LEVELS / 64],
    /// Words of `nonempty` in use (1 for up to 64 levels).
    words: usize,
    /// Items on every level.
    len: usize,
}

impl<T: Copy> Levels<T> {
    fn new(levels: usize) -> Self {
        Levels { above: (1..levels).map(|_| VecDeque::new()).collect(), nonempty: [0; MAX_LEVELS / 64], words: levels.div_ceil(64), len: 0 }
    }

    #[inline]
    fn level(&self, priority: u16) -> usize {
        (priority as usize).min(self.above.len())
    }

    /// Level `l`'s items (level 0 being `low`).
    #[inline]
    fn at<'a>(&'a self, low: &'a VecDeque<T>, l: usize) -> &'a VecDeque<T> {
        if l == 0 {
            low
        } else {
            &self.above[l - 1]
        }
    }

    #[inline]
    fn at_mut<'a>(&'a mut self, low: &'a mut VecDeque<T>, l: usize) -> &'a mut VecDeque<T> {
        if l == 0 {
            low
        } else {
            &mut self.above[l - 1]
        }
    }

    /// Level `l` gained an item.
    #[inline]
    fn added(&mut self, l: usize) {
        self.nonempty[l / 64] |= 1u64 << (l % 64);
        self.len += 1;
    }

    /// An item was taken from level `l`: its bit is cleared if it is now empty.
    #[inline]
    fn taken(&mut self, low: &VecDeque<T>, l: usize) {
        let emptied = self.at(low, l).is_empty() as u64;
        self.nonempty[l / 64] &= !(emptied << (l % 64));
        self.len -= 1;
    }

    /// Highest non-empty level.
    #[inline]
    fn top(&self) -> Option<usize> {
        if self.words == 1 {
            // Up to 64 levels (every case but 128+ priorities): one word.
            let w = self.nonempty[0];
            return (w != 0).then(|| 63 - w.leading_zeros() as usize);
        }
        (0..self.words).rev().find(|&w| self.nonempty[w] != 0).map(|w| w * 64 + 63 - self.nonempty[w].leading_zeros() as usize)
    }

    /// Lowest non-empty level.
    #[inline]
    fn lowest(&self) -> Option<usize> {
        (0..self.words).find(|&w| self.nonempty[w] != 0).map(|w| w * 64 + self.nonempty[w].trailing_zeros() as usize)
    }

    #[inline(never)]
    fn push(&mut self, low: &mut VecDeque<T>, priority: u16, item: T) {
        let l = self.level(priority);
        self.at_mut(low, l).push_back(item);
        self.added(l);
    }

    #[inline(never)]
    fn push_front_behind(&mut self, low: &mut VecDeque<T>, priority: u16, item: T, ahead: impl Fn(&T) -> bool) {
        let l = self.level(priority);
        insert_behind(self.at_mut(low, l), item, ahead);
        self.added(l);
    }

    #[inline(never)]
    fn push_front(&mut self, low: &mut VecDeque<T>, priority: u16, item: T) {
        let l = self.level(priority);
        self.at_mut(low, l).push_front(item);
        self.added(l);
    }

    #[inline(never)]
    fn pop(&mut self, low: &mut VecDeque<T>) -> Option<T> {
        let l = self.top()?;
        let item = self.at_mut(low, l).pop_front();
        self.taken(low, l);
        item
    }

    #[inline(never)]
    fn remove_first(&mut self, low: &mut VecDeque<T>, mut f: impl FnMut(&T) -> bool) -> Option<T> {
        for l in (0..=self.above.len()).rev() {
            if let Some(item) = remove_where(self.at_mut(low, l), &mut f) {
                self.taken(low, l);
                return Some(item);
            }
        }
        None
    }

    #[inline(never)]
    fn pop_lowest_below(&mut self, low: &mut VecDeque<T>, than: u16) -> Option<T> {
        let l = self.lowest()?;
        if l >= self.level(than) {
            return None;
        }
        let item = self.at_mut(low, l).pop_back();
        self.taken(low, l);
        item
    }
}

/// Puts `item` in `q` behind the items at its front for which `ahead` holds.
fn insert_behind<T>(q: &mut VecDeque<T>, item: T, ahead: impl Fn(&T) -> bool) {
    let at = q.iter().take_while(|x| ahead(x)).count();
    q.insert(at, item);
}

/// Removes and returns the first item of `q` matching `f`.
fn remove_where<T>(q: &mut VecDeque<T>, f: impl FnMut(&T) -> bool) -> Option<T> {
    let k = q.iter().position(f)?;
    q.remove(k)
}

impl<T: Copy> PriorityFifo<T> {
    /// A queue with `levels` priority levels (1 = FIFO).
    pub fn new(levels: usize) -> Self {
        assert!((1..=MAX_LEVELS).contains(&levels), "1..=256 priority levels");
        PriorityFifo { low: VecDeque::new(), high: (levels > 1).then(|| Box::new(Levels::new(levels))) }
    }

    /// Appends `item` behind everything of its priority.
    #[inline]
    pub fn push(&mut self, priority: u16, item: T) {
        match &mut self.high {
            None => self.low.push_back(item),
            Some(h) => h.push(&mut self.low, priority, item),
        }
    }

    /// Puts `item` ahead of everything of its priority but the items at the
    /// front for which `ahead` holds (a retried packet goes behind those
    /// busied before it).
    #[inline]
    pub fn push_front_behind(&mut self, priority: u16, item: T, ahead: impl Fn(&T) -> bool) {
        match &mut self.high {
            None => insert_behind(&mut self.low, item, ahead),
            Some(h) => h.push_front_behind(&mut self.low, priority, item, ahead),
        }
    }

    /// Puts `item` ahead of everything of its priority (a retried packet keeps its place).
    #[inline]
    pub fn push_front(&mut self, priority: u16, item: T) {
        match &mut self.high {
            None => self.low.push_front(item),
            Some(h) => h.push_front(&mut self.low, priority, item),
        }
    }

    #[inline(always)]
    pub fn pop(&mut self) -> Option<T> {
        match &mut self.high {
            None => self.low.pop_front(),
            Some(h) => h.pop(&mut self.low),
        }
    }

    /// Highest non-empty level.
    #[inline]
    fn top(&self) -> Option<usize> {
        match &self.high {
            None => (!self.low.is_empty()).then_some(0),
            Some(h) => h.top(),
        }
    }

    #[inline]
    pub fn peek(&self) -> Option<&T> {
        match &self.high {
            None => self.low.front(),
            Some(h) => h.top().and_then(|l| h.at(&self.low, l).front()),
        }
    }

    /// The head and its priority level.
    #[inline]
    pub fn head(&self) -> Option<(u16, T)> {
        let l = self.top()?;
        let q = match &self.high {
            None => &self.low,
            Some(h) => h.at(&self.low, l),
        };
        q.front().map(|&item| (l as u16, item))
    }

    /// Priority level of the head.
    #[inline]
    pub fn peek_level(&self) -> Option<u16> {
        self.top().map(|l| l as u16)
    }

    /// Lowest non-empty level.
    #[inline]
    pub fn lowest_level(&self) -> Option<u16> {
        match &self.high {
            None => (!self.low.is_empty()).then_some(0),
            Some(h) => h.lowest().map(|l| l as u16),
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        match &self.high {
            None => self.low.len(),
            Some(h) => h.len,
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Items in service order: highest priority first, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        let above: &[VecDeque<T>] = self.high.as_deref().map_or(&[], |h| &h.above);
        above.iter().rev().flat_map(|q| q.iter()).chain(self.low.iter())
    }

    /// `iter`'s items on the levels below `than`: a suffix of its order,
    /// and where no item sits on a level above its priority, every item of
    /// a priority below `than` is among them. (A FIFO's one level, 0,
    /// holds every priority.)
    pub fn iter_below(&self, than: u16) -> impl Iterator<Item = &T> + '_ {
        let above: &[VecDeque<T>] = self.high.as_deref().map_or(&[], |h| &h.above[..(than as usize).min(h.above.len() + 1).saturating_sub(1)]);
        above.iter().rev().flat_map(|q| q.iter()).chain(self.low.iter().take(if than > 0 { usize::MAX } else { 0 }))
    }

    /// Removes and returns the first item (in service order) matching `f`.
    pub fn remove_first(&mut self, f: impl FnMut(&T) -> bool) -> Option<T> {
        match &mut self.high {
            None => remove_where(&mut self.low, f),
            Some(h) => h.remove_first(&mut self.low, f),
        }
    }

    /// Removes and returns the *last* item in service order (lowest priority,
    /// youngest) if its level is below `than`: the one a preemption evicts.
    pub fn pop_lowest_below(&mut self, than: u16) -> Option<T> {
        match &mut self.high {
            // (A FIFO's one level is below no other.)
            None => None,
            Some(h) => h.pop_lowest_below(&mut self.low, than),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highest_priority_first_oldest_first_within() {
        let mut q = PriorityFifo::new(256);
        q.push(3, 'a');
        q.push(200, 'b');
        q.push(3, 'c');
        q.push(255, 'd');
        q.push(200, 'e');
        q.push_front(3, 'r');
        assert_eq!(q.iter().copied().collect::<String>(), "dberac");
        let order: String = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, "dberac");
        assert!(q.is_empty());
    }

    #[test]
    fn one_level_is_a_fifo_and_levels_above_clamp() {
        let mut q = PriorityFifo::new(1);
        q.push(0, 1);
        q.push(7, 2);
        q.push_front(0, 0);
        assert_eq!(q.peek_level(), Some(0));
        assert_eq!((q.pop(), q.pop(), q.pop(), q.pop()), (Some(0), Some(1), Some(2), None));
    }

    #[test]
    fn push_front_behind_goes_behind_the_leading_items_it_is_told_to() {
        let mut q = PriorityFifo::new(4);
        for x in [10, 11, 12] {
            q.push(1, x);
        }
        q.push(3, 30);
        // Items below 10 are retries: the first goes first of its level,
        // the next behind it, and neither passes the level above.
        q.push_front_behind(1, 1, |&x| x < 10);
        q.push_front_behind(1, 2, |&x| x < 10);
        assert_eq!(q.iter().copied().collect::<Vec<_>>(), vec![30, 1, 2, 10, 11, 12]);
        assert_eq!(q.len(), 6);
        q.push_front_behind(2, 20, |_| true);
        assert_eq!(q.iter().copied().collect::<Vec<_>>(), vec![30, 20, 1, 2, 10, 11, 12]);
    }

    /// `iter_below(than)` is the part of `iter` on levels below `than`: a
    /// suffix of it, in its order; above the top level, every item; with
    /// one level (a FIFO), every item but below priority 0.
    #[test]
    fn iter_below_is_the_suffix_of_iter_on_lower_levels() {
        let mut q = PriorityFifo::new(4);
        for (p, x) in [(0, 1), (2, 21), (1, 11), (3, 31), (0, 2), (2, 22), (9, 32)] {
            q.push(p, x);
        }
        let below = |q: &PriorityFifo<i32>, than| q.iter_below(than).copied().collect::<Vec<_>>();
        assert_eq!(q.iter().copied().collect::<Vec<_>>(), vec![31, 32, 21, 22, 11, 1, 2]);
        assert_eq!(below(&q, 0), Vec::<i32>::new());
        assert_eq!(below(&q, 1), vec![1, 2]);
        assert_eq!(below(&q, 2), vec![11, 1, 2]);
        assert_eq!(below(&q, 3), vec![21, 22, 11, 1, 2]);
        assert_eq!(below(&q, 4), vec![31, 32, 21, 22, 11, 1, 2], "level 3 holds priorities 3 and above");
        assert_eq!(below(&q, 200), below(&q, 4));
        let mut fifo = PriorityFifo::new(1);
        fifo.push(5, 7);
        fifo.push(0, 8);
        assert_eq!(below(&fifo, 0), Vec::<i32>::new());
        assert_eq!(below(&fifo, 3), vec![7, 8]);
    }

    #[test]
    fn remove_first_and_evict_lowest() {
        let mut q = PriorityFifo::new(8);
        for (p, x) in [(1, 10), (5, 50), (1, 11), (3, 30)] {
            q.push(p, x);
        }
        assert_eq!(q.remove_first(|&x| x == 30), Some(30));
        // The youngest of the lowest level is evicted, only by a higher priority.
        assert_eq!(q.pop_lowest_below(1), None);
        assert_eq!(q.pop_lowest_below(2), Some(11));
        assert_eq!(q.len(), 2);
        assert_eq!(q.iter().copied().collect::<Vec<_>>(), vec![50, 10]);
    }

    /// A FIFO of one level and one of several answer alike: empty or not,
    /// and the lowest level.
    #[test]
    fn emptiness_and_lowest_level() {
        for levels in [1, 4] {
            let mut q = PriorityFifo::new(levels);
            assert!(q.is_empty() && q.lowest_level().is_none());
            q.push(0, 5);
            assert!(!q.is_empty());
            assert_eq!(q.lowest_level(), Some(0), "{levels} levels");
        }
    }

    /// Beyond 64 levels the non-empty levels span several words: the
    /// highest and the lowest are still found, in any word.
    #[test]
    fn levels_beyond_one_word() {
        let mut q = PriorityFifo::new(256);
        for (p, x) in [(200, 2), (70, 7), (130, 13)] {
            q.push(p, x);
        }
        assert_eq!((q.lowest_level(), q.peek_level()), (Some(70), Some(200)));
        assert_eq!(q.pop_lowest_below(71), Some(7));
        assert_eq!(q.lowest_level(), Some(130));
        assert_eq!(q.pop(), Some(2));
        assert_eq!((q.lowest_level(), q.peek_level()), (Some(130), Some(130)));
    }
}
