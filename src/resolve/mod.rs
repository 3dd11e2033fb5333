//! Resolution: one operator request plus the loaded catalogs and the cluster's facts give one
//! chosen bundle, or an error that lists each candidate and why it was rejected.
//!
//! The rules are OLM v1's (operator-controller `resolve/catalog.go`, see
//! `reference/catalogs-and-conversion.md` §4.3): candidates are the package's bundles in the
//! requested channels (all channels when none is given; `defaultChannel` and heads play no part)
//! whose version is in the Masterminds range; bundles deprecated through `olm.deprecations` sort
//! last, then the highest version wins (build metadata read as a release). Across catalogs a
//! non-deprecated pick beats a deprecated one, then the higher priority wins, and a tie is an
//! error. On top of OLM v1 we filter on cluster fit (`olm.maxOpenShiftVersion` below the target
//! minor, `minKubeVersion` above the cluster's Kubernetes), which OLM v1 does not check at
//! install time but which would otherwise block the cluster's next upgrade or fail the install.
//!
//! Every candidate ends [`Verdict::Chosen`] or [`Verdict::Rejected`]; [`explain`] renders the
//! table.
//!
//! For an operator that is already installed, [`installed`] adds OLM v1's upgrade constraint
//! (`upgradeConstraintPolicy`): the step the cluster repeats on every reconcile, and the walk
//! of several such steps.

pub mod explain;
pub mod facts;
pub mod installed;
pub mod olmv0;

use std::cmp::Ordering;

use crate::catalog::model::{Bundle, Catalog, Package};
use crate::openshift::ClusterVersion;
use crate::version::{self, masterminds};

use facts::{CsvSource, MaxOpenShiftVersion};
pub use installed::{Bound, Installed, Walk, WalkError, resolve_installed, walk, walk_keeping};

/// A catalog loaded for resolution, with the configuration facts about it.
#[derive(Debug)]
pub struct LoadedCatalog {
    /// Configured name.
    pub name: String,
    /// Priority (higher wins a tie between catalogs).
    pub priority: i32,
    /// The catalog image, when configured.
    pub image: Option<String>,
    /// Where it was read from (path or URL), for messages.
    pub location: String,
    /// The content.
    pub catalog: Catalog,
}

/// What the resolver is asked for.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// Package name.
    pub package: &'a str,
    /// Channels (any of them); empty: all.
    pub channels: &'a [String],
    /// Version range, with the text as written.
    pub range: Option<(&'a str, &'a masterminds::Range)>,
    /// Only this catalog, when set.
    pub catalog: Option<&'a str>,
}

/// A requested channel that no searched catalog's package has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingChannel {
    /// Its index among the request's channels.
    pub index: usize,
    /// The channel asked for.
    pub wanted: String,
    /// The package's channels, sorted.
    pub known: Vec<String>,
    /// The known channel closest to it, when one is close.
    pub suggestion: Option<String>,
}

/// Facts about the target cluster. `version: None` skips the cluster-fit filter.
#[derive(Debug, Clone, Default)]
pub struct Cluster {
    /// Target OpenShift release.
    pub version: Option<ClusterVersion>,
}

/// One bundle considered, and what happened to it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Candidate {
    /// Catalog name.
    pub catalog: String,
    /// Bundle name.
    pub bundle: String,
    /// Version text.
    pub version: String,
    /// Channels that list it.
    pub channels: Vec<String>,
    /// Deprecated through `olm.deprecations`.
    pub deprecated: bool,
    /// The outcome.
    pub verdict: Verdict,
}

/// Chosen, or rejected with a reason.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "verdict", content = "reason", rename_all = "camelCase")]
pub enum Verdict {
    /// The winner.
    Chosen,
    /// Rejected.
    Rejected(Rejection),
}

