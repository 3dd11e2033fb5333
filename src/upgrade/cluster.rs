//! The cluster's own upgrade rules, whatever its operators: which feature sets refuse a minor
//! upgrade, and which release moves leave the platform operator API behind. Every release fact
//! comes from [`crate::openshift`]'s table.
//!
//! - openshift/api `config/v1/types_feature.go`: `TechPreviewNoUpgrade`, `DevPreviewNoUpgrade`
//!   and `CustomNoUpgrade` "cannot be undone" and turn off minor upgrades (the cluster-version
//!   operator reports `Upgradeable=False` with reason `FeatureGates_RestrictedFeatureGates_…`);
//!   patch upgrades within the minor are allowed.
//! - The PlatformOperator and BundleDeployment CRDs ship with 4.12–4.15 only (reference
//!   `platform-operators.md`); OLM v1's ClusterExtension is the API from 4.18. A cluster
//!   upgraded in place from one to the other keeps no operator installed through the old API.

use serde::Serialize;

use crate::openshift::ClusterVersion;
use crate::openshift::{self, FeatureSet, OperatorApi};

/// Which cluster rule blocks the upgrade.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "rule", rename_all = "camelCase")]
pub enum ClusterRule {
    /// The cluster's feature set refuses minor upgrades.
    #[serde(rename_all = "camelCase")]
    FeatureSetNoUpgrade {
        /// The feature set.
        feature_set: String,
    },
    /// The target release has no PlatformOperator API.
    #[serde(rename_all = "camelCase")]
    PlatformOperatorApiRemoved {
        /// The last release with it.
        last: String,
        /// The first release with ClusterExtension, when the table has one.
        #[serde(skip_serializing_if = "Option::is_none")]
        cluster_extension_from: Option<String>,
    },
}

/// A cluster rule that blocks the upgrade: what, why, and the way out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterBlocker {
    /// The rule.
    #[serde(flatten)]
    pub rule: ClusterRule,
    /// Why the upgrade is blocked.
    pub reason: String,
    /// What to do instead.
    pub way_out: String,
}

/// What the cluster needs from the plan: its release, feature set, and whether any
/// non-bootstrap operator is configured (only those use the platform operator API).
#[derive(Debug, Clone)]
pub struct ClusterFacts<'a> {
    /// Current release.
    pub from: &'a ClusterVersion,
    /// Target release.
    pub to: &'a ClusterVersion,
    /// install-config `featureSet` (with its gates).
    pub feature_set: &'a FeatureSet,
    /// Whether any operator is installed through the platform operator API.
    pub platform_operators: bool,
}

/// Every cluster rule that blocks `facts.from → facts.to`.
pub fn blockers(facts: &ClusterFacts<'_>) -> Vec<ClusterBlocker> {
    let ClusterFacts {
        from,
        to,
        feature_set,
        platform_operators,
    } = *facts;
    let mut out = Vec::new();
    let minor_change = (to.major, to.minor) != (from.major, from.minor);
    if minor_change && feature_set.blocks_minor_upgrade() {
        out.push(ClusterBlocker {
            rule: ClusterRule::FeatureSetNoUpgrade {
                feature_set: feature_set.name().to_string(),
            },
            reason: format!(
                "the cluster runs featureSet {feature_set}, which cannot be undone and refuses every minor upgrade ({} → {}); only patch upgrades within {} are possible",
                from.minor_text(),
                to.minor_text(),
                from.minor_text()
            ),
            way_out: format!(
                "stay on {} and take patch upgrades only, or install a new cluster at {to} (po-manifests create --cluster-version {to})",
                from.minor_text()
            ),
        });
    }
    if platform_operators {
        let api = |v: &ClusterVersion| openshift::lookup(v).map(|r| r.operator_api(feature_set));
        if let (Ok(OperatorApi::PlatformOperator), Ok(target)) = (api(from), api(to))
            && target != OperatorApi::PlatformOperator
        {
            let last = openshift::api_releases(OperatorApi::PlatformOperator)
                .map(|(_, last)| last)
                .unwrap_or_default();
            let ce = openshift::api_releases(OperatorApi::ClusterExtension).map(|(first, _)| first);
            let way_out = match &ce {
                Some(first) => format!(
                    "from {first} on, platform operators are OLM v1 ClusterExtensions (with a ClusterCatalog and a ServiceAccount each), which no in-place upgrade creates from PlatformOperators: install a new cluster at {first} or later with the manifests `po-manifests create --cluster-version {}` writes",
                    if target == OperatorApi::ClusterExtension {
                        to.text.clone()
                    } else {
                        first.clone()
                    }
                ),
                None => "install a new cluster with the operators as bootstrap operators (`bootstrap: true`)".into(),
            };
            out.push(ClusterBlocker {
                rule: ClusterRule::PlatformOperatorApiRemoved {
                    last: last.clone(),
                    cluster_extension_from: ce,
                },
                reason: format!(
                    "the PlatformOperator API (PlatformOperator and BundleDeployment) exists up to OpenShift {last} only; {to} does not serve it, so the platform operators installed through it would be lost"
                ),
                way_out,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cv(s: &str) -> ClusterVersion {
        ClusterVersion::parse(s).unwrap()
    }

    fn rules(from: &str, to: &str, fs: &FeatureSet, po: bool) -> Vec<ClusterRule> {
        blockers(&ClusterFacts {
            from: &cv(from),
            to: &cv(to),
            feature_set: fs,
            platform_operators: po,
        })
        .into_iter()
        .map(|b| b.rule)
        .collect()
    }

    #[test]
    fn no_upgrade_feature_sets_block_minor_upgrades_only() {
        let custom = FeatureSet::CustomNoUpgrade {
            enabled: vec![],
            disabled: vec![],
        };
        for fs in [
            FeatureSet::TechPreviewNoUpgrade,
            FeatureSet::DevPreviewNoUpgrade,
            custom,
        ] {
            assert_eq!(
                rules("4.18.2", "4.19.1", &fs, false),
                vec![ClusterRule::FeatureSetNoUpgrade {
                    feature_set: fs.name().into()
                }],
                "{fs}"
            );
            assert!(rules("4.18.2", "4.18.5", &fs, false).is_empty(), "{fs}");
        }
        assert!(rules("4.18.2", "4.19.1", &FeatureSet::Default, true).is_empty());
    }

    #[test]
    fn tech_preview_4_14_cannot_reach_4_15_4_16_or_4_18() {
        let tp = FeatureSet::TechPreviewNoUpgrade;
        assert_eq!(rules("4.14.3", "4.15.3", &tp, true).len(), 1);
        for to in ["4.16.3", "4.18.5"] {
            let r = rules("4.14.3", to, &tp, true);
            assert_eq!(r.len(), 2, "{to}: {r:?}");
            assert!(matches!(
                &r[1],
                ClusterRule::PlatformOperatorApiRemoved { last, cluster_extension_from: Some(ce) }
                    if last == "4.15" && ce == "4.18"
            ));
        }
        // A patch upgrade keeps the API.
        assert!(rules("4.14.3", "4.14.9", &tp, true).is_empty());
    }

    #[test]
    fn the_way_out_names_the_create_command() {
        let b = blockers(&ClusterFacts {
            from: &cv("4.15.1"),
            to: &cv("4.18.5"),
            feature_set: &FeatureSet::TechPreviewNoUpgrade,
            platform_operators: true,
        });
        assert!(
            b[1].way_out
                .contains("po-manifests create --cluster-version 4.18.5"),
            "{}",
            b[1].way_out
        );
    }
}
