//! A small boolean-circuit builder: XOR, AND and NOT gates over input wires, with constants
//! folded away (a constant never becomes a wire unless it is an output), and a plaintext
//! evaluator. The gate list is in the shape every garbling engine takes (inputs first, then
//! gates in topological order, each gate's output the next wire), so the same circuit is
//! evaluated in the clear by the tests and under MPC by an engine.
//!
//! Cost in garbled circuits is the number of AND gates (XOR and NOT are free with free-XOR
//! garbling), so the builder counts them, per named section.

/// A bit in a circuit under construction: a known constant, or a wire.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bit {
    /// A constant (folded away).
    Const(bool),
    /// The wire with this index.
    Wire(u32),
}

/// A gate; its output is the wire after all inputs and earlier gates.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Gate {
    /// a XOR b.
    Xor(u32, u32),
    /// a AND b.
    And(u32, u32),
    /// NOT a.
    Not(u32),
}

/// A finished circuit: `inputs[p]` wires of party `p` (party 0's first), then the gates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Circuit {
    /// Input bits per party.
    pub inputs: Vec<u32>,
    /// The gates in evaluation order.
    pub gates: Vec<Gate>,
    /// The output wires.
    pub outputs: Vec<u32>,
    /// AND gates per named section, in the order the sections were opened.
    pub sections: Vec<(String, u64)>,
    /// For each AND gate in order, its index in `sections` (empty where not tracked).
    pub and_sections: Vec<u32>,
}

impl Circuit {
    /// The number of AND gates.
    #[must_use]
    pub fn and_gates(&self) -> u64 {
        self.gates.iter().filter(|g| matches!(g, Gate::And(..))).count() as u64
    }

    /// Evaluates the circuit in the clear: one `Vec<bool>` of inputs per party.
    ///
    /// # Panics
    /// If an input vector's length is not the circuit's.
    #[must_use]
    pub fn eval(&self, inputs: &[Vec<bool>]) -> Vec<bool> {
        assert_eq!(inputs.len(), self.inputs.len(), "one input vector per party");
        let mut w: Vec<bool> = Vec::with_capacity(self.wires());
        for (p, bits) in inputs.iter().enumerate() {
            assert_eq!(bits.len(), self.inputs[p] as usize, "party {p}'s input length");
            w.extend_from_slice(bits);
        }
        for g in &self.gates {
            let v = match *g {
                Gate::Xor(a, b) => w[a as usize] ^ w[b as usize],
                Gate::And(a, b) => w[a as usize] & w[b as usize],
                Gate::Not(a) => !w[a as usize],
            };
            w.push(v);
        }
        self.outputs.iter().map(|&o| w[o as usize]).collect()
    }

    /// Evaluates 64 instances at once, bit-sliced: bit `i` of every word belongs to
    /// instance `i` (one word per input bit, per party).
    ///
    /// # Panics
    /// If an input vector's length is not the circuit's.
    #[must_use]
    pub fn eval_words(&self, inputs: &[Vec<u64>]) -> Vec<u64> {
        assert_eq!(inputs.len(), self.inputs.len(), "one input vector per party");
        let mut w: Vec<u64> = Vec::with_capacity(self.wires());
        for (p, words) in inputs.iter().enumerate() {
            assert_eq!(words.len(), self.inputs[p] as usize, "party {p}'s input length");
            w.extend_from_slice(words);
        }
        for g in &self.gates {
            let v = match *g {
                Gate::Xor(a, b) => w[a as usize] ^ w[b as usize],
                Gate::And(a, b) => w[a as usize] & w[b as usize],
                Gate::Not(a) => !w[a as usize],
            };
            w.push(v);
        }
        self.outputs.iter().map(|&o| w[o as usize]).collect()
    }

    /// All wires: inputs plus gates.
    #[must_use]
    pub fn wires(&self) -> usize {
        self.inputs.iter().map(|&n| n as usize).sum::<usize>() + self.gates.len()
    }
}

/// A circuit split by who can compute what alone ([`Circuit::split_local`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    /// Per party, the part of the circuit that depends on its own inputs only: its raw input
    /// bits in, the bits the joint part needs out. Each party evaluates it in the clear.
    pub local: Vec<Circuit>,
    /// The joint part, run under MPC: party `p`'s inputs are `local[p]`'s outputs.
    pub joint: Circuit,
}

