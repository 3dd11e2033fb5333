//! The `convert` step: render a registry+v1 bundle into plain Kubernetes manifests, exactly
//! as OLM v1 does.
//!
//! Input: a [`RegistryV1`] and [`Options`] (install namespace, target namespaces, optional
//! [`DeploymentConfig`], the release's renderer and certificate provider, see
//! [`Options::for_olm_v1`] and [`release`]). Output: the objects to apply, as JSON, sorted by
//! kind, then namespace, then name (the order of upstream's regression fixtures).
//!
//! Source of truth: operator-controller `internal/operator-controller/rukpak/render`
//! (`render.go`, `registryv1/generators/generators.go`, `registryv1/validators/validator.go`)
//! and `applier/provider.go` for the refusals; summarised in
//! `reference/catalogs-and-conversion.md` §5.1. In order:
//!
//! 1. refusals (`provider.go`): owned APIService definitions; webhook definitions without a
//!    certificate provider ([`webhooks`]: OpenShift's service-ca where the release has it); a
//!    bundle without AllNamespaces where the Single/OwnNamespace gate is off; a bundle
//!    supporting none of AllNamespaces, SingleNamespace, OwnNamespace (4.18 and 4.19 refuse
//!    after the target check instead, see [`release`]);
//! 2. every validator ([`validate`]), problems collected;
//! 3. target-namespace rules (`validateTargetNamespaces`);
//! 4. generation: ServiceAccounts, Roles/RoleBindings per target namespace (not in
//!    AllNamespaces mode), ClusterRoles/ClusterRoleBindings (with `permissions` promoted and
//!    the extra `namespaces` rule in AllNamespaces mode), CRDs as they are, other objects
//!    moved into the install namespace when namespaced, Deployments, and with a certificate
//!    provider the webhook configurations, their Services and the CRDs' conversion webhooks.
//!    RBAC names are hashed ([`naming`]).
//!
//! 5. the typed round trip ([`roundtrip`]): what Go's typed structs make of every object but
//!    the bundle's unstructured others.
//!
//! No Namespace object is generated (OLM v1 does not either).

mod deployment;
pub mod naming;
mod release;
pub mod roundtrip;
mod validate;
pub mod webhooks;

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fmt;

use serde_json::{Map, Value, json};

use crate::bundle::{self, InstallModeType, Permission, PolicyRule, RegistryV1, WebhookType};
use crate::openshift::{OlmV1, Release, Renderer};

pub use deployment::{Affinity, DeploymentConfig};
pub use validate::{Problem, supported_kind, validate};
pub use webhooks::CertProvider;

/// How to render a bundle.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Namespace the operator is installed into (`ClusterExtension.spec.namespace`).
    pub install_namespace: String,
    /// Namespaces the operator watches; empty or `[""]` means all namespaces.
    pub target_namespaces: Vec<String>,
    /// Optional Subscription-style deployment customisations.
    pub deployment_config: Option<DeploymentConfig>,
    /// Which release's converter to follow (see [`release`]). A later pass that round-trips
    /// objects through their Go types reads this too: 4.18 keeps CRDs untyped.
    pub renderer: Renderer,
    /// The release runs `applier/provider.go`'s checks (4.21 on).
    pub provider_checks: bool,
    /// The certificate provider for webhooks; `None`: bundles with webhooks are refused.
    pub cert_provider: Option<CertProvider>,
    /// `SingleOwnNamespaceInstallSupport` is on; where it is off, `applier/provider.go` (4.21
    /// on) refuses bundles without AllNamespaces before rendering. Older releases never pass
    /// other target namespaces with the gate off, so for them only [`Self::target_namespaces`]
    /// matters.
    pub own_single_namespace: bool,
    /// The Kubernetes minor whose Go types the release's OLM v1 decodes typed objects into
    /// ([`crate::openshift::OlmV1::kubernetes_minor`]): a field those types lack is dropped.
    pub kubernetes_minor: u64,
}

impl Default for Options {
    /// The newest release's renderer with the webhook provider off.
    fn default() -> Self {
        Options {
            install_namespace: String::new(),
            target_namespaces: Vec::new(),
            deployment_config: None,
            renderer: Renderer::RegistryV1,
            provider_checks: true,
            cert_provider: None,
            own_single_namespace: true,
            kubernetes_minor: crate::openshift::RELEASES
                .last()
                .map_or(0, |r| r.kubernetes_minor),
        }
    }
}

