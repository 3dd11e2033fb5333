//! install-config's `capabilities` and the optional components po-manifests writes objects
//! for; which capability sets enable what is [`super::provided`]'s data.

use serde::Deserialize;

/// An optional cluster component po-manifests writes objects for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capability {
    /// `OperatorLifecycleManagerV1`: the ClusterExtension and ClusterCatalog CRDs (4.18 on).
    OperatorLifecycleManagerV1,
    /// `marketplace`: the OperatorHub and CatalogSource objects' operator.
    Marketplace,
}

impl Capability {
    /// The install-config spelling.
    pub fn name(self) -> &'static str {
        match self {
            Capability::OperatorLifecycleManagerV1 => "OperatorLifecycleManagerV1",
            Capability::Marketplace => "marketplace",
        }
    }
}

/// `capabilities` (openshift/installer `pkg/types/installconfig.go` `Capabilities`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    /// `baselineCapabilitySet` (`None`, `v4.11` … `vCurrent`; unset means `vCurrent`).
    pub baseline_capability_set: Option<String>,
    /// `additionalEnabledCapabilities`.
    #[serde(default)]
    pub additional_enabled_capabilities: Vec<String>,
}