impl Split {
    /// Evaluates the split circuit in the clear (locally, then jointly): the same outputs as
    /// the circuit it was split from.
    #[must_use]
    pub fn eval(&self, inputs: &[Vec<bool>]) -> Vec<bool> {
        let mid: Vec<Vec<bool>> =
            self.local.iter().zip(inputs).map(|(l, i)| l.eval(std::slice::from_ref(i))).collect();
        self.joint.eval(&mid)
    }

    /// [`Split::eval`] on 64 instances at once, bit-sliced ([`Circuit::eval_words`]).
    #[must_use]
    pub fn eval_words(&self, inputs: &[Vec<u64>]) -> Vec<u64> {
        let mid: Vec<Vec<u64>> = self
            .local
            .iter()
            .zip(inputs)
            .map(|(l, i)| l.eval_words(std::slice::from_ref(i)))
            .collect();
        self.joint.eval_words(&mid)
    }
}

impl Circuit {
    /// Splits off what each party can compute alone: a gate whose inputs all depend on one
    /// party's inputs only is computed by that party in the clear (no AND gate under MPC),
    /// and the joint circuit takes the results as that party's inputs. The local parts are
    /// deterministic functions of each party's own input, so they are bound to its committed
    /// input exactly as the raw input is (docs/TWO-PARTY.md, section 4).
    ///
    /// # Panics
    /// If the circuit has more than 8 parties.
    #[must_use]
    pub fn split_local(&self) -> Split {
        let parties = self.inputs.len();
        assert!(parties <= 8, "at most 8 parties");
        let n_in: usize = self.inputs.iter().map(|&n| n as usize).sum();
        // Which parties' inputs each wire depends on (a bit per party; 0 for constants).
        let mut dep: Vec<u8> = Vec::with_capacity(self.wires());
        for (p, &n) in self.inputs.iter().enumerate() {
            dep.extend(std::iter::repeat_n(1u8 << p, n as usize));
        }
        for g in &self.gates {
            dep.push(match *g {
                Gate::Xor(a, b) | Gate::And(a, b) => dep[a as usize] | dep[b as usize],
                Gate::Not(a) => dep[a as usize],
            });
        }
        let owner = |w: usize| -> Option<usize> {
            let d = dep[w];
            (d.count_ones() == 1).then(|| d.trailing_zeros() as usize)
        };
        // The wires a party hands to the joint part: its local wires read by a joint gate or
        // an output.
        let mut handed: Vec<Vec<u32>> = vec![Vec::new(); parties];
        let mut is_handed = vec![false; dep.len()];
        let mut hand = |w: u32, handed: &mut Vec<Vec<u32>>| {
            if let Some(p) = owner(w as usize)
                && !is_handed[w as usize]
            {
                is_handed[w as usize] = true;
                handed[p].push(w);
            }
        };
        for (i, g) in self.gates.iter().enumerate() {
            if owner(n_in + i).is_some() {
                continue;
            }
            match *g {
                Gate::Xor(a, b) | Gate::And(a, b) => {
                    hand(a, &mut handed);
                    hand(b, &mut handed);
                }
                Gate::Not(a) => hand(a, &mut handed),
            }
        }
        for &o in &self.outputs {
            hand(o, &mut handed);
        }
        // Each party's local circuit: its own inputs, its local gates, the handed wires out.
        let mut local = Vec::with_capacity(parties);
        let mut offset = 0u32;
        for (p, &n) in self.inputs.iter().enumerate() {
            let mut index = vec![u32::MAX; dep.len()];
            for k in 0..n {
                index[(offset + k) as usize] = k;
            }
            let mut gates = Vec::new();
            for (i, g) in self.gates.iter().enumerate() {
                if owner(n_in + i) != Some(p) {
                    continue;
                }
                let m = |w: u32| index[w as usize];
                let g = match *g {
                    Gate::Xor(a, b) => Gate::Xor(m(a), m(b)),
                    Gate::And(a, b) => Gate::And(m(a), m(b)),
                    Gate::Not(a) => Gate::Not(m(a)),
                };
                index[n_in + i] = n + u32::try_from(gates.len()).expect("fits");
                gates.push(g);
            }
            let outputs = handed[p].iter().map(|&w| index[w as usize]).collect();
            let sections = Vec::new();
            let and_sections = Vec::new();
            local.push(Circuit { inputs: vec![n], gates, outputs, sections, and_sections });
            offset += n;
        }
        // The joint circuit: the handed wires as inputs, party by party, then the rest.
        let mut index = vec![u32::MAX; dep.len()];
        let mut next = 0u32;
        for h in &handed {
            for &w in h {
                index[w as usize] = next;
                next += 1;
            }
        }
        let mut gates = Vec::new();
        let mut and_sections = Vec::new();
        let mut counts: Vec<(String, u64)> =
            self.sections.iter().map(|(name, _)| (name.clone(), 0)).collect();
        let mut and_ordinal = 0usize;
        for (i, g) in self.gates.iter().enumerate() {
            let this_and = and_ordinal;
            if matches!(g, Gate::And(..)) {
                and_ordinal += 1;
            }
            if owner(n_in + i).is_some() {
                continue;
            }
            let m = |w: u32| index[w as usize];
            let g = match *g {
                Gate::Xor(a, b) => Gate::Xor(m(a), m(b)),
                Gate::And(a, b) => {
                    if let Some(&k) = self.and_sections.get(this_and) {
                        counts[k as usize].1 += 1;
                        and_sections.push(k);
                    }
                    Gate::And(m(a), m(b))
                }
                Gate::Not(a) => Gate::Not(m(a)),
            };
            index[n_in + i] = next + u32::try_from(gates.len()).expect("fits");
            gates.push(g);
        }
        let outputs = self.outputs.iter().map(|&o| index[o as usize]).collect();
        let inputs = handed.iter().map(|h| u32::try_from(h.len()).expect("fits")).collect();
        // Section indices stay those of `self.sections` (empty ones are kept, with 0).
        let joint = Circuit { inputs, gates, outputs, sections: counts, and_sections };
        Split { local, joint }
    }
}

