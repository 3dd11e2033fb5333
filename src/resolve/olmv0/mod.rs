//! OLM v0's resolver: what the catalog operator installs for the Subscriptions of one
//! namespace, given the CatalogSources it can see and the CSVs already there.
//!
//! This is the resolver behind the subscription profile (`profile: subscription`), beside OLM
//! v1's selection in [`super`]. The rules are OLM v0's, read from operator-framework-olm
//! (`staging/operator-lifecycle-manager/pkg/controller/registry/resolver/`, unchanged from
//! release-4.12 to 5.1; `reference/olm-v0.md` §1):
//!
//! - All Subscriptions of a namespace resolve together ([`resolve`]).
//! - A Subscription's candidates are the bundles of its package in its catalog and channel
//!   (every channel when none is named), the default channel first, then the other channels by
//!   name, each channel head first along its `replaces` chain without the bundles some entry
//!   `skips` ([`order`]); with `startingCSV` and nothing installed, only that bundle.
//! - A bundle's dependencies (`olm.package.required`, `olm.gvk.required`, `olm.label.required`,
//!   `olm.constraint`: [`predicate`]) are looked for in every visible catalog: each whole
//!   (catalog, package, channel) that holds a match, ordered `@existing` first, then the
//!   dependent's own catalog, then higher priority, then the namespace's own catalogs, then by
//!   name; within a catalog default channels first, then package and channel names, each
//!   channel in chain order; then only the matches are kept.
//! - At most one bundle per package and one provider per API; `olm.deprecated` is prohibited.
//! - The search ([`solver`]) takes the first candidate that can hold, breadth first from the
//!   Subscriptions.
//!
//! It does not check install modes, `minKubeVersion` or `olm.maxOpenShiftVersion` (OLM does
//! not either); the caller runs those checks on what it picked. FBC deprecations
//! (`olm.deprecations`) do not change what OLM v0 picks. [`walk`] follows Automatic approval
//! from what is installed first to where the channel ends.

pub mod cel;
mod circuit;
pub mod entry;
pub mod order;
pub mod predicate;
pub mod problem;
pub mod solver;
pub mod walk;

use std::collections::HashMap;

pub use entry::{Installed, Source, SourceKey};

use entry::Cache;
use predicate::Predicate;
use solver::{AtMostOne, Constraint, Outcome, Problem, Var};

/// A Subscription, as far as the resolver reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subscription {
    /// `metadata.name`.
    pub name: String,
    /// `spec.name`: the package.
    pub package: String,
    /// `spec.channel`; empty for every channel.
    pub channel: String,
    /// `spec.startingCSV`; empty for none.
    pub starting_csv: String,
    /// `spec.source` and `spec.sourceNamespace`.
    pub source: SourceKey,
    /// `status.installedCSV`: what is installed for it, if anything.
    pub installed: Option<String>,
}

/// One namespace's resolution request.
#[derive(Debug, Clone, Copy)]
pub struct Query<'q, 'a> {
    /// The namespace.
    pub namespace: &'q str,
    /// Every CatalogSource the namespace sees (its own and the global namespace's).
    pub sources: &'q [Source<'a>],
    /// Its Subscriptions.
    pub subscriptions: &'q [Subscription],
    /// The CSVs installed in it.
    pub installed: &'q [Installed<'a>],
}

/// A bundle the resolver installs.
#[derive(Debug, Clone)]
pub struct Pick<'a> {
    /// The bundle.
    pub bundle: &'a crate::catalog::model::Bundle,
    /// Its catalog.
    pub catalog: SourceKey,
    /// The channel entry it was picked as (see [`Pick::channels`] for the others it is in).
    pub channel: String,
    /// The installed CSV it replaces, for an upgrade.
    pub replaces: Option<String>,
    /// The Subscription it is the answer to: `None` for a dependency OLM pulls in (it then
    /// creates a Subscription for it).
    pub subscription: Option<String>,
    /// The bundles installed with it whose dependencies it is the first to satisfy (names).
    pub required_by: Vec<String>,
}

