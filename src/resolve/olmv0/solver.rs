//! OLM v0's solver: variables with constraints, and the search that decides which of them
//! hold.
//!
//! Upstream: OLM `resolver/solver/` (`search.go`, `solve.go`, `constraints.go`) and the
//! variables of `resolver/variable_types.go`. A Subscription is a mandatory variable that
//! depends on its candidate bundles, in preference order; a bundle depends, for each of its
//! dependency predicates, on the bundles that satisfy it, in preference order; at most one
//! bundle per package and one provider per API may hold; a deprecated bundle is prohibited.
//!
//! The search is OLM's: the mandatory variables (the *anchors*) are guessed first, then, in
//! breadth-first order, each guessed variable's dependency lists are taken one by one, and the
//! first candidate of a list that keeps the problem satisfiable is guessed (a list that an
//! earlier guess already satisfies is skipped); on a dead end the search backtracks to the
//! latest guess and tries its next candidate. The answer is exactly the guessed variables
//! (OLM then minimises the extra true variables, and with every dependency list satisfied by a
//! guess, none is needed).
//!
//! Where OLM asks gini's unit propagation whether a guess is consistent, this asks its own,
//! weaker check ([`Search::consistent`]); the final check of a full assignment is exact in
//! both. Both checks only ever stop a branch that has no solution, so the two searches visit
//! the branches that have one in the same order and stop at the same first solution.
//!
//! The anchors' order is Go's map order in OLM, so it varies between runs;
//! [`Problem::solve`] tries every order of the anchors that pull in bundles and reports when
//! they disagree.

use std::collections::VecDeque;

pub use super::problem::{AtMostOne, Constraint, Message, Problem, Var};

/// How a search ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The variables that hold, sorted.
    Solved(Vec<usize>),
    /// No assignment satisfies the constraints.
    Unsatisfiable,
    /// The search ran out of steps.
    TooComplex,
    /// A solution exists, but which one OLM takes is its SAT solver's own choice (after a
    /// backtrack left a dependency list without a guess).
    SolverChoice,
}

/// The most guesses one search may make before giving up.
pub const MAX_GUESSES: usize = 2_000_000;

/// How many anchor orders are tried for the order check (all of them up to 6 anchors).
const MAX_ORDERS: usize = 720;

impl Problem {
    /// Solve with the anchors in `anchors` order (the variables with `Mandatory`, as OLM lists
    /// its input).
    pub fn solve_in_order(&self, anchors: &[usize]) -> Outcome {
        Search::new(self, anchors).run()
    }

    /// Solve, trying every order of the anchors that have dependencies (OLM's order is a Go
    /// map's). `Ok` when every order gives the same answer; `Err` with two answers that differ.
    pub fn solve(&self) -> Result<Outcome, (Outcome, Outcome)> {
        let anchors: Vec<usize> = (0..self.vars.len())
            .filter(|&v| self.vars[v].mandatory.is_some())
            .collect();
        let first = self.solve_in_order(&anchors);
        let movable: Vec<usize> = anchors
            .iter()
            .copied()
            .filter(|&v| !self.vars[v].deps.is_empty())
            .collect();
        if movable.len() < 2 || !matches!(first, Outcome::Solved(_)) {
            return Ok(first);
        }
        let fixed: Vec<usize> = anchors
            .iter()
            .copied()
            .filter(|v| !movable.contains(v))
            .collect();
        for order in permutations(&movable, MAX_ORDERS).into_iter().skip(1) {
            let mut all = order.clone();
            all.extend(&fixed);
            let other = self.solve_in_order(&all);
            if other == Outcome::SolverChoice {
                // That order leaves the answer to gini: no answer holds for every order.
                return Ok(Outcome::SolverChoice);
            }
            if other != first {
                return Err((first, other));
            }
        }
        Ok(first)
    }

    /// A minimal set of constraints that cannot hold together (each one is needed for the
    /// failure), found by dropping constraints one at a time; `None` when a check ran out of
    /// steps.
    pub fn minimal_conflict(&self) -> Option<Vec<Constraint>> {
        let all = self.constraints();
        let mut enabled = vec![true; all.len()];
        let mut budget = MAX_GUESSES;
        for i in 0..all.len() {
            enabled[i] = false;
            let on: std::collections::HashMap<Constraint, bool> =
                all.iter().copied().zip(enabled.iter().copied()).collect();
            let formula = Formula::new(self, &|c| on.get(&c).copied().unwrap_or(false));
            if formula.satisfiable(&[], &mut budget).ok()? {
                enabled[i] = true;
            }
        }
        Some(
            all.iter()
                .zip(&enabled)
                .filter(|(_, on)| **on)
                .map(|(c, _)| *c)
                .collect(),
        )
    }
}

