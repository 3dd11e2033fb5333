//! OLM v1's upgrade resolution: what the cluster picks for an operator that is already
//! installed, and the walk of several such picks.
//!
//! Upstream: operator-controller `resolve/catalog.go` and `catalogmetadata/filter/successors.go`
//! (`SuccessorsOf`, `legacySuccessor`); reference/catalogs-and-conversion.md §4.2–4.3.
//!
//! With `upgradeConstraintPolicy: CatalogProvided` (the default), the candidates are the
//! installed version itself (exact version, build metadata included: OLM v1 compares the
//! release) and the installed bundle's **direct** successors: an entry that `replaces` it, lists
//! it in `skips`, or whose blang `skipRange` contains its version. Successors are computed over
//! the requested channels, or all channels when none is given. With `SelfCertified` the edges
//! are ignored and any version in the channels and range is a candidate, downgrades included.
//! The usual filters (channels, range, cluster fit) and order (deprecated last, then highest
//! version) apply on top, so a deprecated successor loses even to staying.
//!
//! One [`resolve_installed`] call is one reconcile. The cluster repeats it after each install
//! until the pick is the installed version again; [`walk`] does exactly that and returns every
//! step, so a plan can name each bundle OLM walks through.

use std::collections::BTreeSet;

use super::{Candidate, Cluster, Error, LoadedCatalog, Rejection, Request, Resolution, Verdict};
use crate::catalog::model::{Bundle, Package};
use crate::config::UpgradeConstraintPolicy;
use crate::version::masterminds;

/// The bundle installed now, and how OLM v1 may move from it.
#[derive(Debug, Clone)]
pub struct Installed {
    /// Installed bundle name.
    pub bundle: String,
    /// Installed version (build metadata included).
    pub version: semver::Version,
    /// `upgradeConstraintPolicy`.
    pub policy: UpgradeConstraintPolicy,
    /// A further version range from an upgrade policy (`follow-cluster`, `pinned`), applied on
    /// top of the request's own range.
    pub bound: Option<Bound>,
}

/// A version range that an upgrade policy allows for one move.
#[derive(Debug, Clone)]
pub struct Bound {
    /// The rule, for explanations (`follow-cluster, cluster minor upgrade`).
    pub rule: String,
    /// The range (Masterminds, as a `ClusterExtension` `version` would carry it).
    pub range: masterminds::Range,
}

impl Installed {
    /// Names of the direct successors in this package (CatalogProvided only).
    pub(super) fn successors<'p>(
        &self,
        request: &Request<'_>,
        package: &'p Package,
    ) -> Option<BTreeSet<&'p str>> {
        if self.policy == UpgradeConstraintPolicy::SelfCertified {
            return None;
        }
        let channels: Vec<&str> = request.channels.iter().map(String::as_str).collect();
        Some(
            crate::catalog::graph::successors(package, &channels, &self.bundle, &self.version)
                .into_iter()
                .collect(),
        )
    }

    /// The rule an otherwise eligible bundle fails, if any: the policy's range, then the
    /// successor constraint.
    pub(super) fn filter(
        &self,
        bundle: &Bundle,
        successors: Option<&BTreeSet<&str>>,
    ) -> Option<Rejection> {
        // A version that does not parse matches no range (OLM v1 `InSemverRange`), is never
        // the installed version (`ExactVersionRelease`), but can still be a successor by
        // `replaces` or `skips` (`legacySuccessor` reads only names there).
        let version = bundle.version.as_ref();
        if let Some(bound) = &self.bound
            && !version.is_some_and(|v| bound.range.matches(v))
        {
            return Some(Rejection::OutsideUpgradePolicy {
                policy: bound.rule.clone(),
                range: bound.range.as_str().to_string(),
            });
        }
        let successors = successors?;
        let stays = version == Some(&self.version);
        if stays || successors.contains(bundle.name.as_str()) {
            None
        } else {
            Some(Rejection::NotASuccessor {
                installed: self.bundle.clone(),
            })
        }
    }
}