/// Builds a [`Circuit`].
pub struct Builder {
    n_inputs: u32,
    inputs: Vec<u32>,
    gates: Vec<Gate>,
    /// Section names, and the section each gate was built in.
    sections: Vec<String>,
    gate_section: Vec<u32>,
    zero: Option<u32>,
}

impl Builder {
    /// A builder whose inputs are `inputs[p]` bits for each party `p`; returns the input bits.
    #[must_use]
    pub fn new(inputs: &[u32]) -> (Builder, Vec<Vec<Bit>>) {
        let mut next = 0u32;
        let mut bits = Vec::new();
        for &n in inputs {
            bits.push((next..next + n).map(Bit::Wire).collect());
            next += n;
        }
        let b = Builder {
            n_inputs: next,
            inputs: inputs.to_vec(),
            gates: Vec::new(),
            sections: vec!["other".to_string()],
            gate_section: Vec::new(),
            zero: None,
        };
        (b, bits)
    }

    /// Counts the gates built from now on (until the next section) under `name`.
    pub fn section(&mut self, name: &str) {
        self.sections.push(name.to_string());
    }

    fn push(&mut self, g: Gate) -> Bit {
        let w = self.n_inputs + u32::try_from(self.gates.len()).expect("fewer than 2^32 gates");
        self.gates.push(g);
        self.gate_section.push(u32::try_from(self.sections.len() - 1).expect("few sections"));
        Bit::Wire(w)
    }

    fn gate(&self, w: u32) -> Option<Gate> {
        w.checked_sub(self.n_inputs).map(|i| self.gates[i as usize])
    }

    /// NOT a.
    pub fn not(&mut self, a: Bit) -> Bit {
        match a {
            Bit::Const(c) => Bit::Const(!c),
            Bit::Wire(w) => match self.gate(w) {
                Some(Gate::Not(x)) => Bit::Wire(x),
                _ => self.push(Gate::Not(w)),
            },
        }
    }

    /// a XOR b.
    pub fn xor(&mut self, a: Bit, b: Bit) -> Bit {
        match (a, b) {
            (Bit::Const(x), Bit::Const(y)) => Bit::Const(x ^ y),
            (Bit::Const(false), o) | (o, Bit::Const(false)) => o,
            (Bit::Const(true), o) | (o, Bit::Const(true)) => self.not(o),
            (Bit::Wire(x), Bit::Wire(y)) if x == y => Bit::Const(false),
            (Bit::Wire(x), Bit::Wire(y)) => self.push(Gate::Xor(x, y)),
        }
    }