/// The outcome of one namespace's resolution.
#[derive(Debug, Clone)]
pub struct Resolved<'a> {
    /// The bundles to install (new ones; installed CSVs that stay are not listed), by name.
    pub picks: Vec<Pick<'a>>,
    /// The installed CSVs that stay, by name.
    pub kept: Vec<String>,
}

/// Why a namespace does not resolve.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    /// OLM fails before solving: a catalog's channel has no order, a dependency property does
    /// not parse, … (OLM's aggregate of errors).
    #[error("{}", .0.join("; "))]
    Invalid(Vec<String>),
    /// No choice satisfies every constraint; the constraints of a minimal conflict, in OLM's
    /// words (`constraints not satisfiable: …`).
    #[error("constraints not satisfiable: {}", .0.join(", "))]
    NotSatisfiable(Vec<String>),
    /// The answer depends on the order OLM happens to take the Subscriptions in (a Go map's).
    #[error(
        "OLM v0's answer depends on the order it takes the Subscriptions in, which varies between runs: once {first}, once {second}"
    )]
    OrderDependent {
        /// One answer.
        first: String,
        /// Another.
        second: String,
    },
    /// After a backtrack, a dependency list was left without a guess, and more than one
    /// bundle could satisfy it: which one OLM installs is the choice of its SAT solver's model.
    #[error(
        "OLM v0's answer here is its SAT solver's own choice: after backtracking, a dependency was left for the solver to satisfy and more than one bundle can"
    )]
    SolverChoice,
    /// The search did not finish within its step limit.
    #[error("the resolution did not finish within {} guesses", solver::MAX_GUESSES)]
    TooComplex,
}

/// What a variable stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    Subscription(usize),
    Entry(usize),
}

/// The problem of one namespace, with what each variable stands for.
struct Builder<'c, 'a> {
    cache: &'c Cache<'a>,
    namespace: &'c str,
    problem: Problem,
    origins: Vec<Origin>,
    by_entry: HashMap<usize, usize>,
    /// Entries whose dependencies are computed.
    visited: HashMap<usize, ()>,
    /// Upgrade candidates, with the installed CSV each would replace.
    replaces: HashMap<usize, String>,
    errors: Vec<String>,
}

impl<'c, 'a> Builder<'c, 'a> {
    fn var_of(&mut self, entry: usize) -> usize {
        if let Some(&v) = self.by_entry.get(&entry) {
            return v;
        }
        let e = &self.cache.entries[entry];
        let mut var = Var::new(bundle_id(self.cache, entry));
        if let Some(i) = e.installed
            && self.cache.installed[i].subscription.is_none()
        {
            var.mandatory = Some(format!(
                "clusterserviceversion {} exists and is not referenced by a subscription",
                e.bundle.name
            ));
        }
        if self.cache.props_of(entry).deprecated {
            var.prohibited = Some(format!("bundle {} is deprecated", var.id));
        }
        let v = self.problem.vars.len();
        self.problem.vars.push(var);
        self.origins.push(Origin::Entry(entry));
        self.by_entry.insert(entry, v);
        v
    }

