//! The bundle validators of operator-controller
//! `internal/operator-controller/rukpak/render/registryv1/validators/validator.go`
//! (reference §5.1 "Validators"). All of them run; every problem is collected, in validator
//! order, each validator's own output sorted as upstream sorts it. Messages are upstream's,
//! word for word, so they can be searched for.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::Value;

use crate::bundle::{InstallModeType, RegistryV1, WebhookType};
use crate::kubenames::subdomain_errors;

use super::Error;

/// One problem found by a validator.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// Two strategy deployments share a name.
    DuplicateDeployment {
        /// The deployment name.
        name: String,
    },
    /// A strategy deployment name is not a DNS-1123 subdomain.
    InvalidDeploymentName {
        /// The deployment name.
        name: String,
        /// Why, in Kubernetes' words.
        reasons: Vec<String>,
    },
    /// Two CRDs share a name.
    DuplicateCrd {
        /// The CRD name.
        name: String,
    },
    /// An owned CRD is not in the bundle.
    MissingOwnedCrd {
        /// The CRD name.
        name: String,
    },
    /// The package name is empty.
    EmptyPackageName,
    /// A conversion webhook in a bundle that supports more than AllNamespaces.
    ConversionWebhookInstallModes {
        /// The webhook's `generateName`.
        webhook: String,
        /// The supported install modes, sorted.
        modes: Vec<InstallModeType>,
    },
    /// A webhook names a deployment that does not exist.
    WebhookMissingDeployment {
        /// Webhook type.
        kind: WebhookType,
        /// Webhook `generateName`.
        webhook: String,
        /// The missing deployment.
        deployment: String,
    },
    /// Two webhooks of one type share a name.
    DuplicateWebhook {
        /// Webhook type.
        kind: WebhookType,
        /// Webhook `generateName`.
        webhook: String,
    },
    /// A webhook name is not a DNS-1123 subdomain.
    InvalidWebhookName {
        /// Webhook type.
        kind: WebhookType,
        /// Webhook `generateName`.
        webhook: String,
        /// Why.
        reasons: Vec<String>,
    },
    /// Several conversion webhooks reference one CRD.
    ConversionWebhooksShareCrd {
        /// The webhooks, sorted.
        webhooks: Vec<String>,
        /// The CRD.
        crd: String,
    },
    /// A conversion webhook references a CRD the bundle does not own.
    ConversionWebhookUnownedCrd {
        /// The webhook.
        webhook: String,
        /// The CRD.
        crd: String,
    },
    /// A webhook rule targets a forbidden API group.
    ForbiddenWebhookApiGroup {
        /// The webhook.
        webhook: String,
        /// The group.
        group: String,
    },
    /// A webhook rule targets a forbidden admissionregistration resource.
    ForbiddenWebhookResource {
        /// The webhook.
        webhook: String,
        /// The resource.
        resource: String,
    },
    /// An object in the bundle is of a kind OLM does not install.
    UnsupportedResource {
        /// The object's kind.
        kind: String,
        /// The object's name.
        name: String,
    },
}

fn go_list<T: fmt::Display>(items: &[T]) -> String {
    let parts: Vec<String> = items.iter().map(ToString::to_string).collect();
    format!("[{}]", parts.join(" "))
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DuplicateDeployment { name } => write!(
                f,
                "cluster service version contains duplicate strategy deployment spec '{name}'"
            ),
            Self::InvalidDeploymentName { name, reasons } => write!(
                f,
                "invalid cluster service version strategy deployment name '{name}': {}",
                reasons.join(", ")
            ),
            Self::DuplicateCrd { name } => {
                write!(
                    f,
                    "bundle contains duplicate custom resource definition '{name}'"
                )
            }
            Self::MissingOwnedCrd { name } => write!(
                f,
                "cluster service definition references owned custom resource definition '{name}' not found in bundle"
            ),
            Self::EmptyPackageName => f.write_str("package name is empty"),
            Self::ConversionWebhookInstallModes { webhook, modes } => write!(
                f,
                "bundle contains conversion webhook {webhook:?} and supports install modes {} - conversion webhooks are only supported for bundles that only support AllNamespaces install mode",
                go_list(modes)
            ),
            Self::WebhookMissingDeployment {
                kind,
                webhook,
                deployment,
            } => write!(
                f,
                "webhook of type '{kind}' with name '{webhook}' references non-existent deployment '{deployment}'"
            ),
            Self::DuplicateWebhook { kind, webhook } => {
                write!(f, "duplicate webhook '{webhook}' of type '{kind}'")
            }
            Self::InvalidWebhookName {
                kind,
                webhook,
                reasons,
            } => write!(
                f,
                "webhook of type '{kind}' has invalid name '{webhook}': {}",
                reasons.join(",")
            ),
            Self::ConversionWebhooksShareCrd { webhooks, crd } => write!(
                f,
                "conversion webhooks [{}] reference same custom resource definition '{crd}'",
                webhooks.join(",")
            ),
            Self::ConversionWebhookUnownedCrd { webhook, crd } => write!(
                f,
                "conversion webhook '{webhook}' references custom resource definition '{crd}' not owned bundle"
            ),
            Self::ForbiddenWebhookApiGroup { webhook, group } => write!(
                f,
                "webhook {webhook:?} contains forbidden rule: admission webhook rules cannot reference API group {group:?}"
            ),
            Self::ForbiddenWebhookResource { webhook, resource } => write!(
                f,
                "webhook {webhook:?} contains forbidden rule: admission webhook rules cannot reference resource {resource:?} for API group \"admissionregistration.k8s.io\""
            ),
            Self::UnsupportedResource { kind, name } => write!(
                f,
                "bundle contains unsupported resource: Name: {name}, Kind: {kind}"
            ),
        }
    }
}