    /// a AND b.
    pub fn and(&mut self, a: Bit, b: Bit) -> Bit {
        match (a, b) {
            (Bit::Const(x), Bit::Const(y)) => Bit::Const(x & y),
            (Bit::Const(false), _) | (_, Bit::Const(false)) => Bit::Const(false),
            (Bit::Const(true), o) | (o, Bit::Const(true)) => o,
            (Bit::Wire(x), Bit::Wire(y)) if x == y => a,
            (Bit::Wire(x), Bit::Wire(y)) => self.push(Gate::And(x, y)),
        }
    }

    /// a OR b (one AND gate).
    pub fn or(&mut self, a: Bit, b: Bit) -> Bit {
        match (a, b) {
            (Bit::Const(true), _) | (_, Bit::Const(true)) => Bit::Const(true),
            (Bit::Const(false), o) | (o, Bit::Const(false)) => o,
            _ => {
                let x = self.xor(a, b);
                let y = self.and(a, b);
                self.xor(x, y)
            }
        }
    }

    /// `c ? a : b` (one AND gate).
    pub fn mux(&mut self, c: Bit, a: Bit, b: Bit) -> Bit {
        let d = self.xor(a, b);
        let t = self.and(c, d);
        self.xor(b, t)
    }

    /// The finished circuit with these outputs (constants become wires here). Gates no output
    /// depends on are dropped, so one description can build several circuits (the whole
    /// answer, or only a part of it) and each costs only what its outputs need.
    #[must_use]
    pub fn finish(mut self, outputs: &[Bit]) -> Circuit {
        let mut out = Vec::with_capacity(outputs.len());
        for &o in outputs {
            let w = match o {
                Bit::Wire(w) => w,
                Bit::Const(c) => {
                    let zero = match self.zero {
                        Some(z) => z,
                        None => {
                            // Any wire XOR itself is 0; a circuit always has an input.
                            let Bit::Wire(z) = self.push(Gate::Xor(0, 0)) else { unreachable!() };
                            self.zero = Some(z);
                            z
                        }
                    };
                    if c {
                        let Bit::Wire(one) = self.push(Gate::Not(zero)) else { unreachable!() };
                        one
                    } else {
                        zero
                    }
                }
            };
            out.push(w);
        }
        // Dead-gate elimination: mark what the outputs need, backwards, then renumber.
        let n_in = self.n_inputs as usize;
        let mut live = vec![false; n_in + self.gates.len()];
        for &o in &out {
            live[o as usize] = true;
        }
        for (i, g) in self.gates.iter().enumerate().rev() {
            if live[n_in + i] {
                match *g {
                    Gate::Xor(a, b) | Gate::And(a, b) => {
                        live[a as usize] = true;
                        live[b as usize] = true;
                    }
                    Gate::Not(a) => live[a as usize] = true,
                }
            }
        }
        let mut new_index: Vec<u32> = (0..self.n_inputs).collect();
        new_index.resize(live.len(), u32::MAX);
        // Sections of the same name (opened more than once) are one, in first-use order.
        let mut names: Vec<String> = Vec::new();
        let merged: Vec<usize> = self
            .sections
            .iter()
            .map(|n| {
                names.iter().position(|m| m == n).unwrap_or_else(|| {
                    names.push(n.clone());
                    names.len() - 1
                })
            })
            .collect();
        let mut gates = Vec::new();
        let mut ands = vec![0u64; names.len()];
        let mut and_sections = Vec::new();
        for (i, g) in self.gates.iter().enumerate() {
            if !live[n_in + i] {
                continue;
            }
            let m = |w: u32| new_index[w as usize];
            let g = match *g {
                Gate::Xor(a, b) => Gate::Xor(m(a), m(b)),
                Gate::And(a, b) => {
                    let k = merged[self.gate_section[i] as usize];
                    ands[k] += 1;
                    and_sections.push(k);
                    Gate::And(m(a), m(b))
                }
                Gate::Not(a) => Gate::Not(m(a)),
            };
            new_index[n_in + i] = self.n_inputs + u32::try_from(gates.len()).expect("fits");
            gates.push(g);
        }
        let outputs = out.iter().map(|&o| new_index[o as usize]).collect();
        // Empty sections are left out.
        let mut keep = vec![u32::MAX; names.len()];
        let mut sections = Vec::new();
        for (k, (name, n)) in names.into_iter().zip(ands).enumerate() {
            if n > 0 {
                keep[k] = u32::try_from(sections.len()).expect("few sections");
                sections.push((name, n));
            }
        }
        let and_sections = and_sections.into_iter().map(|k| keep[k]).collect();
        Circuit { inputs: self.inputs, gates, outputs, sections, and_sections }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_and_folding_evaluate_as_boolean_algebra() {
        let (mut b, ins) = Builder::new(&[2, 1]);
        let (x, y, z) = (ins[0][0], ins[0][1], ins[1][0]);
        let o1 = b.or(x, y);
        let o2 = b.mux(z, x, y);
        let o3 = b.and(x, Bit::Const(true));
        let o4 = b.xor(x, x);
        let nz = b.not(z);
        let o5 = b.not(nz);
        let c = b.finish(&[o1, o2, o3, o4, o5, Bit::Const(true)]);
        // or: 1 AND, mux: 1 AND; the rest fold.
        assert_eq!(c.and_gates(), 2);
        assert_eq!(c.sections, vec![("other".to_string(), 2)]);
        for v in 0..8u8 {
            let (xv, yv, zv) = (v & 1 != 0, v & 2 != 0, v & 4 != 0);
            let out = c.eval(&[vec![xv, yv], vec![zv]]);
            assert_eq!(out, vec![xv | yv, if zv { xv } else { yv }, xv, false, zv, true]);
        }
    }

    #[test]
    fn gates_no_output_needs_are_dropped_and_counted_nowhere() {
        let (mut b, ins) = Builder::new(&[3]);
        let (x, y, z) = (ins[0][0], ins[0][1], ins[0][2]);
        b.section("used");
        let u = b.and(x, y);
        b.section("dead");
        let d = b.and(y, z);
        let _dead = b.or(d, x);
        b.section("used");
        let u2 = b.and(u, z);
        let nu = b.not(u2);
        let c = b.finish(&[nu, u]);
        assert_eq!(c.and_gates(), 2);
        assert_eq!(c.gates.len(), 3);
        assert_eq!(c.sections, vec![("used".to_string(), 2)]);
        for v in 0..8u8 {
            let (xv, yv, zv) = (v & 1 != 0, v & 2 != 0, v & 4 != 0);
            assert_eq!(c.eval(&[vec![xv, yv, zv]]), vec![!(xv & yv & zv), xv & yv]);
        }
    }

    #[test]
    fn what_one_party_can_compute_alone_leaves_the_joint_circuit() {
        let (mut b, ins) = Builder::new(&[2, 2]);
        let (x0, x1, y0, y1) = (ins[0][0], ins[0][1], ins[1][0], ins[1][1]);
        b.section("mover alone");
        let xx = b.and(x0, x1);
        b.section("opponent alone");
        let yy = b.or(y0, y1);
        b.section("together");
        let m = b.and(xx, yy);
        let nx = b.not(x0);
        let m2 = b.mux(y0, nx, x1);
        let c = b.finish(&[m, m2, xx]);
        let split = c.split_local();
        assert_eq!(c.and_gates(), 4);
        assert_eq!(split.joint.and_gates(), 2, "only the mixed gates stay joint");
        assert_eq!(split.local[0].and_gates(), 1);
        assert_eq!(split.local[1].and_gates(), 1);
        let together = split.joint.sections.iter().find(|s| s.0 == "together").map(|s| s.1);
        assert_eq!(together, Some(2));
        for v in 0..16u8 {
            let i = vec![vec![v & 1 != 0, v & 2 != 0], vec![v & 4 != 0, v & 8 != 0]];
            assert_eq!(split.eval(&i), c.eval(&i));
            let w: Vec<Vec<u64>> =
                i.iter().map(|p| p.iter().map(|&x| u64::from(x) * 5).collect()).collect();
            let got = split.eval_words(&w);
            let want = c.eval_words(&w);
            assert_eq!(got, want);
        }
    }
}