    /// `getBundleVariables`: variables for these entries and, transitively, every candidate
    /// of their dependencies.
    fn bundle_variables(&mut self, stack: Vec<usize>) {
        let mut stack = stack;
        while let Some(entry) = stack.pop() {
            let v = self.var_of(entry);
            if self.visited.insert(entry, ()).is_some() {
                continue;
            }
            let e = &self.cache.entries[entry];
            let bundle_name = e.bundle.name.clone();
            let own_catalog = self.cache.sources[e.source].key.clone();
            let mut predicates = Vec::new();
            for p in &self.cache.props_of(entry).list {
                match Predicate::of_property(&p.ty, &p.value) {
                    Ok(Some(pred)) => predicates.push(pred),
                    Ok(None) => {}
                    Err(err) => self.errors.push(err.0),
                }
            }
            for d in predicates {
                // Every (catalog, package, channel) holding a match, then the matches among
                // them in preference order.
                let matches = d.matches(self.cache);
                let mut groups: Vec<(usize, &str, &str)> = Vec::new();
                let mut existing: Vec<usize> = Vec::new();
                for &m in &matches {
                    let me = &self.cache.entries[m];
                    if me.installed.is_some() {
                        existing.push(m);
                    } else {
                        groups.push((me.source, me.package, me.channel));
                    }
                }
                groups.sort_unstable();
                groups.dedup();
                let mut pool: Vec<usize> = existing;
                for (source, package, channel) in &groups {
                    pool.extend(self.cache.of_package(package).iter().copied().filter(|&i| {
                        let x = &self.cache.entries[i];
                        x.source == *source && x.channel == *channel && x.package == *package
                    }));
                }
                pool.sort_unstable();
                pool.dedup();
                let catalogs = order::catalog_order(self.cache, Some(&own_catalog), self.namespace);
                let sorted = match order::dependency_order(self.cache, &catalogs, &pool) {
                    Ok(s) => s,
                    Err(err) => {
                        self.errors.push(err.0);
                        continue;
                    }
                };
                let mut candidates = Vec::new();
                for c in sorted {
                    if d.test(self.cache, c) {
                        candidates.push(self.var_of(c));
                        stack.push(c);
                    }
                }
                self.problem.vars[v].deps.push((
                    candidates,
                    format!("bundle {bundle_name} requires an operator {d}"),
                ));
            }
        }
    }

    /// `getSubscriptionVariables`.
    fn subscription_variable(&mut self, index: usize, sub: &Subscription) {
        let id = format!("subscription:{}", sub.name);
        let mut var = Var::new(id.clone());
        var.mandatory = Some(format!("subscription {} exists", sub.name));
        let source = self
            .cache
            .sources
            .iter()
            .position(|s| s.key == sub.source && !s.key.is_existing());
        let current: Option<usize> = sub.installed.as_deref().and_then(|name| {
            self.cache
                .entries
                .iter()
                .position(|e| e.installed.is_some() && e.bundle.name == name)
        });
        // The counting filters, for the message of a Subscription that matches nothing.
        let catalog_has_entries =
            source.is_some_and(|s| self.cache.entries.iter().any(|e| e.source == s));
        let in_package: Vec<usize> = match source {
            Some(s) => self
                .cache
                .of_package(&sub.package)
                .iter()
                .copied()
                .filter(|&i| self.cache.entries[i].source == s)
                .filter(|&i| Predicate::Package(sub.package.clone()).test(self.cache, i))
                .collect(),
            None => Vec::new(),
        };
        let in_channel: Vec<usize> = in_package
            .iter()
            .copied()
            .filter(|&i| sub.channel.is_empty() || self.cache.entries[i].channel == sub.channel)
            .collect();
        let with_name: Vec<usize> = in_channel
            .iter()
            .copied()
            .filter(|&i| {
                current.is_some()
                    || sub.starting_csv.is_empty()
                    || self.cache.entries[i].bundle.name == sub.starting_csv
            })
            .collect();
        let invalid = if !catalog_has_entries {
            Some(format!(
                "no operators found from catalog {} in namespace {} referenced by subscription {}",
                sub.source.name, sub.source.namespace, sub.name
            ))
        } else if in_package.is_empty() {
            Some(format!(
                "no operators found in package {} in the catalog referenced by subscription {}",
                sub.package, sub.name
            ))
        } else if in_channel.is_empty() {
            Some(format!(
                "no operators found in channel {} of package {} in the catalog referenced by subscription {}",
                sub.channel, sub.package, sub.name
            ))
        } else if with_name.is_empty() {
            Some(format!(
                "no operators found with name {} in channel {} of package {} in the catalog referenced by subscription {}",
                sub.starting_csv, sub.channel, sub.package, sub.name
            ))
        } else {
            None
        };
        if let Some(reason) = invalid {
            var.prohibited = Some(reason);
            self.problem.vars.push(var);
            self.origins.push(Origin::Subscription(index));
            return;
        }
        let sorted = match order::subscription_order(self.cache, with_name.clone()) {
            Ok(s) => s,
            Err(err) => {
                self.errors.push(err.0);
                return;
            }
        };
        let upgrades = |e: usize| -> bool {
            let Some(cur) = current else { return true };
            let c = &self.cache.entries[cur];
            let x = &self.cache.entries[e];
            x.skip_range
                .as_ref()
                .zip(c.version.as_ref())
                .is_some_and(|(r, v)| r.matches(v))
                || x.replaces.as_deref() == Some(c.bundle.name.as_str())
                || x.skips.contains(&c.bundle.name)
        };
        let mut candidates: Vec<usize> = Vec::new();
        for o in sorted.into_iter().filter(|&e| upgrades(e)) {
            // Every entry of that name the Subscription's filters let through (one per
            // channel it is in; OLM lists them in Go map order, we in channel order).
            let mut same: Vec<usize> = with_name
                .iter()
                .copied()
                .filter(|&i| self.cache.entries[i].bundle.name == self.cache.entries[o].bundle.name)
                .collect();
            same.sort_by(|&a, &b| {
                let (x, y) = (&self.cache.entries[a], &self.cache.entries[b]);
                y.default_channel
                    .cmp(&x.default_channel)
                    .then_with(|| x.channel.cmp(y.channel))
            });
            self.bundle_variables(same.clone());
            for i in same {
                let cv = self.var_of(i);
                if let Some(cur) = current {
                    let current_var = self.var_of(cur);
                    let message = format!(
                        "{} conflicts with {}",
                        self.problem.vars[cv].id, self.problem.vars[current_var].id
                    );
                    if !self.problem.vars[cv]
                        .conflicts
                        .iter()
                        .any(|(o, _)| *o == current_var)
                    {
                        self.problem.vars[cv].conflicts.push((current_var, message));
                    }
                    self.replaces
                        .insert(cv, self.cache.entries[cur].bundle.name.clone());
                }
                candidates.push(cv);
            }
        }
        if let Some(cur) = current {
            let cv = self.var_of(cur);
            candidates.push(cv);
        }
        let names: Vec<String> = candidates
            .iter()
            .map(|&c| self.problem.vars[c].id.clone())
            .collect();
        let message = match names.as_slice() {
            [] => format!(
                "no operators found matching the criteria of subscription {}",
                sub.name
            ),
            [one] => format!("subscription {} requires {one}", sub.name),
            [rest @ .., last] => format!(
                "subscription {} requires at least one of {} or {last}",
                sub.name,
                rest.join(", ")
            ),
        };
        var.deps.push((candidates, message));
        self.problem.vars.push(var);
        self.origins.push(Origin::Subscription(index));
    }

