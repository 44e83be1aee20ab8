//! Wiring of multistage Banyan networks and the two ways of building an SCI network from them.
//!
//! Follows Richter, Kleber, Hellwagner, "Cost-efficient SCI-based Banyan networks": a network of
//! N = s^n terminals (N processors on the input side, N memories on the output side) has n stages of
//! N/s switching elements with s inputs and s outputs each. The five topologies below are
//! topologically equivalent Banyans (Wu & Feng 1980, Siegel 1985); they only differ in how the lines
//! between stages are wired, so they share one representation: the permutation [`Banyan::wire`].
//!
//! Conventions: lines of a stage are numbered 0..N, line L sits on switch L / s at port L % s (a switch
//! groups the s lines that differ only in the lowest base-s digit). Addresses are written in base s with
//! n digits d_{n-1} ... d_0; "rotate left" moves d_{n-1} to the d_0 position (perfect shuffle), "rotate
//! right" is its inverse (inverse shuffle). Inside a switch every in-port reaches every out-port.

/// The Banyan topologies a scenario can choose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Lawrie's Omega network: perfect shuffle before every stage.
    Omega,
    /// Wu & Feng's Baseline network: recursive halving (s-ing) by inverse shuffles on sub-blocks.
    Baseline,
    /// Batcher's Flip network: the mirror image of Omega (inverse shuffle after every stage).
    Flip,
    /// Pease's indirect binary n-cube: cube_0 first, cube_{n-1} last.
    IndirectCube,
    /// Siegel's generalized cube: cube_{n-1} first, cube_0 last.
    GeneralizedCube,
}

impl Kind {
    /// Every topology, in scenario order.
    pub const ALL: [Kind; 5] = [Kind::Omega, Kind::Baseline, Kind::Flip, Kind::IndirectCube, Kind::GeneralizedCube];

    /// The scenario name: "omega", "baseline", "flip", "indirect-cube", "generalized-cube".
    pub fn name(self) -> &'static str {
        match self {
            Kind::Omega => "omega",
            Kind::Baseline => "baseline",
            Kind::Flip => "flip",
            Kind::IndirectCube => "indirect-cube",
            Kind::GeneralizedCube => "generalized-cube",
        }
    }

    /// Inverse of [`Kind::name`]; `None` for an unknown name.
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// A Banyan network of `terminals` = s^n processors and memories, n stages of N/s switches of s x s.
///
/// Wiring definitions, with `wire(t, ·)` taking an output line of stage t-1 (t = 0: an input terminal)
/// to an input line of stage t (t = n: to an output terminal):
///
/// * Omega (Lawrie 1975): `wire(t) = rotate left` (perfect shuffle) for t < n, `wire(n) = identity`.
///   Destination tag: stage t takes out port d_{n-1-t}.
/// * Flip (Batcher 1976; Omega mirrored, i.e. `wire_flip(t) = wire_omega(n-t)^-1`):
///   `wire(0) = identity`, `wire(t) = rotate right` (inverse shuffle) for 1 <= t <= n.
///   Destination tag: stage t takes out port d_t.
/// * Baseline (Wu & Feng 1980, "On a class of multistage interconnection networks", IEEE TC 29(8)):
///   stage t-1 is followed by an inverse shuffle inside each block of N/s^(t-1) consecutive lines, i.e.
///   `wire(0) = identity`, `wire(t) = rotate right of the low n-t+1 digits` for 1 <= t <= n (so
///   `wire(n)` is the identity). Out port p of a stage splits the remaining block into s sub-networks,
///   which is Wu & Feng's recursive construction. Destination tag: stage t takes out port d_{n-1-t}.
///   The composition of all wires is the digit reversal, not the identity.
/// * Generalized cube (Siegel & Smith 1978; Siegel, "Interconnection Networks for Large-Scale Parallel
///   Processing", 1985): stage t performs the cube_i interchange with i = n-1-t, i.e. its switches group
///   the s logical addresses that differ only in digit i. Lines between stages are straight in logical
///   addresses; to put them on our "switch = line / s" layout, the physical line of logical address a at
///   stage t is a with digits i and 0 exchanged (an involution), so
///   `wire(t) = exchange(i_t, 0) ∘ exchange(i_{t-1}, 0)`, with no exchange before stage 0 and after stage
///   n-1. Destination tag: stage t takes out port d_{n-1-t}. (Bringing digit i down by a rotation
///   instead would reproduce the Omega wiring exactly, Siegel's Omega / generalized cube equivalence.)
/// * Indirect binary n-cube (Pease 1977), generalized to base s: the same as the generalized cube with
///   stage t performing cube_t. It is exactly the mirror image of the generalized cube.
///   Destination tag: stage t takes out port d_t.
///
/// For all but Baseline the composition of all wires is the identity, so the unidirectional ring
/// through all stages that starts at processor P_r ends at memory M_r.
#[derive(Clone, Debug)]
pub struct Banyan {
    kind: Kind,
    /// Switch ports s (the base of the addresses).
    s: usize,
    /// Stages n.
    n: usize,
    /// Terminals N = s^n.
    terminals: usize,
    /// `pow[k] = s^k` for k in 0..=n, so digit arithmetic needs no repeated multiplication.
    pow: Vec<usize>,
}