impl Options {
    /// Render as `olm` (one release under one feature set) does, into `install_namespace`,
    /// for all namespaces.
    pub fn for_olm_v1(olm: &OlmV1, install_namespace: &str) -> Options {
        Options {
            install_namespace: install_namespace.to_owned(),
            renderer: olm.renderer,
            provider_checks: olm.provider_checks,
            cert_provider: olm.webhooks.then_some(CertProvider::OpenShiftServiceCa),
            own_single_namespace: olm.own_single_namespace,
            kubernetes_minor: olm.kubernetes_minor,
            ..Options::default()
        }
    }
}

/// Why target namespaces were refused (`validateTargetNamespaces` in `render.go`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TargetNamespacesProblem {
    /// `[""]` needs AllNamespaces.
    AllNamespaces,
    /// `[install namespace]` (or a list containing it) needs OwnNamespace.
    OwnNamespace,
    /// Any other combination the bundle's modes do not allow.
    Other,
}

/// Why a bundle could not be converted.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The CSV could not be read.
    #[error(transparent)]
    Bundle(#[from] bundle::Error),
    /// No install namespace was given.
    #[error("bundle {csv:?}: an install namespace is required")]
    NoInstallNamespace {
        /// The CSV name.
        csv: String,
    },
    /// The bundle owns APIService definitions.
    #[error(
        "bundle {csv:?} is not supported: it owns API service definitions ({}); OLM v1 does not install aggregated API servers, so neither does po-manifests — install this operator with OLM v0 (a Subscription) instead",
        api_services.join(", ")
    )]
    ApiServicesUnsupported {
        /// The CSV name.
        csv: String,
        /// Names of the owned API services.
        api_services: Vec<String>,
    },
    /// The bundle declares webhooks and the target's OLM v1 has no certificate provider.
    #[error(
        "bundle {csv:?} is not supported: it declares webhook definitions ({}), and this OLM v1 has no certificate provider for them (webhookDefinitions are not supported){}; choose a bundle version without webhooks otherwise",
        webhook_list(webhooks),
        accepted_on.as_ref().map(|w| format!("; OLM v1 installs webhooks through OpenShift's service-ca on {w}")).unwrap_or_default()
    )]
    WebhooksUnsupported {
        /// The CSV name.
        csv: String,
        /// Type and `generateName` of each webhook.
        webhooks: Vec<(WebhookType, String)>,
        /// The releases and feature sets whose OLM v1 installs them.
        accepted_on: Option<String>,
    },
    /// A CRD named by a conversion webhook keeps unknown fields.
    #[error(
        "bundle {csv:?}: custom resource definition '{crd}' must have .spec.preserveUnknownFields set to false to let API Server call webhook to do the conversion"
    )]
    ConversionCrdPreservesUnknownFields {
        /// The CSV name.
        csv: String,
        /// The CRD.
        crd: String,
    },
    /// Two conversion webhooks name one CRD (found while rendering, on renderers without the
    /// validator).
    #[error(
        "bundle {csv:?}: custom resource definition '{crd}' is referenced by multiple conversion webhook definitions"
    )]
    ConversionCrdSharedAtRender {
        /// The CSV name.
        csv: String,
        /// The CRD.
        crd: String,
    },
    /// The bundle lacks AllNamespaces and the release's Single/OwnNamespace gate is off.
    #[error(
        "bundle {csv:?} is not supported: bundle does not support AllNamespaces install mode (it supports {}), and this OLM v1 installs others only with NewOLMOwnSingleNamespace{}",
        go_list(supported),
        accepted_on.as_ref().map(|w| format!(", which is on in {w}")).unwrap_or_default()
    )]
    NoAllNamespaces {
        /// The CSV name.
        csv: String,
        /// The install modes it supports.
        supported: Vec<InstallModeType>,
        /// Where the gate is on.
        accepted_on: Option<String>,
    },
    /// The bundle supports none of AllNamespaces, SingleNamespace, OwnNamespace.
    #[error(
        "bundle {csv:?} is not supported: it must support at least one of [AllNamespaces SingleNamespace OwnNamespace] install modes, supports {}",
        go_list(supported)
    )]
    NoUsableInstallMode {
        /// The CSV name.
        csv: String,
        /// The install modes it supports.
        supported: Vec<InstallModeType>,
    },
    /// Validators found problems.
    #[error("bundle {csv:?} is invalid:{}", problems.iter().map(|p| format!("\n  - {p}")).collect::<String>())]
    Invalid {
        /// The CSV name.
        csv: String,
        /// Every problem found.
        problems: Vec<Problem>,
    },
    /// The target namespaces do not fit the bundle's install modes.
    #[error(
        "bundle {csv:?}: invalid target namespaces {}: supported install modes {} {}",
        go_list(target_namespaces), go_list(supported), TargetDisplay(*problem, target_namespaces)
    )]
    TargetNamespaces {
        /// The CSV name.
        csv: String,
        /// The requested target namespaces (`[""]` for all).
        target_namespaces: Vec<String>,
        /// The install namespace.
        install_namespace: String,
        /// The install modes the bundle supports.
        supported: Vec<InstallModeType>,
        /// Which rule failed.
        problem: TargetNamespacesProblem,
    },
    /// A deployment in the CSV has a field of the wrong type.
    #[error(
        "bundle {csv:?}: deployment {deployment:?}: field {field} must be {expected}, found {found}"
    )]
    InvalidDeployment {
        /// The CSV name.
        csv: String,
        /// The strategy deployment name.
        deployment: String,
        /// Dotted path inside the Deployment.
        field: String,
        /// What was expected.
        expected: &'static str,
        /// JSON type found.
        found: &'static str,
    },
    /// An object does not fit the typed struct OLM v1 decodes it into.
    #[error("bundle {csv:?}: {source}")]
    Typed {
        /// The CSV name.
        csv: String,
        /// The object and field.
        #[source]
        source: roundtrip::Error,
    },
    /// An object in the bundle is not a mapping with metadata.
    #[error("bundle {csv:?}: {kind} {name:?}: metadata must be a mapping")]
    InvalidObject {
        /// The CSV name.
        csv: String,
        /// The object's kind.
        kind: String,
        /// The object's name.
        name: String,
    },
}

