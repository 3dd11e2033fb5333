//! A cluster's `featureSet`: install-config's value read against what a release has (the
//! release facts come from [`super::Release`]), whether a gate is on under it, and whether it
//! refuses minor upgrades. The gates themselves, and where each is on, are columns of the
//! release table ([`super::table`]).

use std::fmt;

use super::release::Release;
use super::table::{DEV_PREVIEW_SINCE, Gate, GateState};

/// A cluster's `featureSet` (install-config), with the gates of `CustomNoUpgrade`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum FeatureSet {
    /// No `featureSet` (or `""`): the Default set.
    #[default]
    Default,
    /// `TechPreviewNoUpgrade`.
    TechPreviewNoUpgrade,
    /// `DevPreviewNoUpgrade` (4.16 and later).
    DevPreviewNoUpgrade,
    /// `CustomNoUpgrade`: the Default set, plus `featureGates` given as `Name=true`, minus those
    /// given as `Name=false`.
    CustomNoUpgrade {
        /// Gates switched on.
        enabled: Vec<String>,
        /// Gates switched off.
        disabled: Vec<String>,
    },
}

/// Why a `featureSet` / `featureGates` pair is not valid for a release.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FeatureSetError {
    /// The name is no feature set of any release.
    #[error(
        "featureSet {found:?} is not a feature set of OpenShift {release}; it has {}",
        known.join(", ")
    )]
    Unknown {
        /// What was written.
        found: String,
        /// The release asked about.
        release: String,
        /// The feature sets that release has.
        known: Vec<&'static str>,
    },
    /// The feature set exists, but not yet on this release.
    #[error("featureSet {found} exists from OpenShift {since} on, not on {release}")]
    NotYet {
        /// What was written.
        found: &'static str,
        /// The first release that has it.
        since: &'static str,
        /// The release asked about.
        release: String,
    },
    /// `featureGates` entry not of the form `Name=true|false`.
    #[error("featureGates entry {0:?} is not of the form Name=true or Name=false")]
    BadGate(String),
    /// `featureGates` given without `featureSet: CustomNoUpgrade`.
    #[error("featureGates is only read with featureSet: CustomNoUpgrade")]
    GatesWithoutCustom,
}

impl FeatureSet {
    /// The install-config spelling (`Default` for none).
    pub fn name(&self) -> &'static str {
        match self {
            FeatureSet::Default => "Default",
            FeatureSet::TechPreviewNoUpgrade => "TechPreviewNoUpgrade",
            FeatureSet::DevPreviewNoUpgrade => "DevPreviewNoUpgrade",
            FeatureSet::CustomNoUpgrade { .. } => "CustomNoUpgrade",
        }
    }

    /// Read install-config's `featureSet` and `featureGates` for `release`.
    pub fn parse(
        feature_set: Option<&str>,
        feature_gates: &[String],
        release: &Release,
    ) -> Result<FeatureSet, FeatureSetError> {
        let set = match feature_set.unwrap_or("") {
            "" | "Default" => FeatureSet::Default,
            "TechPreviewNoUpgrade" => FeatureSet::TechPreviewNoUpgrade,
            "DevPreviewNoUpgrade" => FeatureSet::DevPreviewNoUpgrade,
            "CustomNoUpgrade" => {
                let mut enabled = Vec::new();
                let mut disabled = Vec::new();
                for gate in feature_gates {
                    match gate.split_once('=') {
                        Some((name, "true")) if !name.is_empty() => enabled.push(name.to_string()),
                        Some((name, "false")) if !name.is_empty() => {
                            disabled.push(name.to_string())
                        }
                        _ => return Err(FeatureSetError::BadGate(gate.clone())),
                    }
                }
                FeatureSet::CustomNoUpgrade { enabled, disabled }
            }
            other => {
                return Err(FeatureSetError::Unknown {
                    found: other.to_string(),
                    release: release.name.to_string(),
                    known: release.feature_sets().collect(),
                });
            }
        };
        if !matches!(set, FeatureSet::CustomNoUpgrade { .. }) && !feature_gates.is_empty() {
            return Err(FeatureSetError::GatesWithoutCustom);
        }
        if set == FeatureSet::DevPreviewNoUpgrade && !release.row.dev_preview {
            return Err(FeatureSetError::NotYet {
                found: "DevPreviewNoUpgrade",
                since: DEV_PREVIEW_SINCE,
                release: release.name.to_string(),
            });
        }
        Ok(set)
    }

    /// Whether a cluster with this feature set refuses minor upgrades. Every feature set but
    /// Default carries `NoUpgrade` in its name for this reason (openshift/api
    /// `config/v1/types_feature.go`); patch upgrades within the minor are allowed.
    pub fn blocks_minor_upgrade(&self) -> bool {
        !matches!(self, FeatureSet::Default)
    }

    pub(super) fn gate_on(&self, gate: Gate, state: GateState) -> bool {
        let by_set = match state {
            GateState::Absent => return false,
            GateState::Default => true,
            GateState::TechPreview => matches!(
                self,
                FeatureSet::TechPreviewNoUpgrade | FeatureSet::DevPreviewNoUpgrade
            ),
        };
        match self {
            FeatureSet::CustomNoUpgrade { enabled, disabled } => {
                let name = gate.openshift_name();
                if disabled.iter().any(|g| g == name) {
                    false
                } else {
                    enabled.iter().any(|g| g == name) || state == GateState::Default
                }
            }
            _ => by_set,
        }
    }
}

impl fmt::Display for FeatureSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