/// Why a candidate lost.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "rule", rename_all = "camelCase")]
pub enum Rejection {
    /// Not listed in any requested channel.
    NotInChannel {
        /// The requested channels.
        requested: Vec<String>,
    },
    /// The version does not parse, and a version range was requested: OLM v1's
    /// `InSemverRange` predicate is false for a bundle whose version it cannot read.
    InvalidVersion {
        /// Why the version does not parse.
        reason: String,
    },
    /// The version does not parse, so the bundle sorts after every other candidate
    /// (`compare.ByVersionAndRelease`), and one of them won.
    UnparsableRankedLast {
        /// The bundle that won this catalog.
        by: String,
        /// Why the version does not parse.
        reason: String,
    },
    /// Outside the requested range.
    OutsideRange {
        /// The range.
        range: String,
    },
    /// `olm.maxOpenShiftVersion` is below the target minor.
    MaxOpenShiftVersion {
        /// The bundle's maximum.
        max: String,
        /// The target release.
        cluster: String,
    },
    /// `olm.maxOpenShiftVersion` cannot be read.
    InvalidMaxOpenShiftVersion {
        /// Why.
        reason: String,
    },
    /// `minKubeVersion` is above the cluster's Kubernetes.
    MinKubeVersion {
        /// The bundle's minimum.
        min: String,
        /// The cluster's Kubernetes minor (`1.27`).
        cluster: String,
    },
    /// Meets the request, but another candidate ranks higher in the same catalog (cluster
    /// fit is not checked below the winner).
    Outranked {
        /// The bundle that won this catalog.
        by: String,
    },
    /// Fits, but the pick from another catalog wins (not deprecated, or higher priority).
    OtherCatalog {
        /// The winning catalog.
        catalog: String,
    },
    /// Outside the range an upgrade policy allows for this move.
    OutsideUpgradePolicy {
        /// The policy and the move (`follow-cluster, cluster minor upgrade`).
        policy: String,
        /// The range it allows.
        range: String,
    },
    /// Fits, but with `upgradeConstraintPolicy: CatalogProvided` only the installed bundle and
    /// its direct successors (`replaces`, `skips`, `skipRange`) are candidates.
    NotASuccessor {
        /// The installed bundle.
        installed: String,
    },
    /// OLM v0 passed over it for a later entry of the Subscription's list (its dependencies,
    /// or the namespace's other Subscriptions, rule it out).
    PassedOver {
        /// The bundle OLM v0 installs instead.
        by: String,
    },
    /// Not in the Subscription's order: off the channel's `replaces` chain (reached only
    /// through `skips` or `skipRange`), or not the `startingCSV`.
    NotInOrder,
}

impl Rejection {
    /// Whether the bundle met every filter and only lost the ordering.
    pub fn is_ordering(&self) -> bool {
        matches!(
            self,
            Rejection::Outranked { .. }
                | Rejection::OtherCatalog { .. }
                | Rejection::UnparsableRankedLast { .. }
                | Rejection::PassedOver { .. }
        )
    }
}

/// A warning about a choice that stands but deserves attention.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Warning(pub String);

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A successful resolution.
#[derive(Debug)]
pub struct Resolution<'a> {
    /// The catalog the bundle came from.
    pub catalog: &'a LoadedCatalog,
    /// The package.
    pub package: &'a Package,
    /// The chosen bundle.
    pub bundle: &'a Bundle,
    /// Every candidate, chosen one included, best first.
    pub candidates: Vec<Candidate>,
    /// Warnings (the choice stands).
    pub warnings: Vec<Warning>,
}