struct TargetDisplay<'a>(TargetNamespacesProblem, &'a [String]);

impl fmt::Display for TargetDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            TargetNamespacesProblem::AllNamespaces => {
                f.write_str("do not support targeting all namespaces")
            }
            TargetNamespacesProblem::OwnNamespace => {
                f.write_str("do not support targeting own namespace")
            }
            TargetNamespacesProblem::Other => {
                write!(f, "do not support target namespaces {}", go_list(self.1))
            }
        }
    }
}

/// Go's `%v` of a slice: `[a b c]`.
fn go_list<T: fmt::Display>(items: &[T]) -> String {
    let parts: Vec<String> = items.iter().map(ToString::to_string).collect();
    format!("[{}]", parts.join(" "))
}

/// `validateTargetNamespaces` from `render.go`, after our normalisation (empty → `[""]`).
fn check_target_namespaces(
    modes: &BTreeSet<InstallModeType>,
    install_ns: &str,
    targets: &[String],
) -> Result<(), TargetNamespacesProblem> {
    use InstallModeType::*;
    let set: BTreeSet<&str> = targets.iter().map(String::as_str).collect();
    if set.len() == 1 && set.contains("") {
        return if modes.contains(&AllNamespaces) {
            Ok(())
        } else {
            Err(TargetNamespacesProblem::AllNamespaces)
        };
    }
    if set.len() == 1 {
        if targets[0] == install_ns {
            return if modes.contains(&OwnNamespace) {
                Ok(())
            } else {
                Err(TargetNamespacesProblem::OwnNamespace)
            };
        }
        return if modes.contains(&SingleNamespace) {
            Ok(())
        } else {
            Err(TargetNamespacesProblem::Other)
        };
    }
    if !modes.contains(&OwnNamespace) && set.contains(install_ns) {
        return Err(TargetNamespacesProblem::OwnNamespace);
    }
    if modes.contains(&MultiNamespace) && !set.contains("") {
        return Ok(());
    }
    Err(TargetNamespacesProblem::Other)
}

fn string_list(items: &[String]) -> Value {
    Value::Array(items.iter().map(|s| Value::String(s.clone())).collect())
}

