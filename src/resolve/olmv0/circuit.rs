//! The formula exactly as OLM hands it to gini, for gini's `Test`: an and-inverter graph with
//! gini's structural hashing and constant folding, each constraint one literal of it, and the
//! at-most-one groups as gini's sorting networks; `Test` is unit propagation over its CNF.
//!
//! Upstream: go-air/gini `logic/c.go` (`And`, `Or`, `ToCnf`'s three clauses per gate),
//! `logic/card.go` (`CardSort`: odd-even merge sort over the members padded with true to a
//! power of two, `Leq`), and OLM `resolver/solver/constraints.go` (`dependency.apply`: an
//! `Or` chain from `¬subject`; `conflict.apply`; `leq.apply`: `CardSort(ms).Leq(n)`).
//!
//! Why not plain clauses: how far unit propagation reaches through a sorting network depends on
//! where the members sit in it, and where the search finds a dead end decides where it
//! backtracks to, which can change OLM's answer. Runs of OLM's resolver showed such cases.

use std::collections::HashMap;

use super::problem::{Constraint, Problem};

/// A literal: variable `l >> 1`, negated when `l & 1`. Variable 0 is the constant true.
type Lit = u32;

const T: Lit = 0;
const F: Lit = 1;

fn not(l: Lit) -> Lit {
    l ^ 1
}

/// The circuit and its CNF.
#[derive(Debug)]
pub struct Circuit {
    /// AND gates: (variable, a, b).
    gates: Vec<(u32, Lit, Lit)>,
    strash: HashMap<(Lit, Lit), u32>,
    vars: u32,
    /// The literal of each problem variable.
    pub of_var: Vec<Lit>,
    /// The literal of each constraint that has one (OLM assumes them all).
    constraint_lits: Vec<Lit>,
    /// Clauses of the CNF, and for each literal the clauses it occurs in.
    clauses: Vec<Vec<Lit>>,
    occurs: Vec<Vec<u32>>,
}

impl Circuit {
    fn lit(&mut self) -> Lit {
        let v = self.vars;
        self.vars += 1;
        v << 1
    }

    /// `C.And` with gini's folding and hashing.
    fn and(&mut self, a: Lit, b: Lit) -> Lit {
        if a == b {
            return a;
        }
        if a == not(b) {
            return F;
        }
        let (a, b) = if a > b { (b, a) } else { (a, b) };
        if a == F {
            return F;
        }
        if a == T {
            return b;
        }
        if let Some(&v) = self.strash.get(&(a, b)) {
            return v << 1;
        }
        let g = self.lit();
        self.gates.push((g >> 1, a, b));
        self.strash.insert((a, b), g >> 1);
        g
    }

    fn or(&mut self, a: Lit, b: Lit) -> Lit {
        let nor = self.and(not(a), not(b));
        not(nor)
    }

    /// `CardSort(ms).Leq(n)`.
    fn leq(&mut self, members: &[Lit], n: usize) -> Lit {
        let count = members.len();
        if n >= count {
            return T;
        }
        let mut size = 1;
        while size < count {
            size <<= 1;
        }
        let mut ms: Vec<Lit> = members.to_vec();
        ms.resize(size, T);
        self.sort(&mut ms, 0, size);
        not(ms[(count - 1) - n])
    }

    fn sort(&mut self, ms: &mut [Lit], l: usize, h: usize) {
        if h - l <= 1 {
            return;
        }
        let m = l + (h - l) / 2;
        self.sort(ms, l, m);
        self.sort(ms, m, h);
        self.merge(ms, l, h, 1);
    }

    fn merge(&mut self, ms: &mut [Lit], l: usize, h: usize, s: usize) {
        if h <= l + s {
            return;
        }
        let ss = 2 * s;
        if ss >= h - l {
            self.cas(ms, l, l + s);
            return;
        }
        self.merge(ms, l, h, ss);
        self.merge(ms, l + s, h, ss);
        let lim = h - s;
        let mut i = l + s;
        while i < lim {
            self.cas(ms, i, i + s);
            i += ss;
        }
    }

    fn cas(&mut self, ms: &mut [Lit], i: usize, j: usize) {
        let (a, b) = (ms[i], ms[j]);
        let low = self.and(a, b);
        let high = self.or(a, b);
        ms[i] = low;
        ms[j] = high;
    }