impl Banyan {
    /// Fails (message naming what is wrong, e.g. "network.nodes: expected a power of network.switch_ports (4), got 12")
    /// unless s >= 2 and terminals = s^n with n >= 1.
    pub fn new(kind: Kind, terminals: usize, s: usize) -> Result<Banyan, String> {
        if s < 2 {
            return Err(format!("network.switch_ports: expected at least 2, got {s}"));
        }
        if terminals < s {
            return Err(format!("network.nodes: expected at least network.switch_ports ({s}) terminals for one stage, got {terminals}"));
        }
        let not_power = || format!("network.nodes: expected a power of network.switch_ports ({s}), got {terminals}");
        let mut pow = vec![1usize];
        let mut p = 1usize;
        while p < terminals {
            p = p.checked_mul(s).ok_or_else(not_power)?;
            pow.push(p);
        }
        if p != terminals {
            return Err(not_power());
        }
        let n = pow.len() - 1;
        Ok(Banyan { kind, s, n, terminals, pow })
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// N: processors on the input side, memories on the output side.
    pub fn terminals(&self) -> usize {
        self.terminals
    }

    /// s: ports of a switching element on each side.
    pub fn switch_ports(&self) -> usize {
        self.s
    }

    /// n = log_s N.
    pub fn stages(&self) -> usize {
        self.n
    }

    /// N / s.
    pub fn switches_per_stage(&self) -> usize {
        self.terminals / self.s
    }

    /// Output line of stage t-1 (t = 0: input terminal) to input line of stage t; t = stages: to the output terminal.
    /// See [`Banyan`] for the definition of each topology.
    pub fn wire(&self, t: usize, line: usize) -> usize {
        assert!(t <= self.n, "wire: stage {t} out of 0..={}", self.n);
        assert!(line < self.terminals, "wire: line {line} out of 0..{}", self.terminals);
        let n = self.n;
        match self.kind {
            Kind::Omega if t < n => self.rotate_left(line),
            Kind::Omega => line,
            Kind::Flip if t == 0 => line,
            Kind::Flip => self.rotate_right_low(line, n),
            Kind::Baseline if t == 0 => line,
            Kind::Baseline => self.rotate_right_low(line, n - t + 1),
            Kind::GeneralizedCube | Kind::IndirectCube => {
                // Back to the logical address after stage t-1, then to the physical line of stage t.
                let logical = if t == 0 { line } else { self.exchange(line, self.cube_digit(t - 1)) };
                if t == n {
                    logical
                } else {
                    self.exchange(logical, self.cube_digit(t))
                }
            }
        }
    }

    /// The out port (0..s) of switch `switch` at stage `t` on the unique path to output terminal `dst` (destination-tag routing).
    ///
    /// Computed by each topology's destination-tag rule (see [`Banyan`]): one digit of `dst`, d_{n-1-t} for Omega,
    /// Baseline and generalized cube, d_t for Flip and indirect cube; it does not depend on `switch`. `dst` must be
    /// reachable from `switch` (always true on a path from a processor to `dst`); debug builds check that.
    pub fn route_port(&self, t: usize, switch: usize, dst: usize) -> usize {
        assert!(t < self.n, "route_port: stage {t} out of 0..{}", self.n);
        assert!(switch < self.switches_per_stage(), "route_port: switch {switch} out of 0..{}", self.switches_per_stage());
        assert!(dst < self.terminals, "route_port: terminal {dst} out of 0..{}", self.terminals);
        let q = self.tag(t, dst);
        debug_assert!(
            self.reaches(t, switch * self.s + q, dst),
            "route_port: terminal {dst} is not reachable from switch {switch} of stage {t}"
        );
        q
    }

    /// Unidirectional rings: the input line (= port line) ring r passes at each stage, in stage order (length = stages).
    pub fn ring_lines(&self, r: usize) -> Vec<usize> {
        let mut line = r;
        (0..self.n)
            .map(|t| {
                line = self.wire(t, line);
                line
            })
            .collect()
    }

    /// Unidirectional rings: the memory (output terminal) on ring r (r itself for all but Baseline, where the
    /// paper's "additional permutation wiring" leads from this memory back to P_r).
    pub fn ring_memory(&self, r: usize) -> usize {
        (0..=self.n).fold(r, |line, t| self.wire(t, line))
    }

    /// Switch ports the network needs: bidirectional = stages * (N/s) * 2s (one per ringlet end); unidirectional = stages * N
    /// (one ring interface per line and stage).
    pub fn ports(&self, bidirectional: bool) -> usize {
        if bidirectional {
            self.n * self.switches_per_stage() * 2 * self.s
        } else {
            self.n * self.terminals
        }
    }

    /// Destination-tag digit of stage t for output terminal `dst`.
    fn tag(&self, t: usize, dst: usize) -> usize {
        let i = match self.kind {
            Kind::Omega | Kind::Baseline | Kind::GeneralizedCube => self.n - 1 - t,
            Kind::Flip | Kind::IndirectCube => t,
        };
        self.digit(dst, i)
    }

    /// Whether leaving stage t on `out_line` and following destination tags ends at `dst`.
    fn reaches(&self, t: usize, out_line: usize, dst: usize) -> bool {
        let mut line = out_line;
        for u in t + 1..self.n {
            line = self.wire(u, line);
            line = line - line % self.s + self.tag(u, dst);
        }
        self.wire(self.n, line) == dst
    }

    /// The address digit the cube stage t interchanges.
    fn cube_digit(&self, t: usize) -> usize {
        match self.kind {
            Kind::GeneralizedCube => self.n - 1 - t,
            _ => t,
        }
    }

    fn digit(&self, x: usize, i: usize) -> usize {
        x / self.pow[i] % self.s
    }

    /// Perfect shuffle: d_{n-1} d_{n-2} ... d_0 -> d_{n-2} ... d_0 d_{n-1}.
    fn rotate_left(&self, x: usize) -> usize {
        let top = self.pow[self.n - 1];
        x % top * self.s + x / top
    }

    /// Inverse shuffle of the low m digits (inside blocks of s^m lines): ... d_{m-1} ... d_1 d_0 -> ... d_0 d_{m-1} ... d_1.
    fn rotate_right_low(&self, x: usize, m: usize) -> usize {
        let block = self.pow[m];
        let low = x % block;
        x - low + low / self.s + low % self.s * self.pow[m - 1]
    }

    /// Exchanges digits i and 0 of x.
    fn exchange(&self, x: usize, i: usize) -> usize {
        let (a, b) = (self.digit(x, i), self.digit(x, 0));
        // Add before subtracting: for i = 0 both digits are the same one, and x - 2a could underflow.
        x + b * self.pow[i] + a - a * self.pow[i] - b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZES: [(usize, usize); 9] = [(2, 2), (4, 2), (8, 2), (16, 2), (16, 4), (64, 4), (27, 3), (1024, 2), (1024, 4)];

    fn net(kind: Kind, n: usize, s: usize) -> Banyan {
        Banyan::new(kind, n, s).unwrap()
    }

    /// The sources whose paths to every terminal a test walks: all of them
    /// on small networks; on the 1024-terminal ones every 31st and the last
    /// (a wiring mistake moves many paths, and all pairs there take 10 s).
    fn sources(nt: usize) -> impl Iterator<Item = usize> {
        let step = if nt > 64 { 31 } else { 1 };
        (0..nt).step_by(step).chain((nt > 64).then_some(nt - 1))
    }

    /// Base-s digits of x, index i = digit d_i (independent of the implementation's arithmetic).
    fn digits(x: usize, s: usize, n: usize) -> Vec<usize> {
        let mut d = Vec::with_capacity(n);
        let mut x = x;
        for _ in 0..n {
            d.push(x % s);
            x /= s;
        }
        d
    }

    fn undigits(d: &[usize], s: usize) -> usize {
        d.iter().rev().fold(0, |acc, &x| acc * s + x)
    }

    /// The wiring definitions, written on digit vectors.
    fn reference_wire(kind: Kind, s: usize, n: usize, t: usize, x: usize) -> usize {
        let d = digits(x, s, n);
        let mut e = d.clone();
        match kind {
            Kind::Omega => {
                if t < n {
                    // rotate left: new d_0 = old d_{n-1}, new d_{i} = old d_{i-1}.
                    for i in 0..n {
                        e[(i + 1) % n] = d[i];
                    }
                }
            }
            Kind::Flip => {
                if t > 0 {
                    for i in 0..n {
                        e[i] = d[(i + 1) % n];
                    }
                }
            }
            Kind::Baseline => {
                if t > 0 {
                    let m = n - t + 1;
                    for i in 0..m {
                        e[i] = d[(i + 1) % m];
                    }
                }
            }
            Kind::GeneralizedCube | Kind::IndirectCube => {
                let cube = |u: usize| if kind == Kind::GeneralizedCube { n - 1 - u } else { u };
                if t > 0 {
                    e.swap(cube(t - 1), 0);
                }
                if t < n {
                    e.swap(cube(t), 0);
                }
            }
        }
        undigits(&e, s)
    }

    fn table(b: &Banyan, t: usize) -> Vec<usize> {
        (0..b.terminals()).map(|x| b.wire(t, x)).collect()
    }

    #[test]
    fn explicit_tables_n8() {
        let id: Vec<usize> = (0..8).collect();
        let shuffle = vec![0, 2, 4, 6, 1, 3, 5, 7];
        let unshuffle = vec![0, 4, 1, 5, 2, 6, 3, 7];
        // Omega (Lawrie's figure): shuffle, shuffle, shuffle, straight.
        let b = net(Kind::Omega, 8, 2);
        for t in 0..3 {
            assert_eq!(table(&b, t), shuffle);
        }
        assert_eq!(table(&b, 3), id);
        // Flip: straight, then an inverse shuffle after each stage.
        let b = net(Kind::Flip, 8, 2);
        assert_eq!(table(&b, 0), id);
        for t in 1..=3 {
            assert_eq!(table(&b, t), unshuffle);
        }
        // Baseline (Wu & Feng's figure): straight, unshuffle of 8, unshuffle in each half, straight.
        let b = net(Kind::Baseline, 8, 2);
        assert_eq!(table(&b, 0), id);
        assert_eq!(table(&b, 1), unshuffle);
        assert_eq!(table(&b, 2), vec![0, 2, 1, 3, 4, 6, 5, 7]);
        assert_eq!(table(&b, 3), id);
        // Generalized cube: exchange bits 2,0; undo it and exchange bits 1,0 (together an inverse shuffle);
        // undo that (bit 0 is already in place); straight.
        let b = net(Kind::GeneralizedCube, 8, 2);
        assert_eq!(table(&b, 0), vec![0, 4, 2, 6, 1, 5, 3, 7]);
        assert_eq!(table(&b, 1), unshuffle);
        assert_eq!(table(&b, 2), vec![0, 2, 1, 3, 4, 6, 5, 7]);
        assert_eq!(table(&b, 3), id);
        // Indirect cube: its mirror image.
        let b = net(Kind::IndirectCube, 8, 2);
        assert_eq!(table(&b, 0), id);
        assert_eq!(table(&b, 1), vec![0, 2, 1, 3, 4, 6, 5, 7]);
        assert_eq!(table(&b, 2), shuffle);
        assert_eq!(table(&b, 3), vec![0, 4, 2, 6, 1, 5, 3, 7]);
    }

    #[test]
    fn explicit_omega_16_4() {
        let b = net(Kind::Omega, 16, 4);
        // x = 4a + b -> 4b + a.
        assert_eq!(b.wire(0, 1), 4);
        assert_eq!(b.wire(0, 4), 1);
        assert_eq!(b.wire(1, 7), 13);
        assert_eq!(b.wire(2, 7), 7);
    }

    #[test]
    fn wire_matches_definition() {
        for kind in Kind::ALL {
            for (nt, s) in [(8, 2), (16, 4), (27, 3), (64, 4), (32, 2)] {
                let b = net(kind, nt, s);
                for t in 0..=b.stages() {
                    for x in 0..nt {
                        assert_eq!(b.wire(t, x), reference_wire(kind, s, b.stages(), t, x), "{kind:?} N={nt} s={s} t={t} x={x}");
                    }
                }
            }
        }
    }

    #[test]
    fn mirror_images() {
        for (nt, s) in SIZES {
            for (a, m) in [(Kind::Omega, Kind::Flip), (Kind::GeneralizedCube, Kind::IndirectCube)] {
                let (a, m) = (net(a, nt, s), net(m, nt, s));
                let n = a.stages();
                for t in 0..=n {
                    for x in 0..nt {
                        assert_eq!(m.wire(t, a.wire(n - t, x)), x, "{:?} N={nt} s={s} t={t}", m.kind());
                    }
                }
            }
        }
    }

    #[test]
    fn wires_are_permutations() {
        for kind in Kind::ALL {
            for (nt, s) in SIZES {
                let b = net(kind, nt, s);
                for t in 0..=b.stages() {
                    let mut seen = vec![false; nt];
                    for x in 0..nt {
                        let y = b.wire(t, x);
                        assert!(!seen[y], "{kind:?} N={nt} s={s} t={t}: {y} hit twice");
                        seen[y] = true;
                    }
                }
            }
        }
    }

    /// Follows destination tags from input terminal `src`; returns the output terminal reached.
    fn route(b: &Banyan, src: usize, dst: usize) -> usize {
        let s = b.switch_ports();
        let mut line = b.wire(0, src);
        for t in 0..b.stages() {
            let sw = line / s;
            let out = sw * s + b.route_port(t, sw, dst);
            line = b.wire(t + 1, out);
        }
        line
    }

    #[test]
    fn destination_tag_reaches_every_terminal() {
        for kind in Kind::ALL {
            for (nt, s) in SIZES {
                let b = net(kind, nt, s);
                for src in sources(nt) {
                    for dst in 0..nt {
                        assert_eq!(route(&b, src, dst), dst, "{kind:?} N={nt} s={s} {src}->{dst}");
                    }
                }
            }
        }
    }

    /// Counts, for every output terminal, the paths from input line `line` of stage t over all port choices.
    fn count_paths(b: &Banyan, t: usize, line: usize, hits: &mut [u32]) {
        let s = b.switch_ports();
        let base = line - line % s;
        for q in 0..s {
            let next = b.wire(t + 1, base + q);
            if t + 1 == b.stages() {
                hits[next] += 1;
            } else {
                count_paths(b, t + 1, next, hits);
            }
        }
    }

    /// `reaches` (route_port's debug check) says whether a switch's
    /// destination-tag port leads to a terminal exactly when some path from
    /// that switch does.
    #[test]
    fn reaches_is_exactly_reachability() {
        for kind in Kind::ALL {
            for (nt, s) in [(8, 2), (16, 4), (27, 3)] {
                let b = net(kind, nt, s);
                for t in 0..b.stages() {
                    for switch in 0..b.switches_per_stage() {
                        let mut hits = vec![0; nt];
                        if t + 1 == b.stages() {
                            (0..s).for_each(|q| hits[b.wire(t + 1, switch * s + q)] += 1);
                        } else {
                            (0..s).for_each(|q| count_paths(&b, t + 1, b.wire(t + 1, switch * s + q), &mut hits));
                        }
                        for (dst, &h) in hits.iter().enumerate() {
                            assert_eq!(b.reaches(t, switch * s + b.tag(t, dst), dst), h > 0, "{kind:?} N={nt} s={s} stage {t} switch {switch} -> {dst}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn paths_are_unique() {
        for kind in Kind::ALL {
            for (nt, s) in SIZES {
                let b = net(kind, nt, s);
                let mut hits = vec![0u32; nt];
                for src in 0..nt {
                    hits.iter_mut().for_each(|h| *h = 0);
                    count_paths(&b, 0, b.wire(0, src), &mut hits);
                    assert!(hits.iter().all(|&h| h == 1), "{kind:?} N={nt} s={s} src={src}: {hits:?}");
                }
            }
        }
    }

    #[test]
    fn omega_route_port_is_destination_digit() {
        for (nt, s) in SIZES {
            let b = net(Kind::Omega, nt, s);
            let n = b.stages();
            for dst in 0..nt {
                let d = digits(dst, s, n);
                for t in 0..n {
                    for sw in 0..b.switches_per_stage() {
                        // Only switches from which dst is reachable: those on some path to it.
                        let reachable = (0..nt).any(|src| {
                            let mut line = b.wire(0, src);
                            for u in 0..t {
                                line = b.wire(u + 1, line - line % s + d[n - 1 - u]);
                            }
                            line / s == sw
                        });
                        if reachable {
                            assert_eq!(b.route_port(t, sw, dst), d[n - 1 - t]);
                        }
                    }
                }
                if nt > 64 {
                    break;
                }
            }
        }
    }

    #[test]
    fn rings_cover_every_port_once() {
        for kind in Kind::ALL {
            for (nt, s) in SIZES {
                let b = net(kind, nt, s);
                let rings: Vec<Vec<usize>> = (0..nt).map(|r| b.ring_lines(r)).collect();
                for t in 0..b.stages() {
                    let mut seen = vec![false; nt];
                    for ring in &rings {
                        assert_eq!(ring.len(), b.stages());
                        assert!(!seen[ring[t]], "{kind:?} N={nt} s={s}: line {} of stage {t} on two rings", ring[t]);
                        seen[ring[t]] = true;
                    }
                }
                let mut seen = vec![false; nt];
                for (r, ring) in rings.iter().enumerate() {
                    let m = b.ring_memory(r);
                    assert!(!seen[m], "{kind:?} N={nt} s={s}: memory {m} on two rings");
                    seen[m] = true;
                    assert_eq!(b.wire(b.stages(), ring[b.stages() - 1]), m);
                    assert_eq!(ring[0], b.wire(0, r));
                    for t in 1..b.stages() {
                        assert_eq!(ring[t], b.wire(t, ring[t - 1]));
                    }
                }
                let identity = (0..nt).all(|r| b.ring_memory(r) == r);
                if kind == Kind::Baseline {
                    // Digit reversal: the paper's additional permutation wiring.
                    let n = b.stages();
                    for r in 0..nt {
                        let mut d = digits(r, s, n);
                        d.reverse();
                        assert_eq!(b.ring_memory(r), undigits(&d, s));
                    }
                    assert_eq!(identity, n < 2, "Baseline N={nt} s={s}");
                } else {
                    assert!(identity, "{kind:?} N={nt} s={s}");
                }
            }
        }
    }

    /// Routes on unidirectional rings from processor r to memory d; returns (memory reached, ring changes).
    fn ring_route(b: &Banyan, r: usize, d: usize) -> (usize, usize) {
        let s = b.switch_ports();
        let mut line = b.wire(0, r);
        let mut changes = 0;
        for t in 0..b.stages() {
            let q = b.route_port(t, line / s, d);
            if q != line % s {
                line = line - line % s + q;
                changes += 1;
            }
            line = b.wire(t + 1, line);
        }
        (line, changes)
    }

    #[test]
    fn ring_routing_reaches_memory() {
        for kind in Kind::ALL {
            for (nt, s) in SIZES {
                let b = net(kind, nt, s);
                let n = b.stages();
                for r in sources(nt) {
                    assert_eq!(ring_route(&b, r, b.ring_memory(r)), (b.ring_memory(r), 0), "{kind:?} N={nt} s={s} r={r}");
                    let dr = digits(r, s, n);
                    for d in 0..nt {
                        let (m, changes) = ring_route(&b, r, d);
                        assert_eq!(m, d, "{kind:?} N={nt} s={s} {r}->{d}");
                        assert!(changes <= n);
                        if kind != Kind::Baseline {
                            // One ring change per base-s digit in which source and destination differ.
                            let dd = digits(d, s, n);
                            let distance = (0..n).filter(|&i| dr[i] != dd[i]).count();
                            assert_eq!(changes, distance, "{kind:?} N={nt} s={s} {r}->{d}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn port_counts() {
        for kind in Kind::ALL {
            assert_eq!(net(kind, 16, 4).ports(false), 32);
            assert_eq!(net(kind, 16, 2).ports(false), 64);
            assert_eq!(net(kind, 16, 2).ports(true), 128);
            assert_eq!(net(kind, 16, 4).ports(true), 64);
        }
    }

    #[test]
    fn shape() {
        let b = net(Kind::Baseline, 64, 4);
        assert_eq!((b.kind(), b.terminals(), b.switch_ports(), b.stages(), b.switches_per_stage()), (Kind::Baseline, 64, 4, 3, 16));
        assert_eq!(net(Kind::Omega, 2, 2).stages(), 1);
        assert_eq!(net(Kind::Flip, 1 << 20, 2).stages(), 20);
    }

    #[test]
    fn new_rejects_bad_sizes() {
        let e = Banyan::new(Kind::Omega, 12, 4).unwrap_err();
        assert_eq!(e, "network.nodes: expected a power of network.switch_ports (4), got 12");
        assert!(Banyan::new(Kind::Omega, 8, 1).unwrap_err().starts_with("network.switch_ports"));
        assert!(Banyan::new(Kind::Omega, 8, 0).unwrap_err().starts_with("network.switch_ports"));
        assert!(Banyan::new(Kind::Omega, 1, 2).unwrap_err().starts_with("network.nodes"));
        assert!(Banyan::new(Kind::Omega, 0, 2).unwrap_err().starts_with("network.nodes"));
        assert!(Banyan::new(Kind::Omega, 18, 3).unwrap_err().starts_with("network.nodes"));
        assert!(Banyan::new(Kind::Omega, usize::MAX, 2).unwrap_err().starts_with("network.nodes"));
    }

    #[test]
    fn names_round_trip() {
        for kind in Kind::ALL {
            assert_eq!(Kind::from_name(kind.name()), Some(kind));
        }
        let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(names, ["omega", "baseline", "flip", "indirect-cube", "generalized-cube"]);
        assert_eq!(Kind::from_name("Omega"), None);
        assert_eq!(Kind::from_name("cube"), None);
    }
}