/// A policy rule in `rbac/v1.PolicyRule` field order, empty lists omitted.
fn rule_value(rule: &PolicyRule) -> Value {
    let mut m = Map::new();
    if let Some(v) = &rule.verbs {
        m.insert("verbs".into(), string_list(v));
    }
    let optional = [
        ("apiGroups", &rule.api_groups),
        ("resources", &rule.resources),
        ("resourceNames", &rule.resource_names),
        ("nonResourceURLs", &rule.non_resource_urls),
    ];
    for (key, value) in optional {
        if let Some(v) = value.as_ref().filter(|v| !v.is_empty()) {
            m.insert(key.into(), string_list(v));
        }
    }
    Value::Object(m)
}

fn rules_value(p: &Permission) -> Value {
    Value::Array(p.rules.iter().flatten().map(rule_value).collect())
}

fn sa_name(p: &Permission) -> &str {
    if p.service_account_name.is_empty() {
        "default"
    } else {
        &p.service_account_name
    }
}

fn binding(
    kind: &str,
    role_kind: &str,
    name: &str,
    namespace: Option<&str>,
    sa: &str,
    install_ns: &str,
) -> Value {
    let mut metadata = Map::new();
    metadata.insert("name".into(), json!(name));
    if let Some(ns) = namespace {
        metadata.insert("namespace".into(), json!(ns));
    }
    json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": kind,
        "metadata": metadata,
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": name},
        "subjects": [{"kind": "ServiceAccount", "name": sa, "namespace": install_ns}],
    })
}

fn role(kind: &str, name: &str, namespace: Option<&str>, p: &Permission) -> Value {
    let mut metadata = Map::new();
    metadata.insert("name".into(), json!(name));
    if let Some(ns) = namespace {
        metadata.insert("namespace".into(), json!(ns));
    }
    json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": kind,
        "metadata": metadata,
        "rules": rules_value(p),
    })
}

/// Sort key used by upstream's regression layout: kind, then namespace, then name.
fn sort_key(obj: &Value) -> (&str, &str, &str) {
    fn s(v: Option<&Value>) -> &str {
        v.and_then(Value::as_str).unwrap_or("")
    }
    let md = obj.get("metadata");
    (
        s(obj.get("kind")),
        s(md.and_then(|m| m.get("namespace"))),
        s(md.and_then(|m| m.get("name"))),
    )
}

/// Sort objects by kind, then namespace, then name (stable; byte order, like Go's
/// `cmp.Compare` on strings).
pub fn sort_objects(objects: &mut [Value]) {
    objects.sort_by(|a, b| sort_key(a).cmp(&sort_key(b)));
}

/// File name upstream's regression generator (`test/regression/convert/generate-manifests.go`)
/// gives the `index`-th object of a sorted list: `NN_<kind lowercased>_<name>.yaml`, with
/// `NN` at least two digits (Go `%02d`).
pub fn object_file_name(index: usize, obj: &Value) -> String {
    let (kind, _, name) = sort_key(obj);
    format!("{index:02}_{}_{name}.yaml", kind.to_lowercase())
}

/// Render `bundle` into plain manifests. See the module documentation for the steps, and
/// [`release`] for what each release's renderer does differently.
pub fn convert(bundle: &RegistryV1, options: &Options) -> Result<Vec<Value>, Error> {
    convert_cow(Cow::Borrowed(bundle), options)
}

/// [`convert`] of a bundle the caller is done with: its CRDs, most of a bundle's bytes, are
/// moved into the output instead of copied.
pub fn convert_owned(bundle: RegistryV1, options: &Options) -> Result<Vec<Value>, Error> {
    convert_cow(Cow::Owned(bundle), options)
}

