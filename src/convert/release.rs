//! What the registry+v1 renderers of OpenShift's releases do differently. The release table
//! ([`crate::openshift`]) says which renderer a cluster runs ([`Renderer`]) and whether its
//! `applier/provider.go` checks run; this module turns those two facts into rules.
//!
//! Sources, openshift/operator-framework-operator-controller:
//! - `release-4.18` `internal/rukpak/convert/registryv1.go` (`Convert`): no validators; the
//!   target-namespace check, then "apiServiceDefintions are not supported", then
//!   "webhookDefinitions are not supported"; ServiceAccounts also for every deployment's
//!   `serviceAccountName`; the promoted permissions are appended to a copy of each entry, so
//!   the `namespaces get/list/watch` rule is lost (and the hashed ClusterRole names differ from
//!   later releases'); no `revisionHistoryLimit`; CRDs are kept as unstructured objects among
//!   the others; `internal/applier/helm.go` always passes target namespaces `[""]`;
//! - `release-4.19` `internal/operator-controller/rukpak/convert/registryv1.go` and
//!   `validator.go`: four validators (`CheckDeploymentSpecUniqueness`,
//!   `CheckCRDResourceUniqueness`, `CheckOwnedCRDExistence`, `CheckPackageNameNotEmpty`), the
//!   namespaces rule and `revisionHistoryLimit: 1`, CRDs typed;
//! - `release-4.20` `internal/operator-controller/rukpak/render/registryv1/registryv1.go`: the
//!   generators, and the validators without `CheckConversionWebhookSupport`,
//!   `CheckWebhookRules`, `CheckObjectSupport`; `rukpak/render/render.go`'s older
//!   `validateTargetNamespaces` (a SingleNamespace bundle may target its install namespace);
//! - `release-4.21`/`release-4.22`: `applier/provider.go` and the full validator list.
//!
//! Supported "other" kinds follow the operator-registry each branch vendors
//! (`vendor/github.com/operator-framework/operator-registry/pkg/lib/bundle/supported_resources.go`):
//! v1.48 (4.18) and v1.51 (4.19) lack `PodMonitor`, `ConsolePlugin` and `NetworkPolicy`, the
//! last being added by a downstream-only patch in both converters; v1.56 (4.20) adds
//! `NetworkPolicy` and `ConsolePlugin`; v1.61 (4.21) adds `PodMonitor`.
//!
//! No release branch sets the `olm.operatorNamespace` pod annotation (upstream main added it
//! after 4.22 branched), so no renderer here does.

use std::collections::BTreeSet;

use crate::bundle::InstallModeType;
use crate::openshift::Renderer;

use super::{Options, TargetNamespacesProblem};

/// Which validators of `validators/validator.go` a renderer runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Checks {
    /// Any validator at all (4.19 on).
    pub any: bool,
    /// The deployment-name and webhook validators of `render/registryv1` (4.20 on).
    pub registry_v1: bool,
    /// `CheckConversionWebhookSupport` and `CheckWebhookRules` (4.21 on).
    pub provider: bool,
}

impl Options {
    pub(crate) fn checks(&self) -> Checks {
        Checks {
            any: self.renderer != Renderer::Convert418,
            registry_v1: self.renderer == Renderer::RegistryV1,
            provider: self.renderer == Renderer::RegistryV1 && self.provider_checks,
        }
    }

    /// Whether the old converters run (ServiceAccounts per deployment, refusals after the
    /// target check).
    pub(crate) fn old_converter(&self) -> bool {
        self.renderer != Renderer::RegistryV1
    }

    /// The `namespaces get/list/watch` rule reaches the promoted ClusterRoles (not on 4.18).
    pub(crate) fn promotes_namespaces_rule(&self) -> bool {
        self.renderer != Renderer::Convert418
    }

    /// `spec.revisionHistoryLimit: 1` on every Deployment (not on 4.18).
    pub(crate) fn revision_history_limit(&self) -> bool {
        self.renderer != Renderer::Convert418
    }

    /// Whether the renderer installs `kind` from a bundle's other manifests, and whether it is
    /// namespaced; `None`: "bundle contains unsupported resource".
    pub fn supported_kind(&self, kind: &str) -> Option<bool> {
        match kind {
            "PodMonitor" if !(self.renderer == Renderer::RegistryV1 && self.provider_checks) => {
                None
            }
            "ConsolePlugin" if self.renderer != Renderer::RegistryV1 => None,
            _ => super::supported_kind(kind),
        }
    }

    /// `validateTargetNamespaces` of this renderer.
    pub(crate) fn check_target_namespaces(
        &self,
        modes: &BTreeSet<InstallModeType>,
        install_ns: &str,
        targets: &[String],
    ) -> Result<(), TargetNamespacesProblem> {
        if self.renderer == Renderer::RegistryV1 && self.provider_checks {
            super::check_target_namespaces(modes, install_ns, targets)
        } else {
            check_target_namespaces_before_4_21(modes, install_ns, targets)
        }
    }
}

/// `validateTargetNamespaces` as 4.18's and 4.19's converters and 4.20's `render.go` have it:
/// a single namespace passes with SingleNamespace whatever it is, or with OwnNamespace when it
/// is the install namespace.
fn check_target_namespaces_before_4_21(
    modes: &BTreeSet<InstallModeType>,
    install_ns: &str,
    targets: &[String],
) -> Result<(), TargetNamespacesProblem> {
    use InstallModeType::*;
    let set: BTreeSet<&str> = targets.iter().map(String::as_str).collect();
    if set.is_empty() || (set.len() == 1 && set.contains("")) {
        return if modes.contains(&AllNamespaces) {
            Ok(())
        } else {
            Err(TargetNamespacesProblem::AllNamespaces)
        };
    }
    if set.len() == 1 {
        if modes.contains(&SingleNamespace)
            || (modes.contains(&OwnNamespace) && targets[0] == install_ns)
        {
            return Ok(());
        }
        return Err(TargetNamespacesProblem::Other);
    }
    if modes.contains(&MultiNamespace) && !set.contains("") {
        return Ok(());
    }
    Err(TargetNamespacesProblem::Other)
}
