//! The problem OLM v0's solver is given: variables (subscriptions and bundles), their
//! constraints (`Mandatory`, `Prohibited`, `Dependency`, `Conflict`) and the `AtMost(1, …)`
//! groups, with OLM's messages.
//!
//! Upstream: OLM `resolver/solver/constraints.go` and `resolver/variable_types.go`. The
//! search that decides which variables hold is [`super::solver`]; gini's own consistency test
//! of the same problem is [`super::circuit`].

/// A constraint's message, in OLM's words (`PrettyConstraint`).
pub type Message = String;

/// One variable.
#[derive(Debug, Clone)]
pub struct Var {
    /// OLM's identifier (`subscription:NAME`, `catalog/namespace/channel/bundle`).
    pub id: String,
    /// `Mandatory`, with its message.
    pub mandatory: Option<Message>,
    /// `Prohibited`, with its message.
    pub prohibited: Option<Message>,
    /// `Dependency` constraints, in order: the candidates (best first) and the message.
    pub deps: Vec<(Vec<usize>, Message)>,
    /// `Conflict` constraints: the other variable and the message.
    pub conflicts: Vec<(usize, Message)>,
}

impl Var {
    /// A variable without constraints.
    pub fn new(id: impl Into<String>) -> Var {
        Var {
            id: id.into(),
            mandatory: None,
            prohibited: None,
            deps: Vec::new(),
            conflicts: Vec::new(),
        }
    }
}

/// `AtMost(1, …)`: at most one of the members holds.
#[derive(Debug, Clone)]
pub struct AtMostOne {
    /// The variables.
    pub members: Vec<usize>,
    /// The message.
    pub message: Message,
}

/// One constraint, for naming the ones a failure comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Constraint {
    /// A variable's `Mandatory`.
    Mandatory(usize),
    /// A variable's `Prohibited`.
    Prohibited(usize),
    /// A variable's `k`th `Dependency`.
    Dependency(usize, usize),
    /// A variable's `k`th `Conflict`.
    Conflict(usize, usize),
    /// An `AtMost` group.
    AtMostOne(usize),
}

/// The whole problem of one namespace.
#[derive(Debug, Clone, Default)]
pub struct Problem {
    /// Every variable.
    pub vars: Vec<Var>,
    /// Every at-most-one group.
    pub groups: Vec<AtMostOne>,
}

impl Problem {
    /// Every constraint of the problem: each variable's, in order, then the groups.
    pub fn constraints(&self) -> Vec<Constraint> {
        let mut out: Vec<Constraint> = (0..self.vars.len())
            .flat_map(|v| self.constraints_of(v))
            .collect();
        out.extend((0..self.groups.len()).map(Constraint::AtMostOne));
        out
    }

    /// The constraints of one variable.
    pub fn constraints_of(&self, v: usize) -> Vec<Constraint> {
        let var = &self.vars[v];
        let mut out = Vec::new();
        if var.mandatory.is_some() {
            out.push(Constraint::Mandatory(v));
        }
        if var.prohibited.is_some() {
            out.push(Constraint::Prohibited(v));
        }
        out.extend((0..var.deps.len()).map(|k| Constraint::Dependency(v, k)));
        out.extend((0..var.conflicts.len()).map(|k| Constraint::Conflict(v, k)));
        out
    }

    /// A constraint's message.
    pub fn message(&self, c: Constraint) -> &str {
        match c {
            Constraint::Mandatory(v) => self.vars[v].mandatory.as_deref().unwrap_or(""),
            Constraint::Prohibited(v) => self.vars[v].prohibited.as_deref().unwrap_or(""),
            Constraint::Dependency(v, k) => &self.vars[v].deps[k].1,
            Constraint::Conflict(v, k) => &self.vars[v].conflicts[k].1,
            Constraint::AtMostOne(g) => &self.groups[g].message,
        }
    }
}