fn convert_cow(mut source: Cow<'_, RegistryV1>, options: &Options) -> Result<Vec<Value>, Error> {
    let bundle: &RegistryV1 = &source;
    let csv = bundle.csv_name()?.to_owned();
    let modes = bundle.install_modes()?;
    let install_ns = options.install_namespace.as_str();
    if install_ns.is_empty() {
        return Err(Error::NoInstallNamespace { csv });
    }
    let mut targets: Vec<String> = Vec::new();
    for t in &options.target_namespaces {
        // Duplicates would render the same Role twice; upstream's set-based check accepts
        // them, we drop them.
        if !targets.contains(t) {
            targets.push(t.clone());
        }
    }
    if targets.is_empty() {
        targets.push(String::new());
    }
    let check_targets = |targets: &[String]| {
        options
            .check_target_namespaces(&modes, install_ns, targets)
            .map_err(|problem| Error::TargetNamespaces {
                csv: csv.clone(),
                target_namespaces: targets.to_vec(),
                install_namespace: install_ns.to_owned(),
                supported: modes.iter().cloned().collect(),
                problem,
            })
    };

    if options.old_converter() {
        // 4.18/4.19 `Convert`: validators (4.19), targets, then the two refusals.
        let problems = validate::validate_for(bundle, options)?;
        if !problems.is_empty() {
            return Err(Error::Invalid { csv, problems });
        }
        check_targets(&targets)?;
        refuse_api_services_and_webhooks(bundle, &csv, options)?;
    } else {
        // 1. Refusals, in provider.go's (4.21 on) or convert/helm.go's (4.20) order.
        refuse_api_services_and_webhooks(bundle, &csv, options)?;
        if options.provider_checks
            && !options.own_single_namespace
            && !modes.contains(&InstallModeType::AllNamespaces)
        {
            return Err(Error::NoAllNamespaces {
                csv,
                supported: modes.into_iter().collect(),
                accepted_on: Release::where_it_holds(|o| o.own_single_namespace),
            });
        }
        if options.provider_checks
            && !modes.iter().any(|m| {
                matches!(
                    m,
                    InstallModeType::AllNamespaces
                        | InstallModeType::SingleNamespace
                        | InstallModeType::OwnNamespace
                )
            })
        {
            return Err(Error::NoUsableInstallMode {
                csv,
                supported: modes.into_iter().collect(),
            });
        }
        // 2. Validators.
        let problems = validate::validate_for(bundle, options)?;
        if !problems.is_empty() {
            return Err(Error::Invalid { csv, problems });
        }
        // 3. Namespaces.
        check_targets(&targets)?;
    }
    let all_namespaces = targets.len() == 1 && targets[0].is_empty();

    // 4. Generation.
    let permissions = bundle.permissions()?;
    let cluster_permissions = bundle.cluster_permissions()?;
    let mut objects = Vec::new();

    // ServiceAccounts; the old converters add each deployment's own.
    let deployments = bundle.deployment_specs()?;
    let mut accounts: BTreeSet<&str> = permissions
        .iter()
        .chain(&cluster_permissions)
        .map(sa_name)
        .collect();
    if options.old_converter() {
        accounts.extend(deployments.iter().map(|d| {
            d.spec
                .pointer("/template/spec/serviceAccountName")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .unwrap_or("default")
        }));
    }
    for sa in accounts.into_iter().filter(|sa| *sa != "default") {
        objects.push(json!({
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": sa, "namespace": install_ns},
        }));
    }

    // Roles and RoleBindings, per target namespace.
    if !all_namespaces {
        for ns in &targets {
            for p in &permissions {
                let name = naming::rbac_object_name(&csv, p);
                objects.push(role("Role", &name, Some(ns), p));
                objects.push(binding(
                    "RoleBinding",
                    "Role",
                    &name,
                    Some(ns),
                    sa_name(p),
                    install_ns,
                ));
            }
        }
    }

    // ClusterRoles and ClusterRoleBindings.
    let mut cluster = cluster_permissions;
    if all_namespaces {
        for p in &permissions {
            let mut p = p.clone();
            // OLM v0 parity: operators lifted to cluster scope may need to list namespaces.
            // 4.18's converter appends the rule to a copy and loses it (kept on purpose: the
            // hashed names are what 4.18 creates).
            if options.promotes_namespaces_rule() {
                p.rules.get_or_insert_with(Vec::new).push(PolicyRule {
                    verbs: Some(vec!["get".into(), "list".into(), "watch".into()]),
                    api_groups: Some(vec![String::new()]),
                    resources: Some(vec!["namespaces".into()]),
                    ..PolicyRule::default()
                });
            }
            cluster.push(p);
        }
    }
    for p in &cluster {
        let name = naming::rbac_object_name(&csv, p);
        objects.push(role("ClusterRole", &name, None, p));
        objects.push(binding(
            "ClusterRoleBinding",
            "ClusterRole",
            &name,
            None,
            sa_name(p),
            install_ns,
        ));
    }

    // CRDs, round-tripped as the release reads them (moved out of a bundle the caller is
    // done with, else copied), then given their conversion webhooks.
    let typed_kinds = roundtrip::TypedKinds::for_renderer(options.renderer)
        .with_kubernetes_minor(options.kubernetes_minor);
    let mut crds = match &mut source {
        Cow::Owned(b) => std::mem::take(&mut b.crds)
            .into_iter()
            .map(|crd| roundtrip::crd_owned(&typed_kinds, crd))
            .collect::<Result<Vec<_>, _>>(),
        Cow::Borrowed(b) => b
            .crds
            .iter()
            .map(|crd| roundtrip::crd(&typed_kinds, crd))
            .collect::<Result<Vec<_>, _>>(),
    }
    .map_err(|source| Error::Typed {
        csv: csv.clone(),
        source,
    })?;
    let bundle: &RegistryV1 = &source;
    if let Some(provider) = options.cert_provider {
        webhooks::convert_crds(bundle, &mut crds, install_ns, provider)?;
    }

    // Other objects: namespaced kinds move to the install namespace. They stay unstructured.
    let mut unstructured = Vec::with_capacity(bundle.others.len());
    for obj in &bundle.others {
        let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
        let mut obj = obj.clone();
        if options.supported_kind(kind) == Some(true) {
            let name = sort_key(&obj).2.to_owned();
            let invalid = || Error::InvalidObject {
                csv: csv.clone(),
                kind: kind.to_owned(),
                name: name.clone(),
            };
            let Value::Object(map) = &mut obj else {
                return Err(invalid());
            };
            let md = map
                .entry("metadata")
                .or_insert_with(|| Value::Object(Map::new()));
            if md.is_null() {
                *md = Value::Object(Map::new());
            }
            let Value::Object(md) = md else {
                return Err(invalid());
            };
            md.insert("namespace".into(), json!(install_ns));
        }
        unstructured.push(obj);
    }

    // Deployments; those serving webhooks mount the provider's certificate.
    let annotations = bundle.annotations()?;
    let serving = webhooks::webhook_deployments(bundle)?;
    for dep in &deployments {
        let secret = (options.cert_provider == Some(CertProvider::OpenShiftServiceCa)
            && serving.contains(&dep.name))
        .then(|| webhooks::cert_secret_name(&dep.name));
        objects.push(deployment::deployment(
            &csv,
            &annotations,
            dep,
            install_ns,
            &targets,
            options,
            secret.as_deref(),
        )?);
    }

    // Webhook configurations and their Services.
    if let Some(provider) = options.cert_provider {
        objects.extend(webhooks::configurations(
            bundle, install_ns, &targets, provider,
        )?);
        objects.extend(webhooks::services(bundle, install_ns, provider)?);
    }

    // 5. The typed round trip.
    let mut objects = roundtrip::apply(&typed_kinds, objects, unstructured)
        .map_err(|source| Error::Typed { csv, source })?;
    objects.extend(crds);

    sort_objects(&mut objects);
    Ok(objects)
}

