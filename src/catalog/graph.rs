//! Channel upgrade graphs: heads, the replaces chain check, one-hop successors.
//!
//! Upstream: operator-registry `alpha/model/model.go` (`Channel.Head`,
//! `validateReplacesChain`) and operator-controller `catalogmetadata/filter/successors.go`
//! (`legacySuccessor`); reference/catalogs-and-conversion.md §4.1–4.2.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::model::{Channel, Package};

/// Entries that no entry names in `replaces` or `skips` (an entry naming itself counts, as
/// in opm). `skipRange` does not count. Sorted.
pub fn heads(channel: &Channel) -> Vec<&str> {
    let mut incoming: HashSet<&str> = HashSet::new();
    for e in &channel.entries {
        if let Some(r) = &e.replaces {
            incoming.insert(r);
        }
        incoming.extend(e.skips.iter().map(String::as_str));
    }
    let mut out: Vec<&str> = channel
        .entries
        .iter()
        .map(|e| e.name.as_str())
        .filter(|n| !incoming.contains(n))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Why a channel's replaces chain is not valid (§4.1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChainError {
    /// Every entry has an incoming edge.
    #[error("no channel head found in graph")]
    NoHead,
    /// More than one entry has no incoming edge.
    #[error("multiple channel heads found in graph: {}", heads.join(", "))]
    MultipleHeads {
        /// The heads, sorted.
        heads: Vec<String>,
    },
    /// The chain from the head loops.
    #[error("detected cycle in replaces chain of upgrade graph: {}", chain.join(" -> "))]
    Cycle {
        /// From the repeated name back to itself.
        chain: Vec<String>,
    },
    /// Entries neither on the chain nor skipped.
    #[error("channel contains one or more stranded bundles: {}", bundles.join(", "))]
    Stranded {
        /// Sorted names.
        bundles: Vec<String>,
    },
}

/// Walk the replaces chain from the single head (`validateReplacesChain`): the walk stops
/// when the `replaces` target is empty, skipped by some entry, or not in the channel (a tail
/// may name a bundle that does not exist). Returns the chain, head first.
pub fn replaces_chain(channel: &Channel) -> Result<Vec<&str>, ChainError> {
    let hs = heads(channel);
    let head = match hs.as_slice() {
        [] => return Err(ChainError::NoHead),
        [one] => *one,
        many => {
            return Err(ChainError::MultipleHeads {
                heads: many.iter().map(|s| s.to_string()).collect(),
            });
        }
    };
    let edges = ReplacesEdges::of(channel);
    let mut chain = vec![head];
    let mut on_chain: HashSet<&str> = HashSet::from([head]);
    let mut cur = head;
    while let Some(next) = edges.next(cur) {
        if on_chain.contains(next) {
            let start = chain.iter().position(|n| *n == next).unwrap_or(0);
            let mut cycle: Vec<String> = chain[start..].iter().map(|s| s.to_string()).collect();
            cycle.push(next.to_owned());
            return Err(ChainError::Cycle { chain: cycle });
        }
        on_chain.insert(next);
        chain.push(next);
        cur = next;
    }
    let stranded: BTreeSet<&str> = channel
        .entries
        .iter()
        .map(|e| e.name.as_str())
        .filter(|n| !on_chain.contains(n) && !edges.skipped.contains(n))
        .collect();
    if !stranded.is_empty() {
        return Err(ChainError::Stranded {
            bundles: stranded.into_iter().map(str::to_owned).collect(),
        });
    }
    Ok(chain)
}

/// A channel's `replaces` edges that count for its chain: an edge to a bundle that some
/// entry skips, or that is not in the channel, is no edge.
struct ReplacesEdges<'c> {
    by_name: HashMap<&'c str, &'c super::model::ChannelEntry>,
    skipped: HashSet<&'c str>,
}