/// Why resolution failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No catalog has the package.
    #[error("package \"{package}\" is not in {}", catalogs_phrase(searched))]
    UnknownPackage {
        /// The package.
        package: String,
        /// Catalogs searched.
        searched: Vec<String>,
        /// Package names that are close.
        suggestions: Vec<String>,
    },
    /// Every bundle was rejected.
    #[error("no bundle of package \"{package}\" satisfies the request")]
    NoCandidate {
        /// The package.
        package: String,
        /// Every candidate and its rejection.
        candidates: Vec<Candidate>,
        /// What would help.
        hints: Vec<String>,
        /// A requested channel the package does not have (the first), when that is why.
        missing_channel: Option<Box<MissingChannel>>,
    },
    /// The pick is a bundle whose version does not parse: OLM v1 fails the same way, with
    /// the same words (`resolve/catalog.go`), rather than fall back to another bundle.
    #[error(
        "error getting resolved bundle version for bundle \"{bundle}\": version {version:?} does not parse: {reason}"
    )]
    UnparsableVersion {
        /// The bundle that would be the answer.
        bundle: String,
        /// Its version text.
        version: String,
        /// Why it does not parse.
        reason: String,
        /// Every candidate.
        candidates: Vec<Candidate>,
    },
    /// Equal-priority catalogs each offer a pick.
    #[error("package \"{package}\" resolves in several catalogs with the same priority {priority}: {}", picks.iter().map(|(c, b)| format!("{b} in {c}")).collect::<Vec<_>>().join(", "))]
    Ambiguous {
        /// The package.
        package: String,
        /// `(catalog, bundle)` pairs.
        picks: Vec<(String, String)>,
        /// Their priority.
        priority: i32,
        /// Every candidate.
        candidates: Vec<Candidate>,
    },
    /// OLM v0 does not resolve the Subscriptions of the operator's namespace (the
    /// subscription profile): why, in OLM's words where it has them.
    #[error("{message}")]
    Subscription {
        /// The package.
        package: String,
        /// What fails.
        message: String,
        /// What would help.
        hints: Vec<String>,
        /// The configuration field at fault, when one is (its place and name).
        field: Option<Box<(crate::config::Span, String)>>,
    },
}

impl Error {
    /// Candidates considered, when any were.
    pub fn candidates(&self) -> &[Candidate] {
        match self {
            Error::NoCandidate { candidates, .. }
            | Error::Ambiguous { candidates, .. }
            | Error::UnparsableVersion { candidates, .. } => candidates,
            Error::UnknownPackage { .. } | Error::Subscription { .. } => &[],
        }
    }
}