/// Up to `limit` orders of `items`, the given order first.
fn permutations(items: &[usize], limit: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut current = items.to_vec();
    // Heap's algorithm, iterative.
    let n = current.len();
    let mut c = vec![0usize; n];
    out.push(current.clone());
    let mut i = 0;
    while i < n && out.len() < limit {
        if c[i] < i {
            if i % 2 == 0 {
                current.swap(0, i);
            } else {
                current.swap(c[i], i);
            }
            out.push(current.clone());
            c[i] += 1;
            i = 0;
        } else {
            c[i] = 0;
            i += 1;
        }
    }
    out
}

/// A literal: a variable, true or false.
type Lit = (usize, bool);

/// The formula OLM hands gini: one clause per dependency, conflict and prohibition, and the
/// at-most-one groups (whose sorting networks propagate as the constraint itself does: one
/// member true makes the others false, two true is a conflict).
struct Formula {
    /// Clauses, each a list of literals.
    clauses: Vec<Vec<Lit>>,
    /// Per variable: the clauses it occurs in, positively.
    pos: Vec<Vec<usize>>,
    /// Per variable: the clauses it occurs in, negated.
    neg: Vec<Vec<usize>>,
    /// Per variable: the groups it is a member of.
    member_of: Vec<Vec<usize>>,
    /// Each group's members.
    groups: Vec<Vec<usize>>,
    /// Units: mandatory variables true, prohibited ones false.
    units: Vec<Lit>,
    /// Per variable: its dependency clauses (index in `clauses`), for the leaf check.
    deps_of: Vec<Vec<usize>>,
    /// Per variable: listed twice in an at-most-one group, so true is a conflict.
    doubled: Vec<bool>,
}

impl Formula {
    fn new(problem: &Problem, on: &dyn Fn(Constraint) -> bool) -> Formula {
        let n = problem.vars.len();
        let mut f = Formula {
            clauses: Vec::new(),
            pos: vec![Vec::new(); n],
            neg: vec![Vec::new(); n],
            member_of: vec![Vec::new(); n],
            groups: Vec::new(),
            units: Vec::new(),
            deps_of: vec![Vec::new(); n],
            doubled: vec![false; n],
        };
        let add = |f: &mut Formula, clause: Vec<Lit>| -> usize {
            let i = f.clauses.len();
            for &(v, positive) in &clause {
                if positive {
                    f.pos[v].push(i);
                } else {
                    f.neg[v].push(i);
                }
            }
            f.clauses.push(clause);
            i
        };
        for (v, var) in problem.vars.iter().enumerate() {
            if var.mandatory.is_some() && on(Constraint::Mandatory(v)) {
                f.units.push((v, true));
            }
            if var.prohibited.is_some() && on(Constraint::Prohibited(v)) {
                f.units.push((v, false));
            }
            for (k, (cands, _)) in var.deps.iter().enumerate() {
                if on(Constraint::Dependency(v, k)) {
                    let mut clause = vec![(v, false)];
                    clause.extend(cands.iter().map(|&c| (c, true)));
                    let i = add(&mut f, clause);
                    f.deps_of[v].push(i);
                }
            }
            for (k, (other, _)) in var.conflicts.iter().enumerate() {
                if on(Constraint::Conflict(v, k)) {
                    add(&mut f, vec![(v, false), (*other, false)]);
                }
            }
        }
        for (g, group) in problem.groups.iter().enumerate() {
            if on(Constraint::AtMostOne(g)) {
                let index = f.groups.len();
                let mut members = group.members.clone();
                members.sort_unstable();
                for pair in members.windows(2) {
                    if pair[0] == pair[1] {
                        // Listed twice, it counts twice: it can never hold. gini's sorting
                        // network finds that only once it is true, not before.
                        f.doubled[pair[0]] = true;
                    }
                }
                members.dedup();
                for &m in &members {
                    f.member_of[m].push(index);
                }
                f.groups.push(members);
            }
        }
        f
    }