impl<'c> ReplacesEdges<'c> {
    fn of(channel: &'c Channel) -> Self {
        ReplacesEdges {
            by_name: channel
                .entries
                .iter()
                .map(|e| (e.name.as_str(), e))
                .collect(),
            skipped: channel
                .entries
                .iter()
                .flat_map(|e| e.skips.iter().map(String::as_str))
                .collect(),
        }
    }

    /// The bundle `name` replaces, when that edge counts.
    fn next(&self, name: &str) -> Option<&'c str> {
        let r = self.by_name.get(name)?.replaces.as_deref()?;
        (!self.skipped.contains(r) && self.by_name.contains_key(r)).then_some(r)
    }
}

/// Every loop of `replaces` edges in a channel, each as its bundle names from the smallest
/// name round to it again (`a -> b -> a`), sorted. An edge to a bundle that some entry skips,
/// or that is not in the channel, ends the walk, as in [`replaces_chain`]; so a loop this
/// finds is one that `catalog validate` reports (as a cycle, or as having no head when every
/// entry is on a loop). Each entry has at most one `replaces`, so the loops are disjoint.
pub fn replaces_cycles(channel: &Channel) -> Vec<Vec<String>> {
    let edges = ReplacesEdges::of(channel);
    let mut done: HashSet<&str> = HashSet::new();
    let mut cycles = Vec::new();
    for e in &channel.entries {
        let mut path: Vec<&str> = Vec::new();
        let mut at = Some(e.name.as_str());
        while let Some(n) = at {
            if done.contains(n) {
                break;
            }
            if let Some(i) = path.iter().position(|p| *p == n) {
                let mut cycle: Vec<String> = path[i..].iter().map(|s| s.to_string()).collect();
                let min = (0..cycle.len()).min_by_key(|&j| &cycle[j]).unwrap_or(0);
                cycle.rotate_left(min);
                cycle.push(cycle[0].clone());
                cycles.push(cycle);
                break;
            }
            path.push(n);
            at = edges.next(n);
        }
        done.extend(path);
    }
    cycles.sort();
    cycles
}