fn catalogs_phrase(names: &[String]) -> String {
    match names {
        [one] => format!("catalog \"{one}\""),
        many => format!(
            "any of the catalogs {}",
            many.iter()
                .map(|n| format!("\"{n}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// One catalog's surviving candidates, best first, with the data to compare across catalogs.
struct CatalogPick<'a> {
    catalog: &'a LoadedCatalog,
    package: &'a Package,
    bundle: &'a Bundle,
    deprecated: bool,
}

/// Resolve one request.
pub fn resolve<'a>(
    request: &Request<'_>,
    catalogs: &'a [LoadedCatalog],
    cluster: &Cluster,
) -> Result<Resolution<'a>, Error> {
    resolve_from(request, None, catalogs, cluster)
}

/// Resolve one request, from an installed bundle when one is given.
fn resolve_from<'a>(
    request: &Request<'_>,
    installed: Option<&Installed>,
    catalogs: &'a [LoadedCatalog],
    cluster: &Cluster,
) -> Result<Resolution<'a>, Error> {
    let searched: Vec<&LoadedCatalog> = catalogs
        .iter()
        .filter(|c| request.catalog.is_none_or(|name| c.name == name))
        .collect();
    let mut candidates = Vec::new();
    let mut picks: Vec<CatalogPick<'a>> = Vec::new();
    let mut warnings = Vec::new();
    let mut found_package = false;
    for loaded in &searched {
        let Some(package) = loaded.catalog.package(request.package) else {
            continue;
        };
        found_package = true;
        warnings.extend(broken_bundle_warnings(loaded, package));
        let (mut cands, pick) = resolve_in_catalog(request, installed, loaded, package, cluster);
        if let Some(pick) = pick {
            if let Some(b) = upgrade_block(pick.bundle, cluster) {
                warnings.push(Warning(format!(
                    "bundle {} has olm.maxOpenShiftVersion {}: it installs on {}, but will block the upgrade to {}",
                    pick.bundle.name, b.max, b.cluster, b.next
                )));
            }
            picks.push(pick);
        }
        candidates.append(&mut cands);
    }
    if !found_package {
        return Err(unknown_package(request.package, &searched));
    }
    if picks.is_empty() {
        let mut hints = explain::hints(request, &searched, &candidates);
        if let Some(i) = installed {
            hints.extend(installed::hints(i, &candidates));
        }
        return Err(Error::NoCandidate {
            package: request.package.to_string(),
            missing_channel: explain::missing_channel(request, &searched),
            candidates,
            hints,
        });
    }
    // Across catalogs: non-deprecated first, then priority.
    picks.sort_by(|a, b| {
        a.deprecated
            .cmp(&b.deprecated)
            .then(b.catalog.priority.cmp(&a.catalog.priority))
    });
    let best = &picks[0];
    let tied: Vec<&CatalogPick> = picks
        .iter()
        .filter(|p| p.deprecated == best.deprecated && p.catalog.priority == best.catalog.priority)
        .collect();
    if tied.len() > 1 {
        return Err(Error::Ambiguous {
            package: request.package.to_string(),
            picks: tied
                .iter()
                .map(|p| (p.catalog.name.clone(), p.bundle.name.clone()))
                .collect(),
            priority: best.catalog.priority,
            candidates,
        });
    }
    if best.bundle.version.is_none() {
        return Err(Error::UnparsableVersion {
            bundle: best.bundle.name.clone(),
            version: best.bundle.version_text.clone(),
            reason: version_error(best.bundle),
            candidates,
        });
    }
    for c in &mut candidates {
        if c.verdict == Verdict::Chosen && c.catalog != best.catalog.name {
            c.verdict = Verdict::Rejected(Rejection::OtherCatalog {
                catalog: best.catalog.name.clone(),
            });
        }
    }
    candidates.sort_by_key(|c| !matches!(c.verdict, Verdict::Chosen));
    if best.deprecated {
        warnings.push(Warning(format!(
            "bundle {} is deprecated: {}",
            best.bundle.name,
            best.bundle.deprecation.as_deref().unwrap_or("")
        )));
    }
    if let Some(msg) = &best.package.deprecation {
        warnings.push(Warning(format!(
            "package {} is deprecated: {msg}",
            best.package.name
        )));
    }
    for ch in &best.package.channels {
        if let Some(msg) = &ch.deprecation
            && best.bundle.channels.contains(&ch.name)
            && (request.channels.is_empty() || request.channels.contains(&ch.name))
        {
            warnings.push(Warning(format!(
                "channel {} of package {} is deprecated: {msg}",
                ch.name, best.package.name
            )));
        }
    }
    for ch in &best.package.channels {
        if !request.channels.is_empty() && !request.channels.contains(&ch.name) {
            continue;
        }
        let heads = crate::catalog::graph::heads(ch);
        if heads.len() > 1 {
            warnings.push(Warning(format!(
                "channel {} of package {} has {} heads ({}): `opm validate` rejects this catalog; like OLM v1, resolution goes on",
                ch.name,
                best.package.name,
                heads.len(),
                heads.join(", ")
            )));
        }
    }
    if cluster.version.is_none() {
        warnings.push(Warning(
            "no clusterVersion is set: olm.maxOpenShiftVersion and minKubeVersion were not checked"
                .into(),
        ));
    }
    Ok(Resolution {
        catalog: best.catalog,
        package: best.package,
        bundle: best.bundle,
        candidates,
        warnings,
    })
}

/// Filter, check and order one catalog's bundles of the package.
fn resolve_in_catalog<'a>(
    request: &Request<'_>,
    installed: Option<&Installed>,
    loaded: &'a LoadedCatalog,
    package: &'a Package,
    cluster: &Cluster,
) -> (Vec<Candidate>, Option<CatalogPick<'a>>) {
    let successors = installed.and_then(|i| i.successors(request, package));
    let mut ordered: Vec<&Bundle> = package.bundles.iter().collect();
    ordered.sort_by(|a, b| order(a, b).then_with(|| a.name.cmp(&b.name)));
    let mut candidates = Vec::with_capacity(ordered.len());
    let mut winner: Option<&Bundle> = None;
    for bundle in ordered {
        // Cheap rules first. Cluster fit reads the CSV, so it is only checked until a winner is
        // found: a bundle ranked below the winner loses by ranking whatever its fit.
        let verdict = match request_filter(request, bundle)
            .or_else(|| installed.and_then(|i| i.filter(bundle, successors.as_ref())))
        {
            Some(rejection) => Verdict::Rejected(rejection),
            None => match winner {
                Some(w) if bundle.version.is_none() => {
                    Verdict::Rejected(Rejection::UnparsableRankedLast {
                        by: w.name.clone(),
                        reason: version_error(bundle),
                    })
                }
                Some(w) => Verdict::Rejected(Rejection::Outranked { by: w.name.clone() }),
                None => match cluster_fit(bundle, cluster) {
                    Some(rejection) => Verdict::Rejected(rejection),
                    None => {
                        winner = Some(bundle);
                        Verdict::Chosen
                    }
                },
            },
        };
        candidates.push(Candidate {
            catalog: loaded.name.clone(),
            bundle: bundle.name.clone(),
            version: bundle.version_text.clone(),
            channels: bundle.channels.clone(),
            deprecated: bundle.deprecation.is_some(),
            verdict,
        });
    }
    let pick = winner.map(|bundle| CatalogPick {
        catalog: loaded,
        package,
        bundle,
        deprecated: bundle.deprecation.is_some(),
    });
    (candidates, pick)
}