    /// `addInvariants`: one bundle per package, one provider per API.
    fn invariants(&mut self) {
        let mut by_package: std::collections::BTreeMap<String, Vec<usize>> = Default::default();
        let mut by_gvk: std::collections::BTreeMap<(String, String, String), Vec<usize>> =
            Default::default();
        for (v, origin) in self.origins.iter().enumerate() {
            let Origin::Entry(e) = *origin else { continue };
            let props = self.cache.props_of(e);
            for g in &props.gvks {
                by_gvk
                    .entry((g.group.clone(), g.version.clone(), g.kind.clone()))
                    .or_default()
                    .push(v);
            }
            for p in &props.packages {
                by_package
                    .entry(p.package_name.clone())
                    .or_default()
                    .push(v);
            }
        }
        // Sorted, not deduplicated: a bundle that declares one API twice is listed twice, and
        // then can never be installed while the group's constraint holds (OLM's `AtMost(1, …)`
        // counts it twice).
        let at_most_one = |vars: &[Var], mut members: Vec<usize>, says: &str| {
            members.sort_by(|&a, &b| vars[a].id.cmp(&vars[b].id));
            let ids: Vec<&str> = members.iter().map(|&m| vars[m].id.as_str()).collect();
            let [rest @ .., last] = ids.as_slice() else {
                return None;
            };
            let message =
                (!rest.is_empty()).then(|| format!("{} and {last} {says}", rest.join(", ")))?;
            Some(AtMostOne { members, message })
        };
        for ((group, version, kind), members) in by_gvk {
            let says = format!("provide {kind} ({group}/{version})");
            let g = at_most_one(&self.problem.vars, members, &says);
            self.problem.groups.extend(g);
        }
        for (package, members) in by_package {
            let says = format!("originate from package {package}");
            let g = at_most_one(&self.problem.vars, members, &says);
            self.problem.groups.extend(g);
        }
    }
}