    /// Unit propagation from the units and `assumptions` (gini's `Test`): the assignment, or
    /// `None` on a conflict.
    fn propagate(&self, assumptions: &[usize], extra: &[Lit]) -> Option<Vec<Option<bool>>> {
        let mut value: Vec<Option<bool>> = vec![None; self.pos.len()];
        let mut queue: Vec<Lit> = Vec::new();
        let set = |value: &mut Vec<Option<bool>>, queue: &mut Vec<Lit>, (v, b): Lit| -> bool {
            match value[v] {
                Some(x) => x == b,
                None => {
                    value[v] = Some(b);
                    queue.push((v, b));
                    true
                }
            }
        };
        let assumed = assumptions.iter().map(|&v| (v, true));
        // One-literal clauses (a dependency without candidates) hold from the start.
        let unit_clauses = self.clauses.iter().filter(|c| c.len() == 1).map(|c| c[0]);
        for l in self
            .units
            .iter()
            .copied()
            .chain(unit_clauses)
            .chain(assumed)
            .chain(extra.iter().copied())
        {
            if !set(&mut value, &mut queue, l) {
                return None;
            }
        }
        while let Some((v, b)) = queue.pop() {
            if b && self.doubled[v] {
                return None;
            }
            if b {
                for &g in &self.member_of[v] {
                    for &m in &self.groups[g] {
                        if m != v && !set(&mut value, &mut queue, (m, false)) {
                            return None;
                        }
                    }
                }
            }
            // The clauses where this assignment made a literal false.
            let falsified = if b { &self.neg[v] } else { &self.pos[v] };
            for &c in falsified {
                let mut open: Option<Lit> = None;
                let mut open_count = 0;
                let mut satisfied = false;
                for &(x, positive) in &self.clauses[c] {
                    match value[x] {
                        Some(val) if val == positive => {
                            satisfied = true;
                            break;
                        }
                        Some(_) => {}
                        None => {
                            open_count += 1;
                            open = Some((x, positive));
                        }
                    }
                }
                if satisfied {
                    continue;
                }
                match open_count {
                    0 => return None,
                    1 if !set(&mut value, &mut queue, open.expect("one open literal")) => {
                        return None;
                    }
                    _ => {}
                }
            }
        }
        Some(value)
    }

    /// Whether some assignment extends `assumptions` (DPLL over the dependency clauses of the
    /// true variables), within `budget` branches. `Err(())` when the budget ran out.
    fn satisfiable(&self, assumptions: &[usize], budget: &mut usize) -> Result<bool, ()> {
        self.dpll(assumptions, &mut Vec::new(), budget)
    }

    fn dpll(
        &self,
        assumptions: &[usize],
        extra: &mut Vec<Lit>,
        budget: &mut usize,
    ) -> Result<bool, ()> {
        if *budget == 0 {
            return Err(());
        }
        *budget -= 1;
        let Some(value) = self.propagate(assumptions, extra) else {
            return Ok(false);
        };
        match self.open_clause(&value) {
            None => Ok(true),
            Some(c) => {
                let open: Vec<usize> = self.clauses[c]
                    .iter()
                    .filter(|(x, positive)| *positive && value[*x].is_none())
                    .map(|(x, _)| *x)
                    .collect();
                let before = extra.len();
                for &x in &open {
                    extra.push((x, true));
                    let r = self.dpll(assumptions, extra, budget);
                    extra.pop();
                    if r? {
                        extra.truncate(before);
                        return Ok(true);
                    }
                    // Not this one: the next branches may assume it false.
                    extra.push((x, false));
                }
                extra.truncate(before);
                Ok(false)
            }
        }
    }

    /// A dependency clause of a true variable that no true candidate satisfies yet (after
    /// propagation, it has two open candidates or more).
    fn open_clause(&self, value: &[Option<bool>]) -> Option<usize> {
        for (v, clauses) in self.deps_of.iter().enumerate() {
            if value[v] != Some(true) {
                continue;
            }
            for &c in clauses {
                if !self.clauses[c][1..]
                    .iter()
                    .any(|(x, _)| value[*x] == Some(true))
                {
                    return Some(c);
                }
            }
        }
        None
    }
}

/// How the search's last word on the guesses so far stands (`h.result`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Test {
    Unsatisfiable,
    Unknown,
}