/// OLM v1 order: not deprecated first, then version descending, unparsable versions last.
fn order(a: &Bundle, b: &Bundle) -> Ordering {
    a.deprecation
        .is_some()
        .cmp(&b.deprecation.is_some())
        .then_with(|| match (&a.version, &b.version) {
            (Some(x), Some(y)) => version::cmp_olm(y, x),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        })
}

/// The first rule of the request a bundle fails: channel, then version and range.
fn request_filter(request: &Request<'_>, bundle: &Bundle) -> Option<Rejection> {
    if !request.channels.is_empty() && !bundle.channels.iter().any(|c| request.channels.contains(c))
    {
        return Some(Rejection::NotInChannel {
            requested: request.channels.to_vec(),
        });
    }
    if let Some((text, range)) = request.range {
        // OLM v1's `InSemverRange`: a version that does not parse never matches. Without a
        // range the bundle stays a candidate and sorts last.
        let Some(version) = &bundle.version else {
            return Some(Rejection::InvalidVersion {
                reason: version_error(bundle),
            });
        };
        if !range.matches(version) {
            return Some(Rejection::OutsideRange {
                range: text.to_string(),
            });
        }
    }
    None
}

/// Why a bundle's version does not parse (empty when it does).
fn version_error(bundle: &Bundle) -> String {
    crate::catalog::model::parse_version(&bundle.version_text)
        .err()
        .unwrap_or_default()
}

/// One warning per bundle of `package` whose version does not parse: where it is, what is
/// wrong, and what OLM v1 does with it. `opm validate` refuses such a catalog; catalogd
/// serves it and operator-controller resolves around the bundle.
fn broken_bundle_warnings(loaded: &LoadedCatalog, package: &Package) -> Vec<Warning> {
    package
        .bundles
        .iter()
        .filter(|b| b.version.is_none())
        .map(|b| {
            Warning(format!(
                "{}: bundle {} of package {} in catalog {}: version {:?} does not parse ({}); like OLM v1, it never matches a version range and is an error only if it would be the answer",
                b.origin,
                b.name,
                package.name,
                loaded.name,
                b.version_text,
                version_error(b)
            ))
        })
        .collect()
}

/// Why a bundle does not fit a release ([`fit`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Misfit {
    /// `olm.maxOpenShiftVersion` (as written, quotes removed) is below the release.
    MaxOpenShiftVersion(String),
    /// `olm.maxOpenShiftVersion` cannot be read (why).
    InvalidMaxOpenShiftVersion(String),
    /// `minKubeVersion` is above the Kubernetes the release ships.
    MinKubeVersion {
        /// The bundle's minimum, as written.
        min: String,
        /// The release's Kubernetes (`1.28`).
        kube: String,
    },
}