/// Bundles that are a direct (one hop) upgrade from the installed bundle, in the given
/// channels (all channels when empty): an entry that `replaces` it, lists it in `skips`, or
/// whose blang `skipRange` contains `installed_version` (a range that does not parse matches
/// nothing, as in OLM v1). Sorted, without duplicates; the installed bundle itself is not
/// included.
pub fn successors<'a>(
    package: &'a Package,
    channels: &[&str],
    installed_name: &str,
    installed_version: &semver::Version,
) -> Vec<&'a str> {
    let mut out = BTreeSet::new();
    for ch in &package.channels {
        if !channels.is_empty() && !channels.contains(&ch.name.as_str()) {
            continue;
        }
        for e in &ch.entries {
            if e.name == installed_name {
                continue;
            }
            let by_edge = e.replaces.as_deref() == Some(installed_name)
                || e.skips.iter().any(|s| s == installed_name);
            let by_range = !by_edge
                && e.skip_range.as_deref().is_some_and(|r| {
                    crate::version::blang::Range::parse(r)
                        .is_ok_and(|range| range.matches(installed_version))
                });
            if by_edge || by_range {
                out.insert(e.name.as_str());
            }
        }
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::model::ChannelEntry;

    fn entry(
        name: &str,
        replaces: Option<&str>,
        skips: &[&str],
        range: Option<&str>,
    ) -> ChannelEntry {
        ChannelEntry {
            name: name.into(),
            replaces: replaces.map(Into::into),
            skips: skips.iter().map(|s| s.to_string()).collect(),
            skip_range: range.map(Into::into),
        }
    }

    fn channel(entries: Vec<ChannelEntry>) -> Channel {
        Channel {
            name: "stable".into(),
            entries,
            ..Channel::default()
        }
    }

    mod replaces_cycles {
        use super::*;

        #[test]
        fn a_loop_is_named_from_its_smallest_bundle() {
            let ch = channel(vec![
                entry("a.v1", Some("a.v3"), &[], None),
                entry("a.v2", Some("a.v1"), &[], None),
                entry("a.v3", Some("a.v2"), &[], None),
                entry("a.v4", Some("a.v3"), &[], None),
            ]);
            assert_eq!(replaces_cycles(&ch), [["a.v1", "a.v3", "a.v2", "a.v1"]]);
        }

        #[test]
        fn a_chain_or_a_skipped_edge_is_no_loop() {
            let chain = channel(vec![
                entry("a.v1", None, &[], None),
                entry("a.v2", Some("a.v1"), &[], None),
            ]);
            assert!(replaces_cycles(&chain).is_empty());
            let skipped = channel(vec![
                entry("a.v1", Some("a.v2"), &[], None),
                entry("a.v2", Some("a.v1"), &["a.v1"], None),
            ]);
            assert!(replaces_cycles(&skipped).is_empty());
        }

        #[test]
        fn a_bundle_replacing_itself_is_a_loop() {
            let ch = channel(vec![entry("a.v1", Some("a.v1"), &[], None)]);
            assert_eq!(replaces_cycles(&ch), [["a.v1", "a.v1"]]);
        }
    }

    mod heads {
        use super::*;

        #[test]
        fn skip_range_does_not_count() {
            let c = channel(vec![
                entry("a.v1", None, &[], None),
                entry("a.v2", None, &[], Some("<2.0.0")),
            ]);
            assert_eq!(heads(&c), ["a.v1", "a.v2"]);
        }
        #[test]
        fn skips_count() {
            let c = channel(vec![
                entry("a.v1", None, &[], None),
                entry("a.v2", None, &["a.v1"], None),
            ]);
            assert_eq!(heads(&c), ["a.v2"]);
            assert_eq!(replaces_chain(&c), Ok(vec!["a.v2"]));
        }
        #[test]
        fn replaces_of_missing_tail_is_fine() {
            let c = channel(vec![entry("a.v2", Some("a.v1"), &[], None)]);
            assert_eq!(replaces_chain(&c), Ok(vec!["a.v2"]));
        }
    }

    mod successors {
        use super::*;
        use crate::catalog::model::Package;

        fn package() -> Package {
            Package {
                name: "a".into(),
                channels: vec![
                    Channel {
                        name: "fast".into(),
                        entries: vec![
                            entry("a.v1", None, &[], None),
                            entry("a.v2", Some("a.v1"), &[], None),
                            entry("a.v3", Some("a.v2"), &["a.v1"], None),
                        ],
                        ..Channel::default()
                    },
                    Channel {
                        name: "stable".into(),
                        entries: vec![
                            entry("a.v1", None, &[], None),
                            entry("a.v4", Some("a.v1"), &[], None),
                        ],
                        ..Channel::default()
                    },
                ],
                ..Package::default()
            }
        }

        #[test]
        fn replaces_and_skips_one_hop() {
            let p = package();
            let v = semver::Version::new(1, 0, 0);
            assert_eq!(successors(&p, &["fast"], "a.v1", &v), ["a.v2", "a.v3"]);
            assert_eq!(successors(&p, &[], "a.v1", &v), ["a.v2", "a.v3", "a.v4"]);
            assert_eq!(successors(&p, &["stable"], "a.v4", &v), Vec::<&str>::new());
        }

        #[test]
        fn skip_range_contains_installed_version() {
            let mut p = package();
            p.channels[1]
                .entries
                .push(entry("a.v5", None, &[], Some(">=1.0.0 <1.5.0")));
            p.channels[1]
                .entries
                .push(entry("a.v6", None, &[], Some("not a range")));
            let v = semver::Version::new(1, 2, 0);
            assert_eq!(successors(&p, &["stable"], "a.v1", &v), ["a.v4", "a.v5"]);
            assert_eq!(successors(&p, &["stable"], "a.vX", &v), ["a.v5"]);
        }
    }
}
