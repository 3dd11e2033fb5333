//! The per-operator upgrade settings of the `platformOperators` extension: how a platform
//! operator follows cluster upgrades (`upgrade`), how OLM v1 may move it from its installed
//! bundle (`upgradeConstraintPolicy`), and what is installed (`installed`).
//!
//! The values and their meaning come from the Platform Operators enhancement review
//! (`reference/platform-operators.md`) and OLM v1's `ClusterExtension`
//! (`reference/catalogs-and-conversion.md` §4.3).

use serde::Serialize;

use super::Located;

/// How a platform operator follows cluster upgrades (`upgrade:`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
pub enum UpgradePolicy {
    /// Default: a cluster patch upgrade allows a newer patch of the operator's own version
    /// (`>=X.Y.Z <X.(Y+1).0-0`), a cluster minor upgrade a newer minor (`>=X.Y.Z <(X+1).0.0-0`).
    #[default]
    #[serde(rename = "follow-cluster")]
    FollowCluster,
    /// Stays at the installed version unless it must move to keep the cluster upgradeable.
    #[serde(rename = "pinned")]
    Pinned,
    /// The newest compatible version, new majors included.
    #[serde(rename = "latest")]
    Latest,
}

impl UpgradePolicy {
    /// Every value, as written in the configuration.
    pub const ALL: [&'static str; 3] = ["follow-cluster", "pinned", "latest"];

    /// Parse the configuration spelling.
    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "follow-cluster" => Ok(UpgradePolicy::FollowCluster),
            "pinned" => Ok(UpgradePolicy::Pinned),
            "latest" => Ok(UpgradePolicy::Latest),
            _ => Err(format!(
                "\"{text}\" is not an upgrade policy; expected one of: {}",
                Self::ALL.join(", ")
            )),
        }
    }

    /// The configuration spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            UpgradePolicy::FollowCluster => "follow-cluster",
            UpgradePolicy::Pinned => "pinned",
            UpgradePolicy::Latest => "latest",
        }
    }
}

impl std::fmt::Display for UpgradePolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// OLM v1's `ClusterExtension.spec.source.catalog.upgradeConstraintPolicy`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
pub enum UpgradeConstraintPolicy {
    /// Default: from an installed bundle, only the bundle itself and its direct successors
    /// (`replaces`, `skips`, `skipRange`) are candidates.
    #[default]
    CatalogProvided,
    /// Upgrade edges are ignored: any version in the channels and range, downgrades included.
    SelfCertified,
}

impl UpgradeConstraintPolicy {
    /// Every value, as written in the configuration.
    pub const ALL: [&'static str; 2] = ["CatalogProvided", "SelfCertified"];

    /// Parse the configuration spelling (exact, as the Kubernetes API is).
    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "CatalogProvided" => Ok(UpgradeConstraintPolicy::CatalogProvided),
            "SelfCertified" => Ok(UpgradeConstraintPolicy::SelfCertified),
            _ => Err(format!(
                "\"{text}\" is not an upgrade constraint policy; expected one of: {}",
                Self::ALL.join(", ")
            )),
        }
    }

    /// A hint when the value differs from a valid one only in case.
    pub fn suggestion(text: &str) -> Option<&'static str> {
        Self::ALL
            .into_iter()
            .find(|v| v.eq_ignore_ascii_case(text) && *v != text)
    }

    /// The configuration spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            UpgradeConstraintPolicy::CatalogProvided => "CatalogProvided",
            UpgradeConstraintPolicy::SelfCertified => "SelfCertified",
        }
    }
}

impl std::fmt::Display for UpgradeConstraintPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `installed: {bundle, version}`: the bundle running on the cluster now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstalledBundle {
    /// Bundle name (`cert-manager.v1.13.0`).
    pub bundle: Located<String>,
    /// Version text as written.
    pub version: Located<String>,
    /// The parsed version (strict semver, as bundle versions are read).
    pub parsed: semver::Version,
}