/// Hints when nothing is left from an installed bundle.
pub(super) fn hints(installed: &Installed, candidates: &[Candidate]) -> Vec<String> {
    let not_successors: Vec<&Candidate> = candidates
        .iter()
        .filter(|c| {
            matches!(
                c.verdict,
                Verdict::Rejected(Rejection::NotASuccessor { .. })
            )
        })
        .collect();
    let mut hints = Vec::new();
    if let Some(newest) = not_successors.first() {
        let one = not_successors.len() == 1;
        hints.push(format!(
            "{} bundle{} would match but {} not a direct successor{} of the installed {} (newest: {} {}): the catalog's upgrade graph has no edge from {} to {}; set upgradeConstraintPolicy: SelfCertified to allow {}",
            not_successors.len(),
            if one { "" } else { "s" },
            if one { "is" } else { "are" },
            if one { "" } else { "s" },
            installed.bundle,
            newest.bundle,
            newest.version,
            installed.bundle,
            if one { "it" } else { "them" },
            if one { "it" } else { "any of them" },
        ));
    }
    if !candidates
        .iter()
        .any(|c| c.bundle == installed.bundle || c.version == installed.version.to_string())
    {
        hints.push(format!(
            "the installed bundle {} ({}) is not in the catalog",
            installed.bundle, installed.version
        ));
    }
    hints
}

/// One reconcile: what OLM v1 picks for `request` with `installed` on the cluster.
pub fn resolve_installed<'a>(
    request: &Request<'_>,
    installed: &Installed,
    catalogs: &'a [LoadedCatalog],
    cluster: &Cluster,
) -> Result<Resolution<'a>, Error> {
    super::resolve_from(request, Some(installed), catalogs, cluster)
}

/// Every step of a walk, each one reconcile; the last step picks the version it started from.
#[derive(Debug)]
pub struct Walk<'a> {
    /// Where the walk started.
    pub from: Installed,
    /// Each reconcile's resolution, in order. The last one stays.
    pub steps: Vec<Resolution<'a>>,
}

impl<'a> Walk<'a> {
    /// The bundles installed one after the other, the starting bundle excluded.
    pub fn moves(&self) -> &[Resolution<'a>] {
        &self.steps[..self.steps.len().saturating_sub(1)]
    }

    /// Where the walk ends (the last pick).
    pub fn end(&self) -> &Resolution<'a> {
        self.steps
            .last()
            .expect("a walk has at least one step (the one that stays)")
    }

    /// Whether the walk moved at all.
    pub fn moved(&self) -> bool {
        self.steps.len() > 1
    }
}

/// Why a walk stopped without reaching a fixed point.
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    /// A step found nothing to pick.
    #[error("after {}: {source}", chain.join(" -> "))]
    Step {
        /// Bundles installed so far, the starting one first.
        chain: Vec<String>,
        /// The step's error.
        source: Error,
    },
    /// The walk came back to a bundle it had left.
    #[error("the upgrade graph loops: {}", chain.join(" -> "))]
    Cycle {
        /// From the starting bundle to the repeated one.
        chain: Vec<String>,
    },
}

/// Repeat [`resolve_installed`] from `installed`, installing each pick, until the pick is the
/// installed version: the bundles OLM v1 walks through for this request. The installed bundle's
/// policy and bound stay the same at every step.
pub fn walk<'a>(
    request: &Request<'_>,
    installed: &Installed,
    catalogs: &'a [LoadedCatalog],
    cluster: &Cluster,
) -> Result<Walk<'a>, WalkError> {
    walk_keeping(request, installed, catalogs, cluster, true)
}