/// A bundle's webhooks as [`Error::WebhooksUnsupported`] lists them: type and quoted
/// `generateName` of each, comma-separated.
pub fn webhook_list(webhooks: &[(WebhookType, String)]) -> String {
    webhooks
        .iter()
        .map(|(t, n)| format!("{t} {n:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `apiServiceDefintions are not supported` (always), then webhooks unless a certificate
/// provider is on.
fn refuse_api_services_and_webhooks(
    bundle: &RegistryV1,
    csv: &str,
    options: &Options,
) -> Result<(), Error> {
    let api_services = bundle.owned_api_services()?;
    if !api_services.is_empty() {
        return Err(Error::ApiServicesUnsupported {
            csv: csv.to_owned(),
            api_services: api_services.into_iter().map(|a| a.name).collect(),
        });
    }
    let webhooks = bundle.webhook_definitions()?;
    if !webhooks.is_empty() && options.cert_provider.is_none() {
        return Err(Error::WebhooksUnsupported {
            csv: csv.to_owned(),
            webhooks: webhooks
                .into_iter()
                .map(|w| (w.kind, w.generate_name))
                .collect(),
            accepted_on: Release::where_it_holds(|o| o.webhooks),
        });
    }
    Ok(())
}

#[cfg(test)]
mod per_release_tests;
#[cfg(test)]
mod tests;