/// Where a choice's candidates come from.
#[derive(Debug, Clone, Copy)]
enum Source {
    /// An anchor: the variable itself.
    Anchor(usize),
    /// A variable's `k`th dependency list.
    Dependency(usize, usize),
}

#[derive(Debug, Clone, Copy)]
struct Choice {
    source: Source,
    /// Index of the next candidate to guess.
    index: usize,
    /// How many variables were assumed when a candidate of it was last rejected.
    depth: Option<usize>,
    /// Whether an assumption one of its rejections rested on has been taken back since, so
    /// that its index is past candidates that could hold now (OLM goes on from the index).
    stale: bool,
}

#[derive(Debug, Clone, Copy)]
struct Guess {
    /// The guessed variable; `None` when an earlier guess satisfied the choice, or when the
    /// choice had no candidate left.
    m: Option<usize>,
    index: usize,
    children: usize,
    source: Source,
    depth: Option<usize>,
    stale: bool,
}

/// The end of a search that found no plain answer.
#[derive(Debug, Clone, PartialEq, Eq)]
enum End {
    /// The guesses hold, and nothing else is true.
    Holds,
    /// Nothing extends the guesses.
    Fails,
    /// Something extends them, but which variables gini's model sets is its own choice.
    SolverChoice,
}

/// One search (`search.go` `Do`, then `solve.go`'s final check and minimisation).
struct Search<'p> {
    problem: &'p Problem,
    formula: Formula,
    /// The same constraints as gini's circuit, for `Test`.
    circuit: super::circuit::Circuit,
    /// The anchors, assumed from the start (the baseline test scope).
    anchors: Vec<usize>,
    /// The search's own assumptions (`h.assumptions`): the guessed variables.
    assumed: Vec<bool>,
    guessed: Vec<usize>,
    budget: usize,
}