/// `bundleID`: `catalog/namespace/channel/bundle`.
fn bundle_id(cache: &Cache<'_>, entry: usize) -> String {
    let e = &cache.entries[entry];
    format!(
        "{}/{}/{}",
        cache.sources[e.source].key, e.channel, e.bundle.name
    )
}

/// Resolve one namespace as OLM v0's catalog operator does (`Resolver.Resolve`, then the
/// Subscription each new bundle answers, as `ResolveSteps` finds it).
pub fn resolve<'a>(query: &Query<'_, 'a>) -> Result<Resolved<'a>, Failure> {
    let cache = Cache::new(query.sources, query.namespace, query.installed);
    resolve_in(&cache, query)
}

/// [`resolve`] on a cache already built.
pub fn resolve_in<'a>(cache: &Cache<'a>, query: &Query<'_, 'a>) -> Result<Resolved<'a>, Failure> {
    let mut b = Builder {
        cache,
        namespace: query.namespace,
        problem: Problem::default(),
        origins: Vec::new(),
        by_entry: HashMap::new(),
        visited: HashMap::new(),
        replaces: HashMap::new(),
        errors: Vec::new(),
    };
    // The installed CSVs and their dependencies first, then each Subscription.
    let existing: Vec<usize> = (0..cache.entries.len())
        .filter(|&i| cache.entries[i].installed.is_some())
        .collect();
    b.bundle_variables(existing);
    for (i, sub) in query.subscriptions.iter().enumerate() {
        b.subscription_variable(i, sub);
    }
    if !b.errors.is_empty() {
        let mut errors = std::mem::take(&mut b.errors);
        errors.dedup();
        return Err(Failure::Invalid(errors));
    }
    b.invariants();
    let answer = |outcome: &Outcome| -> String {
        match outcome {
            Outcome::Solved(vars) => vars
                .iter()
                .filter_map(|&v| match b.origins[v] {
                    Origin::Entry(e) if cache.entries[e].installed.is_none() => {
                        Some(cache.entries[e].bundle.name.clone())
                    }
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join(", "),
            Outcome::Unsatisfiable => "no solution".into(),
            Outcome::TooComplex => "no answer in time".into(),
            Outcome::SolverChoice => "a solution its SAT solver picks".into(),
        }
    };
    let outcome = match b.problem.solve() {
        Ok(o) => o,
        Err((first, second)) => {
            return Err(Failure::OrderDependent {
                first: answer(&first),
                second: answer(&second),
            });
        }
    };
    let held = match outcome {
        Outcome::Solved(held) => held,
        Outcome::TooComplex => return Err(Failure::TooComplex),
        Outcome::SolverChoice => return Err(Failure::SolverChoice),
        Outcome::Unsatisfiable => {
            let core = b.problem.minimal_conflict().ok_or(Failure::TooComplex)?;
            return Err(Failure::NotSatisfiable(conflict_messages(
                &b.problem, &core,
            )));
        }
    };
    // Which held bundle satisfies which held bundle's dependency lists: the first held
    // candidate of each list (the one the search guessed, or reused).
    let held_set: std::collections::HashSet<usize> = held.iter().copied().collect();
    let mut required_by: HashMap<usize, Vec<String>> = HashMap::new();
    for &v in &held {
        let Origin::Entry(e) = b.origins[v] else {
            continue;
        };
        for (cands, _) in &b.problem.vars[v].deps {
            if let Some(&c) = cands.iter().find(|c| held_set.contains(c)) {
                let names = required_by.entry(c).or_default();
                let name = cache.entries[e].bundle.name.clone();
                if c != v && !names.contains(&name) {
                    names.push(name);
                }
            }
        }
    }
    let mut picks = Vec::new();
    let mut kept = Vec::new();
    for v in held {
        let Origin::Entry(e) = b.origins[v] else {
            continue;
        };
        let entry = &cache.entries[e];
        if entry.installed.is_some() {
            kept.push(entry.bundle.name.clone());
            continue;
        }
        let catalog = cache.sources[entry.source].key.clone();
        let replaces = b.replaces.get(&v).cloned();
        let subscription = query
            .subscriptions
            .iter()
            .find(|s| {
                s.package == entry.package
                    && (s.channel.is_empty() || s.channel == entry.channel)
                    && s.source == catalog
            })
            .map(|s| s.name.clone());
        picks.push(Pick {
            bundle: entry.bundle,
            catalog,
            channel: entry.channel.to_owned(),
            replaces,
            subscription,
            required_by: required_by.remove(&v).unwrap_or_default(),
        });
    }
    picks.sort_by(|a, b| a.bundle.name.cmp(&b.bundle.name));
    kept.sort();
    Ok(Resolved { picks, kept })
}

/// The CatalogSource a configured catalog is on the cluster: one written for it (it has an
/// `image:`), or the release's default source of its name (`defaults`); `None` when it can be
/// neither. The priority is the written one's (`priority:`), or the default source's. Every
/// such source is in `openshift-marketplace`, so every namespace sees it.
pub fn catalog_source(
    catalog: &crate::resolve::LoadedCatalog,
    defaults: &[(&'static str, i32)],
) -> Option<(SourceKey, i32)> {
    let key = SourceKey::new(
        catalog.name.clone(),
        crate::openshift::MARKETPLACE_NAMESPACE,
    );
    if catalog.image.is_some() {
        return Some((key, catalog.priority));
    }
    defaults
        .iter()
        .find(|(n, _)| *n == catalog.name)
        .map(|(_, p)| (key, *p))
}

/// The bundles a Subscription's candidates are, in OLM's order of preference (each bundle
/// once, at its first place), with nothing installed: the package's entries in its catalog
/// and channel (every channel when `channel` is empty), or only `starting_csv` when given.
/// `Err` with OLM's message when a channel has no order.
pub fn subscription_candidates<'a>(
    catalog: &'a crate::catalog::model::Catalog,
    package: &str,
    channel: &str,
    starting_csv: &str,
) -> Result<Vec<&'a crate::catalog::model::Bundle>, String> {
    let key = SourceKey::new("catalog", "namespace");
    let cache = Cache::new(
        &[Source {
            key,
            priority: 0,
            catalog: Some(catalog),
        }],
        "namespace",
        &[],
    );
    let entries: Vec<usize> = cache
        .of_package(package)
        .iter()
        .copied()
        .filter(|&i| {
            let e = &cache.entries[i];
            e.package == package
                && (channel.is_empty() || e.channel == channel)
                && (starting_csv.is_empty() || e.bundle.name == starting_csv)
        })
        .collect();
    let sorted = order::subscription_order(&cache, entries).map_err(|e| e.0)?;
    let mut out: Vec<&'a crate::catalog::model::Bundle> = Vec::new();
    for i in sorted {
        let b = cache.entries[i].bundle;
        if !out.iter().any(|x| std::ptr::eq(*x, b)) {
            out.push(b);
        }
    }
    Ok(out)
}

/// The messages of a minimal conflict, in the order OLM's variables would list them: each
/// Subscription's, then the bundles', then the invariants'.
fn conflict_messages(problem: &Problem, core: &[Constraint]) -> Vec<String> {
    let var_of = |c: &Constraint| match *c {
        Constraint::Mandatory(v)
        | Constraint::Prohibited(v)
        | Constraint::Dependency(v, _)
        | Constraint::Conflict(v, _) => Some(v),
        Constraint::AtMostOne(_) => None,
    };
    let rank = |c: &Constraint| match var_of(c) {
        Some(v) if problem.vars[v].id.starts_with("subscription:") => (0, v),
        Some(v) => (1, v),
        None => (2, 0),
    };
    let mut core = core.to_vec();
    core.sort_by_key(|c| (rank(c), *c));
    let mut out: Vec<String> = core
        .iter()
        .map(|c| problem.message(*c).to_owned())
        .collect();
    out.dedup();
    out
}

#[cfg(test)]
mod differential;
#[cfg(test)]
mod tests;
