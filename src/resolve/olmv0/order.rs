//! The orders OLM v0 prefers candidates in: a channel's replaces chain, a Subscription's
//! channels, and the catalogs a dependency is looked for in.
//!
//! Upstream: OLM `resolver/resolver.go` (`sortChannel`, the sort in `getSubscriptionVariables`,
//! `sortBundles`) and `resolver/cache/cache.go` (`sortableSnapshots.Less`).

use std::collections::HashMap;

use super::entry::{Cache, SourceKey};

/// Why a channel has no order: OLM fails the whole resolution with this message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ChannelError(pub String);

/// `sortChannel`: the entries of one (catalog, package, channel), head first along the
/// `replaces` chain, without the entries any entry `skips`.
///
/// An entry is replaced when another entry of the group names it in `replaces` or `skips`;
/// the entries nobody replaces are heads. No head, more than one chain, or a cycle in the
/// chain is an error. Entries off the chain (reached only through `skips` or `skipRange`, or
/// not at all) are not in the order.
pub fn sort_channel(cache: &Cache<'_>, group: &[usize]) -> Result<Vec<usize>, ChannelError> {
    let Some(&first) = group.first() else {
        return Ok(Vec::new());
    };
    let package = cache.entries[first].package;
    let channel = cache.entries[first].channel;
    let by_name: HashMap<&str, usize> = group
        .iter()
        .map(|&i| (cache.entries[i].bundle.name.as_str(), i))
        .collect();
    let mut replaced: HashMap<usize, ()> = HashMap::new();
    let mut replaces: HashMap<usize, usize> = HashMap::new();
    let mut skipped: HashMap<&str, ()> = HashMap::new();
    for &i in group {
        let e = &cache.entries[i];
        if let Some(r) = e.replaces.as_deref()
            && let Some(&target) = by_name.get(r)
        {
            replaced.insert(target, ());
            replaces.insert(i, target);
        }
        for s in e.skips {
            if let Some(&target) = by_name.get(s.as_str()) {
                replaced.insert(target, ());
                skipped.insert(s.as_str(), ());
            }
        }
    }
    let heads: Vec<usize> = group
        .iter()
        .copied()
        .filter(|i| !replaced.contains_key(i))
        .collect();
    if heads.is_empty() {
        return Err(ChannelError(format!(
            "no channel heads (entries not replaced by another entry) found in channel {channel:?} of package {package:?}"
        )));
    }
    let mut chains: Vec<Vec<usize>> = Vec::with_capacity(heads.len());
    for &head in &heads {
        let mut chain = Vec::new();
        let mut visited: HashMap<usize, ()> = HashMap::new();
        let mut current = head;
        loop {
            visited.insert(current, ());
            if !skipped.contains_key(cache.entries[current].bundle.name.as_str()) {
                chain.push(current);
            }
            let Some(&next) = replaces.get(&current) else {
                break;
            };
            if visited.contains_key(&next) {
                return Err(ChannelError(format!(
                    "a cycle exists in the chain of replacement beginning with {:?} in channel {channel:?} of package {package:?}",
                    cache.entries[head].bundle.name
                )));
            }
            current = next;
        }
        chains.push(chain);
    }
    if chains.len() > 1 {
        let names: Vec<String> = chains
            .iter()
            .map(|chain| match chain.as_slice() {
                [] => "[]".to_string(),
                [one] => cache.entries[*one].bundle.name.clone(),
                [first, .., last] => format!(
                    "{}...{}",
                    cache.entries[*first].bundle.name, cache.entries[*last].bundle.name
                ),
            })
            .collect();
        return Err(ChannelError(format!(
            "a unique replacement chain within a channel is required to determine the relative order between channel entries, but {} replacement chains were found in channel {channel:?} of package {package:?}: {}",
            names.len(),
            names.join(", ")
        )));
    }
    Ok(chains.pop().unwrap_or_default())
}

/// The entries of a Subscription's catalog that match it, in the order OLM prefers them:
/// default-channel entries first, then channel by channel in name order, each channel sorted
/// by [`sort_channel`] (`getSubscriptionVariables`).
pub fn subscription_order(
    cache: &Cache<'_>,
    mut entries: Vec<usize>,
) -> Result<Vec<usize>, ChannelError> {
    // A stable sort: default channel first, then channel name.
    entries.sort_by(|&a, &b| {
        let (x, y) = (&cache.entries[a], &cache.entries[b]);
        y.default_channel
            .cmp(&x.default_channel)
            .then_with(|| x.channel.cmp(y.channel))
    });
    let mut out = Vec::with_capacity(entries.len());
    for group in entries.chunk_by(|&a, &b| cache.entries[a].channel == cache.entries[b].channel) {
        out.extend(sort_channel(cache, group)?);
    }
    Ok(out)
}

/// The catalogs in the order a dependency of a bundle from `preferred` looks at them
/// (`FindPreferred`): the namespace's `@existing` first, then `preferred`, then higher
/// priority, then the preferred namespace's catalogs, then by name.
pub fn catalog_order(
    cache: &Cache<'_>,
    preferred: Option<&SourceKey>,
    preferred_namespace: &str,
) -> Vec<usize> {
    let mut order: Vec<usize> = (0..cache.sources.len()).collect();
    let key = |i: usize| &cache.sources[i].key;
    order.sort_by(|&a, &b| {
        let (ka, kb) = (key(a), key(b));
        let existing = |k: &SourceKey| k.is_existing() && k.namespace == preferred_namespace;
        let is_preferred = |k: &SourceKey| preferred.is_some_and(|p| p == k);
        existing(kb)
            .cmp(&existing(ka))
            .then_with(|| is_preferred(kb).cmp(&is_preferred(ka)))
            .then_with(|| cache.sources[b].priority.cmp(&cache.sources[a].priority))
            .then_with(|| {
                if ka.namespace == kb.namespace {
                    std::cmp::Ordering::Equal
                } else {
                    (kb.namespace == preferred_namespace)
                        .cmp(&(ka.namespace == preferred_namespace))
                }
            })
            .then_with(|| ka.name.cmp(&kb.name))
    });
    order
}

/// `sortBundles` after `FindPreferred`: the entries, catalog by catalog in `catalogs` order;
/// within a catalog, (package, channel) groups with default channels first, then by package,
/// then by channel name; each group in [`sort_channel`] order.
pub fn dependency_order(
    cache: &Cache<'_>,
    catalogs: &[usize],
    entries: &[usize],
) -> Result<Vec<usize>, ChannelError> {
    let rank: HashMap<usize, usize> = catalogs.iter().enumerate().map(|(r, &c)| (c, r)).collect();
    let mut sorted: Vec<usize> = entries.to_vec();
    sorted.sort_by(|&a, &b| {
        let (x, y) = (&cache.entries[a], &cache.entries[b]);
        rank[&x.source]
            .cmp(&rank[&y.source])
            .then_with(|| y.default_channel.cmp(&x.default_channel))
            .then_with(|| x.package.cmp(y.package))
            .then_with(|| x.channel.cmp(y.channel))
    });
    let mut out = Vec::with_capacity(sorted.len());
    for group in sorted.chunk_by(|&a, &b| {
        let (x, y) = (&cache.entries[a], &cache.entries[b]);
        x.source == y.source
            && x.package == y.package
            && x.channel == y.channel
            && x.default_channel == y.default_channel
    }) {
        out.extend(sort_channel(cache, group)?);
    }
    Ok(out)
}