/// Whether a bundle fits release `release`: `olm.maxOpenShiftVersion` not below its minor (4.23
/// counting as 5.0), `minKubeVersion` not above its Kubernetes. The one fit check: OLM v1's
/// selection, OLM v0's picks and the upgrade planner's hops all ask it.
pub fn fit(bundle: &Bundle, release: &ClusterVersion) -> Result<(), Misfit> {
    match facts::max_openshift_version(bundle) {
        MaxOpenShiftVersion::Valid { major, minor, raw }
            if crate::openshift::release_order(major, minor)
                < crate::openshift::release_order(release.major, release.minor) =>
        {
            return Err(Misfit::MaxOpenShiftVersion(
                raw.trim_matches('"').to_string(),
            ));
        }
        MaxOpenShiftVersion::Invalid { reason } => {
            return Err(Misfit::InvalidMaxOpenShiftVersion(reason));
        }
        _ => {}
    }
    if let Some(kube_minor) = release.kube_minor()
        && let CsvSource::Metadata(f) | CsvSource::Embedded(f) = facts::csv_facts(bundle)
        && let Some(min) = f.min_kube_version
        && let Some((maj, min_minor, _)) = facts::parse_kube_version(&min)
        && (maj, min_minor) > (1, kube_minor)
    {
        return Err(Misfit::MinKubeVersion {
            min,
            kube: format!("1.{kube_minor}"),
        });
    }
    Ok(())
}

/// Whether a bundle fits the target cluster ([`fit`]), as a rejection. Always fits when no
/// cluster version is known.
pub(crate) fn cluster_fit(bundle: &Bundle, cluster: &Cluster) -> Option<Rejection> {
    let cv = cluster.version.as_ref()?;
    fit(bundle, cv).err().map(|misfit| match misfit {
        Misfit::MaxOpenShiftVersion(max) => Rejection::MaxOpenShiftVersion {
            max,
            cluster: cv.text.clone(),
        },
        Misfit::InvalidMaxOpenShiftVersion(reason) => {
            Rejection::InvalidMaxOpenShiftVersion { reason }
        }
        Misfit::MinKubeVersion { min, kube } => Rejection::MinKubeVersion { min, cluster: kube },
    })
}

/// A bundle that installs on the cluster but whose `olm.maxOpenShiftVersion` keeps the cluster
/// from its next release (4.23 counting as 5.0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UpgradeBlock {
    /// `olm.maxOpenShiftVersion` as written.
    pub max: String,
    /// The cluster's release, as written.
    pub cluster: String,
    /// The release it cannot upgrade to.
    pub next: String,
}

/// Whether `bundle`'s `olm.maxOpenShiftVersion` blocks the cluster's next upgrade, for OLM v1
/// and OLM v0 alike (each words it for its own ClusterOperator).
pub(crate) fn upgrade_block(bundle: &Bundle, cluster: &Cluster) -> Option<UpgradeBlock> {
    let cv = cluster.version.as_ref()?;
    let MaxOpenShiftVersion::Valid { major, minor, raw } = facts::max_openshift_version(bundle)
    else {
        return None;
    };
    let blocks = crate::openshift::release_order(major, minor)
        >= crate::openshift::release_order(cv.major, cv.minor)
        && !crate::openshift::max_version_allows_upgrade((major, minor), cv);
    blocks.then(|| UpgradeBlock {
        max: raw,
        cluster: cv.text.clone(),
        next: crate::openshift::next_minor(cv),
    })
}

/// The error for a package no searched catalog has, with the names that are close.
pub(crate) fn unknown_package(package: &str, searched: &[&LoadedCatalog]) -> Error {
    Error::UnknownPackage {
        package: package.to_string(),
        searched: searched.iter().map(|c| c.name.clone()).collect(),
        suggestions: close_package_names(package, searched.iter().map(|c| &c.catalog)),
    }
}

/// The names of the catalogs' packages (those the load's filter left out too) that are
/// close to `package`, closest first, at most three: a "did you mean".
pub(crate) fn close_package_names<'c>(
    package: &str,
    catalogs: impl IntoIterator<Item = &'c Catalog>,
) -> Vec<String> {
    let mut scored: Vec<(f64, &str)> = catalogs
        .into_iter()
        .flat_map(|c| {
            c.packages
                .iter()
                .map(|p| p.name.as_str())
                .chain(c.skipped_packages.iter().map(String::as_str))
        })
        .map(|name| (strsim::jaro_winkler(package, name), name))
        .filter(|(score, _)| *score > 0.85)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    let mut suggestions: Vec<String> = scored.into_iter().map(|(_, n)| n.to_string()).collect();
    suggestions.dedup();
    suggestions.truncate(3);
    suggestions
}