/// Kinds OLM installs from a bundle's "other" manifests, with whether they are namespaced
/// (operator-registry `pkg/lib/bundle/supported_resources.go`, 2025 list, reference §5.1).
///
/// Quirk copied on purpose: VerticalPodAutoscaler is listed as cluster-scoped although it is
/// namespaced, so its namespace is left as written.
pub fn supported_kind(kind: &str) -> Option<bool> {
    Some(match kind {
        "ClusterServiceVersion" => true,
        "CustomResourceDefinition" => false,
        "Service" | "ServiceAccount" | "Role" | "RoleBinding" | "ConfigMap" | "Secret" => true,
        "ClusterRole" | "ClusterRoleBinding" => false,
        "PrometheusRule"
        | "ServiceMonitor"
        | "PodMonitor"
        | "PodDisruptionBudget"
        | "NetworkPolicy" => true,
        "PriorityClass" | "VerticalPodAutoscaler" => false,
        "ConsoleYAMLSample" | "ConsoleQuickStart" | "ConsoleCLIDownload" | "ConsoleLink"
        | "ConsolePlugin" => false,
        _ => return None,
    })
}

fn object_name(v: &Value) -> &str {
    v.get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// Run every validator on `bundle` and return all problems found (empty when valid).
///
/// Fails only when the CSV cannot be read (wrong field types).
pub fn validate(bundle: &RegistryV1) -> Result<Vec<Problem>, Error> {
    validate_for(bundle, &super::Options::default())
}

/// The validators the renderer of `options` runs (see [`super::release`]): none on 4.18,
/// four on 4.19, all but the provider's on 4.20, all from 4.21. The supported-kind check uses
/// that release's kind list; upstream before 4.22 reports only the first unsupported object,
/// while rendering, with the same message.
pub(crate) fn validate_for(
    bundle: &RegistryV1,
    options: &super::Options,
) -> Result<Vec<Problem>, Error> {
    let checks = options.checks();
    let mut problems = Vec::new();
    if !checks.any {
        object_support(bundle, options, &mut problems);
        return Ok(problems);
    }
    let deployments = bundle.deployment_specs()?;
    let webhooks = bundle.webhook_definitions()?;
    let owned = bundle.owned_crds()?;

    // CheckDeploymentSpecUniqueness
    let mut seen = BTreeSet::new();
    let mut dups = BTreeSet::new();
    for d in &deployments {
        if !seen.insert(d.name.as_str()) {
            dups.insert(d.name.clone());
        }
    }
    problems.extend(
        dups.into_iter()
            .map(|name| Problem::DuplicateDeployment { name }),
    );

    // CheckDeploymentNameIsDNS1123SubDomain
    let mut bad: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for d in deployments.iter().filter(|_| checks.registry_v1) {
        let errs = subdomain_errors(&d.name);
        if !errs.is_empty() {
            bad.insert(d.name.clone(), errs);
        }
    }
    problems.extend(
        bad.into_iter()
            .map(|(name, reasons)| Problem::InvalidDeploymentName { name, reasons }),
    );

    // CheckCRDResourceUniqueness
    let mut crd_names = BTreeSet::new();
    let mut dups = BTreeSet::new();
    for crd in &bundle.crds {
        let name = object_name(crd);
        if !crd_names.insert(name) {
            dups.insert(name.to_owned());
        }
    }
    problems.extend(dups.into_iter().map(|name| Problem::DuplicateCrd { name }));

    // CheckOwnedCRDExistence
    let missing: BTreeSet<String> = owned
        .iter()
        .filter(|c| !crd_names.contains(c.name.as_str()))
        .map(|c| c.name.clone())
        .collect();
    problems.extend(
        missing
            .into_iter()
            .map(|name| Problem::MissingOwnedCrd { name }),
    );

    // CheckPackageNameNotEmpty
    if bundle.package.is_empty() {
        problems.push(Problem::EmptyPackageName);
    }

    if !checks.registry_v1 {
        object_support(bundle, options, &mut problems);
        return Ok(problems);
    }

    // CheckConversionWebhookSupport
    let modes = bundle.install_modes()?;
    let only_all = modes.len() == 1 && modes.contains(&InstallModeType::AllNamespaces);
    if !only_all && checks.provider {
        for wh in webhooks
            .iter()
            .filter(|w| w.kind == WebhookType::Conversion)
        {
            problems.push(Problem::ConversionWebhookInstallModes {
                webhook: wh.generate_name.clone(),
                modes: modes.iter().cloned().collect(),
            });
        }
    }

    // CheckWebhookDeploymentReferentialIntegrity
    let dep_names: BTreeSet<&str> = deployments.iter().map(|d| d.name.as_str()).collect();
    let mut dangling: Vec<_> = webhooks
        .iter()
        .filter(|w| !dep_names.contains(w.deployment_name.as_str()))
        .collect();
    dangling.sort_by(|a, b| {
        (&a.deployment_name, a.kind.as_str(), &a.generate_name).cmp(&(
            &b.deployment_name,
            b.kind.as_str(),
            &b.generate_name,
        ))
    });
    problems.extend(
        dangling
            .into_iter()
            .map(|w| Problem::WebhookMissingDeployment {
                kind: w.kind.clone(),
                webhook: w.generate_name.clone(),
                deployment: w.deployment_name.clone(),
            }),
    );

    // CheckWebhookNameUniqueness
    let mut seen = BTreeSet::new();
    let mut dups = BTreeSet::new();
    for w in &webhooks {
        let key = (w.kind.as_str().to_owned(), w.generate_name.clone());
        if !seen.insert(key.clone()) {
            dups.insert((key, w.kind.clone()));
        }
    }
    problems.extend(
        dups.into_iter()
            .map(|((_, webhook), kind)| Problem::DuplicateWebhook { kind, webhook }),
    );

    // CheckWebhookNameIsDNS1123SubDomain
    let mut bad = BTreeMap::new();
    for w in &webhooks {
        let errs = subdomain_errors(&w.generate_name);
        if !errs.is_empty() {
            bad.insert(
                (w.kind.as_str().to_owned(), w.generate_name.clone()),
                (w.kind.clone(), errs),
            );
        }
    }
    problems.extend(bad.into_iter().map(|((_, webhook), (kind, reasons))| {
        Problem::InvalidWebhookName {
            kind,
            webhook,
            reasons,
        }
    }));

    // CheckConversionWebhookCRDReferenceUniqueness
    let mut by_crd: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for w in webhooks
        .iter()
        .filter(|w| w.kind == WebhookType::Conversion)
    {
        for crd in &w.conversion_crds {
            by_crd.entry(crd).or_default().push(w.generate_name.clone());
        }
    }
    for (crd, mut whs) in by_crd {
        if whs.len() > 1 {
            whs.sort();
            problems.push(Problem::ConversionWebhooksShareCrd {
                webhooks: whs,
                crd: crd.to_owned(),
            });
        }
    }

    // CheckConversionWebhooksReferenceOwnedCRDs
    let owned_names: BTreeSet<&str> = owned.iter().map(|c| c.name.as_str()).collect();
    let mut conversion: Vec<_> = webhooks
        .iter()
        .filter(|w| w.kind == WebhookType::Conversion)
        .collect();
    conversion.sort_by(|a, b| a.generate_name.cmp(&b.generate_name));
    for w in conversion {
        let mut crds = w.conversion_crds.clone();
        crds.sort();
        for crd in crds {
            if !owned_names.contains(crd.as_str()) {
                problems.push(Problem::ConversionWebhookUnownedCrd {
                    webhook: w.generate_name.clone(),
                    crd,
                });
            }
        }
    }

    // CheckWebhookRules
    for w in webhooks
        .iter()
        .filter(|w| w.kind != WebhookType::Conversion && checks.provider)
    {
        for rule in &w.rules {
            for group in &rule.api_groups {
                if group == "*" || group == "olm.operatorframework.io" {
                    problems.push(Problem::ForbiddenWebhookApiGroup {
                        webhook: w.generate_name.clone(),
                        group: group.clone(),
                    });
                }
                if group == "admissionregistration.k8s.io" {
                    for resource in &rule.resources {
                        let lower = resource.to_lowercase();
                        if matches!(
                            lower.as_str(),
                            "*" | "mutatingwebhookconfiguration"
                                | "mutatingwebhookconfigurations"
                                | "validatingwebhookconfiguration"
                                | "validatingwebhookconfigurations"
                        ) {
                            problems.push(Problem::ForbiddenWebhookResource {
                                webhook: w.generate_name.clone(),
                                resource: resource.clone(),
                            });
                        }
                    }
                }
            }
        }
    }

    object_support(bundle, options, &mut problems);
    Ok(problems)
}

/// `CheckObjectSupport`, with the kinds of the release's operator-registry.
fn object_support(bundle: &RegistryV1, options: &super::Options, problems: &mut Vec<Problem>) {
    for obj in &bundle.others {
        let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
        if options.supported_kind(kind).is_none() {
            problems.push(Problem::UnsupportedResource {
                kind: kind.to_owned(),
                name: object_name(obj).to_owned(),
            });
        }
    }
}