impl<'p> Search<'p> {
    fn new(problem: &'p Problem, anchors: &[usize]) -> Search<'p> {
        Search {
            problem,
            formula: Formula::new(problem, &|_| true),
            circuit: super::circuit::Circuit::new(problem),
            anchors: anchors.to_vec(),
            assumed: vec![false; problem.vars.len()],
            guessed: Vec::new(),
            budget: MAX_GUESSES,
        }
    }

    /// gini's `Test` with the baseline and the guesses assumed.
    fn test(&self) -> Test {
        let mut all = self.anchors.clone();
        all.extend(&self.guessed);
        if self.circuit.test(&all) {
            Test::Unknown
        } else {
            Test::Unsatisfiable
        }
    }

    /// The final check once every choice is made (`Solve`, then the minimisation).
    fn finish(&mut self) -> Result<End, ()> {
        let mut all = self.anchors.clone();
        all.extend(&self.guessed);
        let Some(value) = self.formula.propagate(&all, &[]) else {
            return Ok(End::Fails);
        };
        let extra = (0..value.len()).any(|v| value[v] == Some(true) && !self.assumed[v]);
        if !extra && self.formula.open_clause(&value).is_none() {
            return Ok(End::Holds);
        }
        // A backtrack left a dependency list without a guess (its index past the end): OLM
        // then lets gini solve the rest and keeps the fewest true variables of gini's model
        // that still satisfy everything. Runs of OLM's own resolver over such cases gave
        // answers that varied between runs, some of them leaving a Subscription without a
        // bundle, so no answer is given here.
        if !self.formula.satisfiable(&all, &mut self.budget)? {
            return Ok(End::Fails);
        }
        Ok(End::SolverChoice)
    }

    fn run(mut self) -> Outcome {
        // The baseline scope: every anchor and constraint assumed.
        if self.test() == Test::Unsatisfiable {
            return Outcome::Unsatisfiable;
        }
        let mut choices: VecDeque<Choice> = self
            .anchors
            .iter()
            .map(|&a| Choice {
                source: Source::Anchor(a),
                index: 0,
                depth: None,
                stale: false,
            })
            .collect();
        let mut guesses: Vec<Guess> = Vec::new();
        let mut result = Test::Unknown;
        let mut steps = 0usize;
        loop {
            if choices.is_empty() && result == Test::Unknown {
                match self.finish() {
                    Err(()) => return Outcome::TooComplex,
                    Ok(End::Fails) => result = Test::Unsatisfiable,
                    Ok(End::SolverChoice) => return Outcome::SolverChoice,
                    Ok(End::Holds) if guesses.iter().any(|g| g.stale) => {
                        // A choice went on from an index past candidates that hold now: where
                        // OLM's index stands then rests on the clauses gini learned, and
                        // runs of OLM's resolver gave different answers.
                        return Outcome::SolverChoice;
                    }
                    Ok(End::Holds) => {
                        let mut held: Vec<usize> = guesses.iter().filter_map(|g| g.m).collect();
                        held.sort_unstable();
                        held.dedup();
                        return Outcome::Solved(held);
                    }
                }
            }
            if result == Test::Unsatisfiable {
                let Some(g) = guesses.pop() else {
                    return Outcome::Unsatisfiable;
                };
                // PopGuess: a real guess is untested (its scope's result was not unsat, or
                // the search would not have gone on from it).
                if let Some(m) = g.m {
                    self.assumed[m] = false;
                    self.guessed.pop();
                    result = Test::Unknown;
                }
                for _ in 0..g.children {
                    choices.pop_back();
                }
                let now = self.guessed.len();
                for c in choices.iter_mut() {
                    if c.depth.is_some_and(|d| d > now) {
                        c.stale = true;
                    }
                }
                choices.push_front(Choice {
                    source: g.source,
                    index: g.index + usize::from(g.m.is_some()),
                    depth: if g.m.is_some() { Some(now) } else { g.depth },
                    stale: g.stale || g.depth.is_some_and(|d| d > now),
                });
                continue;
            }
            let Some(choice) = choices.pop_front() else {
                unreachable!("the final check ran above");
            };
            steps += 1;
            if steps > MAX_GUESSES {
                return Outcome::TooComplex;
            }
            // PushGuess.
            let anchor_slot;
            let candidates: &[usize] = match choice.source {
                Source::Anchor(a) => {
                    anchor_slot = [a];
                    &anchor_slot
                }
                Source::Dependency(v, k) => &self.problem.vars[v].deps[k].0,
            };
            let satisfied = candidates.iter().any(|&c| self.assumed[c]);
            let mut guess = Guess {
                m: candidates.get(choice.index).copied(),
                index: choice.index,
                children: 0,
                source: choice.source,
                depth: choice.depth,
                // A stale choice matters unless an assumption satisfies it anyway.
                stale: choice.stale && !satisfied,
            };
            if satisfied {
                guess.m = None;
            }
            let Some(m) = guess.m else {
                guesses.push(guess);
                continue;
            };
            let problem = self.problem;
            for (k, (cands, _)) in problem.vars[m].deps.iter().enumerate() {
                if !cands.is_empty() {
                    guess.children += 1;
                    choices.push_back(Choice {
                        source: Source::Dependency(m, k),
                        index: 0,
                        depth: None,
                        stale: false,
                    });
                }
            }
            guesses.push(guess);
            self.assumed[m] = true;
            self.guessed.push(m);
            result = self.test();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(id: &str) -> Var {
        Var::new(id)
    }

    /// sub -> [a, b]; a -> needs [c]; c prohibited: b wins.
    #[test]
    fn the_first_candidate_that_can_hold_wins() {
        let mut p = Problem::default();
        let mut sub = var("subscription:s");
        sub.mandatory = Some("subscription s exists".into());
        sub.deps
            .push((vec![1, 2], "subscription s requires a or b".into()));
        let mut a = var("a");
        a.deps.push((vec![3], "a requires c".into()));
        let b = var("b");
        let mut c = var("c");
        c.prohibited = Some("c is deprecated".into());
        p.vars = vec![sub, a, b, c];
        assert_eq!(p.solve(), Ok(Outcome::Solved(vec![0, 2])));
        // Without the prohibition, the head wins with its dependency.
        p.vars[3].prohibited = None;
        assert_eq!(p.solve(), Ok(Outcome::Solved(vec![0, 1, 3])));
    }

    /// Two subscriptions share a dependency: the second reuses the first's pick.
    #[test]
    fn a_dependency_already_chosen_is_reused() {
        let mut p = Problem::default();
        let mut s1 = var("subscription:one");
        s1.mandatory = Some("m".into());
        s1.deps.push((vec![2], "one".into()));
        let mut s2 = var("subscription:two");
        s2.mandatory = Some("m".into());
        s2.deps.push((vec![3], "two".into()));
        let mut a = var("a");
        a.deps.push((vec![4, 5], "a needs d".into()));
        let mut b = var("b");
        b.deps.push((vec![5, 4], "b needs d".into()));
        p.vars = vec![s1, s2, a, b, var("d2"), var("d1")];
        p.groups.push(AtMostOne {
            members: vec![4, 5],
            message: "one d".into(),
        });
        // Order one, two: a's list is taken first, so d2; b's list is then satisfied.
        assert_eq!(
            p.solve_in_order(&[0, 1]),
            Outcome::Solved(vec![0, 1, 2, 3, 4])
        );
        // The other order prefers d1: OLM's answer depends on map order.
        assert_eq!(
            p.solve_in_order(&[1, 0]),
            Outcome::Solved(vec![0, 1, 2, 3, 5])
        );
        assert!(p.solve().is_err());
    }

    #[test]
    fn unsatisfiable_problems_name_a_minimal_conflict() {
        let mut p = Problem::default();
        let mut s1 = var("subscription:one");
        s1.mandatory = Some("subscription one exists".into());
        s1.deps
            .push((vec![2], "subscription one requires a".into()));
        let mut s2 = var("subscription:two");
        s2.mandatory = Some("subscription two exists".into());
        s2.deps
            .push((vec![3], "subscription two requires b".into()));
        let mut unrelated = var("subscription:three");
        unrelated.mandatory = Some("subscription three exists".into());
        unrelated
            .deps
            .push((vec![4], "subscription three requires c".into()));
        p.vars = vec![s1, s2, unrelated, var("a"), var("b")];
        // Fix the indexes: one -> a (3), two -> b (4), three -> nothing it can have.
        p.vars[0].deps[0].0 = vec![3];
        p.vars[1].deps[0].0 = vec![4];
        p.vars[2].deps[0].0 = vec![];
        p.groups.push(AtMostOne {
            members: vec![3, 4],
            message: "a and b provide the same API".into(),
        });
        assert_eq!(p.solve(), Ok(Outcome::Unsatisfiable));
        let core = p.minimal_conflict().unwrap();
        let messages: Vec<&str> = core.iter().map(|c| p.message(*c)).collect();
        // Either failure alone is a minimal conflict; dropping constraints one by one from the
        // front keeps the last one found.
        assert!(
            messages == ["subscription three exists", "subscription three requires c"]
                || messages
                    == [
                        "subscription one exists",
                        "subscription one requires a",
                        "subscription two exists",
                        "subscription two requires b",
                        "a and b provide the same API"
                    ],
            "{messages:?}"
        );
    }

    #[test]
    fn backtracking_reaches_past_a_dead_end() {
        // sub -> [a, b]; a -> [c, d]; c conflicts with everything via group with e;
        // e is mandatory-ish through sub2; d prohibited. So a fails, b wins.
        let mut p = Problem::default();
        let mut sub = var("subscription:s");
        sub.mandatory = Some("m".into());
        sub.deps.push((vec![2, 3], "s".into()));
        let mut sub2 = var("subscription:t");
        sub2.mandatory = Some("m".into());
        sub2.deps.push((vec![6], "t".into()));
        let mut a = var("a");
        a.deps.push((vec![4, 5], "a".into()));
        let b = var("b");
        let c = var("c");
        let mut d = var("d");
        d.prohibited = Some("d".into());
        let e = var("e");
        p.vars = vec![sub, sub2, a, b, c, d, e];
        p.groups.push(AtMostOne {
            members: vec![4, 6],
            message: "c and e".into(),
        });
        // Both anchors hold from the baseline on, so e (t's only candidate) is propagated
        // before anything is guessed: guessing a leaves its list [c, d] without a candidate
        // at once, and the search backtracks to b in either order.
        assert_eq!(p.solve_in_order(&[0, 1]), Outcome::Solved(vec![0, 1, 3, 6]));
        assert_eq!(p.solve_in_order(&[1, 0]), Outcome::Solved(vec![0, 1, 3, 6]));
    }

    #[test]
    fn heaps_algorithm_gives_every_order_once() {
        let all = permutations(&[1, 2, 3, 4], 1000);
        assert_eq!(all.len(), 24);
        let mut sorted = all.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 24);
        assert_eq!(all[0], vec![1, 2, 3, 4]);
        assert_eq!(permutations(&[1, 2, 3, 4], 5).len(), 5);
    }
}