/// A problem with the chosen bundle that the target cannot install.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    /// Short rule name (`installModes`, `webhooks`, `apiServices`, `dependencies`).
    pub rule: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The checks every profile makes on the winner (phase 0 and OLM v1 share these limits):
/// AllNamespaces install mode, no webhooks (no certificate provider is configured), no owned
/// APIServices, no dependencies. Returns problems (errors) and warnings (facts unknown).
pub fn check_installable(bundle: &Bundle) -> (Vec<Problem>, Vec<Warning>) {
    let mut problems = Vec::new();
    let mut warnings = Vec::new();
    // Names and lists from the catalog, escaped for the terminal.
    let name = crate::text::printable(&bundle.name);
    let list = |items: &[String]| crate::text::printable(&items.join(", ")).into_owned();
    match facts::csv_facts(bundle) {
        CsvSource::Metadata(f) | CsvSource::Embedded(f) => {
            if !f.install_modes.iter().any(|m| m == "AllNamespaces") {
                problems.push(Problem {
                    rule: "installModes".into(),
                    message: format!(
                        "bundle {} does not support the AllNamespaces install mode (it supports: {})",
                        name,
                        if f.install_modes.is_empty() { "none".into() } else { list(&f.install_modes) }
                    ),
                });
            }
            if !f.webhooks.is_empty() {
                problems.push(Problem {
                    rule: "webhooks".into(),
                    message: format!(
                        "bundle {} defines webhooks ({}), which need a certificate provider that this install does not configure",
                        name,
                        list(&f.webhooks)
                    ),
                });
            }
            if !f.api_services.is_empty() {
                problems.push(Problem {
                    rule: "apiServices".into(),
                    message: format!("bundle {} owns APIService definitions ({}), which OLM v1 cannot install", name, list(&f.api_services)),
                });
            }
        }
        CsvSource::Unknown => warnings.push(Warning(format!(
            "bundle {}: the catalog carries neither olm.csv.metadata nor olm.bundle.object, so install modes, webhooks and APIServices were not checked",
            name
        ))),
        CsvSource::Invalid(reason) => problems.push(Problem {
            rule: "csv".into(),
            message: format!(
                "bundle {name}: cannot read its ClusterServiceVersion: {}",
                crate::text::printable(&reason)
            ),
        }),
    }
    let deps = facts::dependencies(bundle);
    if !deps.is_empty() {
        problems.push(Problem {
            rule: "dependencies".into(),
            message: format!(
                "bundle {} declares dependencies, which are not resolved for platform operators: {}",
                name,
                crate::text::printable(&deps.iter().map(|d| format!("{} {}", d.kind, d.value)).collect::<Vec<_>>().join("; "))
            ),
        });
    }
    (problems, warnings)
}

/// Why a chosen bundle cannot be written: its name becomes the ClusterServiceVersion's (OLM v0)
/// or the written objects' `metadata.name`, so it must be a DNS-1123 subdomain, and its package
/// name a DNS-1123 label ([`crate::kubenames`], the one validator). opm accepts either; every
/// profile refuses them here. The names are escaped for the terminal.
pub fn name_problems(bundle: &Bundle) -> Vec<Problem> {
    use crate::kubenames::{MAX_LABEL, NameRule, check_label, check_name};
    let mut problems = Vec::new();
    let file = bundle.origin.file.display().to_string();
    let file = crate::text::printable(&file);
    if let Err(why) = check_label(&bundle.package, MAX_LABEL) {
        problems.push(Problem {
            rule: "packageName".into(),
            message: format!(
                "catalog file {file}: package {}: field `package` {why}, so it is not a valid Kubernetes name",
                crate::text::escape(&bundle.package)
            ),
        });
    }
    if let Err(why) = check_name(&bundle.name, NameRule::Subdomain) {
        problems.push(Problem {
            rule: "bundleName".into(),
            message: format!(
                "catalog file {file}: package {}: bundle field `name` {} {why}, so it cannot be the ClusterServiceVersion's or an object's metadata.name",
                crate::text::escape(&bundle.package),
                crate::text::escape(&bundle.name)
            ),
        });
    }
    problems
}

#[cfg(test)]
pub(crate) mod testcat;
#[cfg(test)]
mod tests;