    /// The circuit of a problem: one input per variable (in the problem's order), each
    /// constraint applied as OLM applies it.
    pub fn new(problem: &Problem) -> Circuit {
        let mut c = Circuit {
            gates: Vec::new(),
            strash: HashMap::new(),
            vars: 1,
            of_var: Vec::with_capacity(problem.vars.len()),
            constraint_lits: Vec::new(),
            clauses: Vec::new(),
            occurs: Vec::new(),
        };
        for _ in &problem.vars {
            let l = c.lit();
            c.of_var.push(l);
        }
        for (v, var) in problem.vars.iter().enumerate() {
            let subject = c.of_var[v];
            for constraint in problem.constraints_of(v) {
                let lit = match constraint {
                    Constraint::Mandatory(_) => subject,
                    Constraint::Prohibited(_) => not(subject),
                    Constraint::Dependency(_, k) => {
                        let mut m = not(subject);
                        for &cand in &var.deps[k].0 {
                            let l = c.of_var[cand];
                            m = c.or(m, l);
                        }
                        m
                    }
                    Constraint::Conflict(_, k) => {
                        let other = c.of_var[var.conflicts[k].0];
                        c.or(not(subject), not(other))
                    }
                    Constraint::AtMostOne(_) => unreachable!("groups are not a variable's"),
                };
                c.constraint_lits.push(lit);
            }
        }
        for group in &problem.groups {
            let members: Vec<Lit> = group.members.iter().map(|&m| c.of_var[m]).collect();
            let lit = c.leq(&members, 1);
            c.constraint_lits.push(lit);
        }
        // `ToCnf`: the constant, then three clauses per gate.
        c.clauses.push(vec![T]);
        let gates = std::mem::take(&mut c.gates);
        for &(g, a, b) in &gates {
            let g = g << 1;
            c.clauses.push(vec![not(g), a]);
            c.clauses.push(vec![not(g), b]);
            c.clauses.push(vec![g, not(a), not(b)]);
        }
        c.gates = gates;
        c.occurs = vec![Vec::new(); (c.vars as usize) * 2];
        for (i, clause) in c.clauses.iter().enumerate() {
            for &l in clause {
                c.occurs[l as usize].push(i as u32);
            }
        }
        c
    }

    /// gini's `Test`: unit propagation with every constraint literal and `assumed` (problem
    /// variables) true; `false` on a conflict.
    pub fn test(&self, assumed: &[usize]) -> bool {
        let mut value: Vec<Option<bool>> = vec![None; self.vars as usize];
        let mut queue: Vec<Lit> = Vec::new();
        let set = |value: &mut Vec<Option<bool>>, queue: &mut Vec<Lit>, l: Lit| -> bool {
            let v = (l >> 1) as usize;
            let want = l & 1 == 0;
            match value[v] {
                Some(x) => x == want,
                None => {
                    value[v] = Some(want);
                    queue.push(l);
                    true
                }
            }
        };
        let start = std::iter::once(T)
            .chain(self.constraint_lits.iter().copied())
            .chain(assumed.iter().map(|&v| self.of_var[v]));
        for l in start {
            if !set(&mut value, &mut queue, l) {
                return false;
            }
        }
        let holds = |value: &[Option<bool>], l: Lit| -> Option<bool> {
            value[(l >> 1) as usize].map(|x| x == (l & 1 == 0))
        };
        while let Some(l) = queue.pop() {
            // Clauses where `¬l` occurs lost a literal.
            for &ci in &self.occurs[not(l) as usize] {
                let clause = &self.clauses[ci as usize];
                let mut open = None;
                let mut open_count = 0;
                let mut satisfied = false;
                for &x in clause {
                    match holds(&value, x) {
                        Some(true) => {
                            satisfied = true;
                            break;
                        }
                        Some(false) => {}
                        None => {
                            open_count += 1;
                            open = Some(x);
                        }
                    }
                }
                if satisfied {
                    continue;
                }
                match open_count {
                    0 => return false,
                    1 if !set(&mut value, &mut queue, open.expect("one open literal")) => {
                        return false;
                    }
                    _ => {}
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_and_hashing_as_gini_does() {
        let mut c = Circuit {
            gates: Vec::new(),
            strash: HashMap::new(),
            vars: 1,
            of_var: Vec::new(),
            constraint_lits: Vec::new(),
            clauses: Vec::new(),
            occurs: Vec::new(),
        };
        let (a, b) = (c.lit(), c.lit());
        assert_eq!(c.and(a, a), a);
        assert_eq!(c.and(a, not(a)), F);
        assert_eq!(c.and(a, T), a);
        assert_eq!(c.and(F, b), F);
        let g = c.and(a, b);
        assert_eq!(c.and(b, a), g);
        assert_eq!(c.or(a, T), T);
        // At most one of three: the network over 4 inputs, one padded with true.
        assert_ne!(c.leq(&[a, b, g], 1), T);
        assert_eq!(c.leq(&[a], 1), T);
    }
}