/// [`walk`], keeping each step's candidate table only when `keep_candidates` is set (a walk
/// of n steps over n bundles otherwise holds n² candidates).
pub fn walk_keeping<'a>(
    request: &Request<'_>,
    installed: &Installed,
    catalogs: &'a [LoadedCatalog],
    cluster: &Cluster,
    keep_candidates: bool,
) -> Result<Walk<'a>, WalkError> {
    let mut current = installed.clone();
    let mut chain = vec![installed.bundle.clone()];
    let mut steps = Vec::new();
    loop {
        let mut r = resolve_installed(request, &current, catalogs, cluster).map_err(|source| {
            WalkError::Step {
                chain: chain.clone(),
                source,
            }
        })?;
        if !keep_candidates {
            r.candidates = Vec::new();
        }
        let Some(version) = r.bundle.version.clone() else {
            // The resolver never chooses a bundle without a valid version.
            return Err(WalkError::Cycle { chain });
        };
        let stays = version == current.version;
        let name = r.bundle.name.clone();
        steps.push(r);
        if stays {
            break;
        }
        let again = chain.contains(&name);
        chain.push(name.clone());
        if again {
            return Err(WalkError::Cycle { chain });
        }
        current.bundle = name;
        current.version = version;
    }
    Ok(Walk {
        from: installed.clone(),
        steps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::openshift::ClusterVersion;
    use crate::resolve::explain;
    use crate::resolve::testcat::{Fbc, entry};

    /// stable: 1.0.0 ← 1.0.1 (replaces) ← 1.1.0 (replaces 1.0.1, skips 1.0.0) ← 1.2.0
    /// (replaces 1.1.0, deprecated); 1.3.0 in `fast` only, with skipRange <1.3.0.
    fn op() -> LoadedCatalog {
        Fbc::new("op")
            .bundle("1.0.0", None)
            .bundle("1.0.1", None)
            .bundle("1.1.0", None)
            .bundle("1.2.0", None)
            .bundle("1.3.0", None)
            .channel(
                "stable",
                vec![
                    entry("op.v1.0.0", None, &[], None),
                    entry("op.v1.0.1", Some("op.v1.0.0"), &[], None),
                    entry("op.v1.1.0", Some("op.v1.0.1"), &["op.v1.0.0"], None),
                    entry("op.v1.2.0", Some("op.v1.1.0"), &[], None),
                ],
            )
            .channel(
                "fast",
                vec![
                    entry("op.v1.2.0", None, &[], None),
                    entry("op.v1.3.0", Some("op.v1.2.0"), &[], Some(">=1.0.0 <1.3.0")),
                ],
            )
            .deprecate("1.2.0")
            .load("c")
    }

    fn installed(version: &str, policy: UpgradeConstraintPolicy) -> Installed {
        Installed {
            bundle: format!("op.v{version}"),
            version: version.parse().unwrap(),
            policy,
            bound: None,
        }
    }

    fn request<'a>(channels: &'a [String]) -> Request<'a> {
        Request {
            package: "op",
            channels,
            range: None,
            catalog: None,
        }
    }

    fn cluster() -> Cluster {
        Cluster {
            version: Some(ClusterVersion::parse("4.14.8").unwrap()),
        }
    }

    fn verdict<'a>(r: &'a [Candidate], version: &str) -> &'a Verdict {
        &r.iter().find(|c| c.version == version).unwrap().verdict
    }

    #[test]
    fn catalog_provided_picks_among_the_installed_and_its_direct_successors() {
        let cats = [op()];
        let stable = ["stable".to_string()];
        let r = resolve_installed(
            &request(&stable),
            &installed("1.0.0", UpgradeConstraintPolicy::CatalogProvided),
            &cats,
            &cluster(),
        )
        .unwrap();
        // 1.0.1 replaces it and 1.1.0 skips it; 1.2.0 is two hops away.
        assert_eq!(r.bundle.version_text, "1.1.0");
        assert_eq!(
            verdict(&r.candidates, "1.2.0"),
            &Verdict::Rejected(Rejection::NotASuccessor {
                installed: "op.v1.0.0".into()
            })
        );
        assert_eq!(
            verdict(&r.candidates, "1.0.1"),
            &Verdict::Rejected(Rejection::Outranked {
                by: "op.v1.1.0".into()
            })
        );
    }

    #[test]
    fn successors_over_all_channels_when_none_is_requested() {
        let cats = [op()];
        let r = resolve_installed(
            &request(&[]),
            &installed("1.0.0", UpgradeConstraintPolicy::CatalogProvided),
            &cats,
            &cluster(),
        )
        .unwrap();
        // 1.3.0's skipRange in `fast` contains 1.0.0.
        assert_eq!(r.bundle.version_text, "1.3.0");
    }

    #[test]
    fn a_deprecated_successor_loses_even_to_staying() {
        let cats = [op()];
        let stable = ["stable".to_string()];
        let r = resolve_installed(
            &request(&stable),
            &installed("1.1.0", UpgradeConstraintPolicy::CatalogProvided),
            &cats,
            &cluster(),
        )
        .unwrap();
        assert_eq!(r.bundle.version_text, "1.1.0");
        assert_eq!(
            verdict(&r.candidates, "1.2.0"),
            &Verdict::Rejected(Rejection::Outranked {
                by: "op.v1.1.0".into()
            })
        );
    }

    #[test]
    fn self_certified_allows_any_version_in_range_downgrades_included() {
        let cats = [op()];
        let stable = ["stable".to_string()];
        let range = crate::version::masterminds::Range::parse("<1.1.0").unwrap();
        let req = Request {
            range: Some(("<1.1.0", &range)),
            ..request(&stable)
        };
        let r = resolve_installed(
            &req,
            &installed("1.2.0", UpgradeConstraintPolicy::SelfCertified),
            &cats,
            &cluster(),
        )
        .unwrap();
        assert_eq!(r.bundle.version_text, "1.0.1");
        let e = resolve_installed(
            &req,
            &installed("1.2.0", UpgradeConstraintPolicy::CatalogProvided),
            &cats,
            &cluster(),
        )
        .unwrap_err();
        let Error::NoCandidate { hints, .. } = &e else {
            panic!("{e:?}")
        };
        assert!(
            hints.iter().any(|h| h.contains("SelfCertified")),
            "{hints:?}"
        );
    }

    #[test]
    fn a_bound_rejects_with_its_rule() {
        let cats = [op()];
        let stable = ["stable".to_string()];
        let mut from = installed("1.0.0", UpgradeConstraintPolicy::CatalogProvided);
        from.bound = Some(Bound {
            rule: "follow-cluster, cluster patch upgrade".into(),
            range: crate::version::masterminds::Range::parse(">=1.0.0 <1.1.0-0").unwrap(),
        });
        let r = resolve_installed(&request(&stable), &from, &cats, &cluster()).unwrap();
        assert_eq!(r.bundle.version_text, "1.0.1");
        let rejected = &r.candidates.iter().find(|c| c.version == "1.1.0").unwrap();
        let Verdict::Rejected(reason) = &rejected.verdict else {
            panic!()
        };
        assert_eq!(
            reason.singular(),
            "is outside >=1.0.0 <1.1.0-0 (upgrade policy: follow-cluster, cluster patch upgrade)"
        );
    }

    #[test]
    fn not_a_successor_has_singular_and_plural_wording() {
        let r = Rejection::NotASuccessor {
            installed: "op.v1.0.0".into(),
        };
        assert_eq!(
            r.singular(),
            "is not a direct successor of the installed op.v1.0.0"
        );
        assert_eq!(
            r.plural(),
            "are not direct successors of the installed op.v1.0.0"
        );
        let cand = |v: &str| Candidate {
            catalog: "c".into(),
            bundle: format!("op.v{v}"),
            version: v.into(),
            channels: vec!["stable".into()],
            deprecated: false,
            verdict: Verdict::Rejected(r.clone()),
        };
        assert_eq!(
            explain::summary(&[cand("1.3.0"), cand("1.2.0")]),
            ["1.2.0 to 1.3.0 are not direct successors of the installed op.v1.0.0"]
        );
    }

    #[test]
    fn walk_repeats_the_step_until_nothing_changes() {
        let cats = [op()];
        let stable = ["stable".to_string()];
        let w = walk(
            &request(&stable),
            &installed("1.0.0", UpgradeConstraintPolicy::CatalogProvided),
            &cats,
            &cluster(),
        )
        .unwrap();
        let chain: Vec<&str> = w
            .steps
            .iter()
            .map(|r| r.bundle.version_text.as_str())
            .collect();
        // 1.0.0 → 1.1.0 (skips), then 1.2.0 is deprecated and loses to staying.
        assert_eq!(chain, ["1.1.0", "1.1.0"]);
        assert_eq!(w.moves().len(), 1);
        assert!(w.moved());
        let w = walk(
            &request(&[]),
            &installed("1.1.0", UpgradeConstraintPolicy::CatalogProvided),
            &cats,
            &cluster(),
        )
        .unwrap();
        // With all channels, 1.3.0's skipRange reaches from 1.1.0 in one hop.
        assert_eq!(w.end().bundle.version_text, "1.3.0");
        assert_eq!(w.steps.len(), 2);
    }

    #[test]
    fn walk_reports_the_chain_when_a_step_fails() {
        let cats = [op()];
        let stable = ["stable".to_string()];
        let e = walk(
            &request(&stable),
            &installed("0.9.0", UpgradeConstraintPolicy::CatalogProvided),
            &cats,
            &cluster(),
        )
        .unwrap_err();
        assert!(matches!(&e, WalkError::Step { chain, .. } if chain == &["op.v0.9.0"]));
    }
}
