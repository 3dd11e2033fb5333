//! Automatic approval, followed: from what OLM v0 installs first, resolution after resolution,
//! to the bundles where every Subscription of the namespace stops moving.
//!
//! After an install OLM resolves the namespace again with the new CSVs installed
//! (`@existing`): each Subscription's candidates are then the entries of its channel that
//! replace its installed CSV, skip it, or take it in their `skipRange`, best first, and staying
//! is the last choice. A dependency OLM pulled in got a Subscription of its own
//! (`<package>-<channel>-<catalog>-<namespace>`, the resolved channel and catalog, `Automatic`;
//! `resolver/steps.go` `NewSubscriptionStepResource`) and moves along its channel the same way.
//! The replaced CSV is gone once its successor is in.

use super::{Failure, Installed, Pick, Query, Resolved, Subscription};

/// The most resolutions a walk runs (each moves every Subscription by at most one edge).
pub const MAX_STEPS: usize = 10_000;

/// Where a walk went.
#[derive(Debug, Clone)]
pub struct Walk<'a> {
    /// Each resolution's new bundles, in order; the first is the install.
    pub steps: Vec<Vec<Pick<'a>>>,
    /// Every Subscription at the end, with what is installed for it (the configured ones
    /// first, in their order, then the ones OLM created for dependencies).
    pub subscriptions: Vec<Subscription>,
    /// The CSVs installed at the end.
    pub installed: Vec<Installed<'a>>,
    /// Why it stopped before no Subscription moved any more: a resolution that failed (OLM
    /// keeps what is installed and reports `ResolutionFailed`), or the step limit.
    pub stopped: Option<Failure>,
}

impl<'a> Walk<'a> {
    /// The CSV installed at the end for a Subscription.
    pub fn ends_at(&self, subscription: &str) -> Option<&'a crate::catalog::model::Bundle> {
        let name = self
            .subscriptions
            .iter()
            .find(|s| s.name == subscription)?
            .installed
            .as_deref()?;
        self.installed
            .iter()
            .find(|i| i.bundle.name == name)
            .map(|i| i.bundle)
    }
}

/// The name OLM gives the Subscription it creates for a pulled-in bundle.
pub fn generated_subscription_name(pick: &Pick<'_>) -> String {
    format!(
        "{}-{}-{}-{}",
        pick.bundle.package, pick.channel, pick.catalog.name, pick.catalog.namespace
    )
}

/// Follow Automatic approval from `query` (nothing installed yet, or what it says is), with
/// at most `max_steps` resolutions. The first resolution failing is an error; a later one
/// ends the walk where it is.
pub fn walk<'a>(query: &Query<'_, 'a>, max_steps: usize) -> Result<Walk<'a>, Failure> {
    let mut subscriptions: Vec<Subscription> = query.subscriptions.to_vec();
    let mut installed: Vec<Installed<'a>> = query.installed.to_vec();
    let mut steps: Vec<Vec<Pick<'a>>> = Vec::new();
    let mut stopped = None;
    // The catalogs' entries once; each resolution swaps in what is installed.
    let mut cache = super::entry::Cache::of_catalogs(query.sources);
    loop {
        if steps.len() >= max_steps {
            stopped = Some(Failure::Invalid(vec![format!(
                "still moving after {max_steps} resolutions"
            )]));
            break;
        }
        for i in &mut installed {
            i.subscription = subscriptions
                .iter()
                .find(|s| s.installed.as_deref() == Some(i.bundle.name.as_str()))
                .map(|s| s.name.clone());
        }
        let step_query = Query {
            namespace: query.namespace,
            sources: query.sources,
            subscriptions: &subscriptions,
            installed: &installed,
        };
        cache.set_installed(query.namespace, &installed);
        let resolved: Resolved<'a> = match super::resolve_in(&cache, &step_query) {
            Ok(r) => r,
            Err(e) if steps.is_empty() => return Err(e),
            Err(e) => {
                stopped = Some(e);
                break;
            }
        };
        if resolved.picks.is_empty() {
            break;
        }
        for pick in &resolved.picks {
            // `ResolveSteps`: the Subscriptions this bundle answers get it as their CSV; with
            // none, OLM creates one.
            let mut answered = false;
            for s in subscriptions.iter_mut() {
                if s.package == pick.bundle.package
                    && (s.channel.is_empty() || s.channel == pick.channel)
                    && s.source == pick.catalog
                {
                    s.installed = Some(pick.bundle.name.clone());
                    answered = true;
                }
            }
            if !answered {
                subscriptions.push(Subscription {
                    name: generated_subscription_name(pick),
                    package: pick.bundle.package.clone(),
                    channel: pick.channel.clone(),
                    starting_csv: pick.bundle.name.clone(),
                    source: pick.catalog.clone(),
                    installed: Some(pick.bundle.name.clone()),
                });
            }
            if let Some(old) = &pick.replaces {
                installed.retain(|i| &i.bundle.name != old);
            }
            installed.retain(|i| i.bundle.name != pick.bundle.name);
            installed.push(Installed {
                bundle: pick.bundle,
                replaces: pick.replaces.clone(),
                subscription: None,
            });
        }
        steps.push(resolved.picks);
    }
    for i in &mut installed {
        i.subscription = subscriptions
            .iter()
            .find(|s| s.installed.as_deref() == Some(i.bundle.name.as_str()))
            .map(|s| s.name.clone());
    }
    Ok(Walk {
        steps,
        subscriptions,
        installed,
        stopped,
    })
}
