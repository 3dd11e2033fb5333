//! Typed, checked views of the ClusterServiceVersion fields other steps need.
//!
//! The CSV stays a [`serde_json::Value`] (so nothing unknown is lost); each accessor reads
//! one part and checks its shape the way Go's `runtime.DefaultUnstructuredConverter` would
//! when it converts into `operators/v1alpha1.ClusterServiceVersion`: `null` counts as
//! absent, a wrong type is an [`Error::InvalidField`] naming the CSV and the field path.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::{Map, Value};

use super::decode::type_name;
use super::{Error, RegistryV1};

/// An OLM install mode (`spec.installModes[].type`).
///
/// Declared in lexical order, so the derived `Ord` sorts like Go's `sets.List` of the
/// type names.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum InstallModeType {
    /// Watch every namespace (`targetNamespaces: [""]`).
    AllNamespaces,
    /// Watch a list of namespaces.
    MultiNamespace,
    /// Watch only the install namespace.
    OwnNamespace,
    /// Watch exactly one namespace other than the install namespace.
    SingleNamespace,
    /// A type name OLM does not know; kept so messages can show it.
    Other(String),
}

impl InstallModeType {
    fn parse(s: &str) -> Self {
        match s {
            "AllNamespaces" => Self::AllNamespaces,
            "MultiNamespace" => Self::MultiNamespace,
            "OwnNamespace" => Self::OwnNamespace,
            "SingleNamespace" => Self::SingleNamespace,
            other => Self::Other(other.to_owned()),
        }
    }

    /// The name as written in the CSV.
    pub fn as_str(&self) -> &str {
        match self {
            Self::AllNamespaces => "AllNamespaces",
            Self::MultiNamespace => "MultiNamespace",
            Self::OwnNamespace => "OwnNamespace",
            Self::SingleNamespace => "SingleNamespace",
            Self::Other(s) => s,
        }
    }
}

impl fmt::Display for InstallModeType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The type of a `spec.webhookdefinitions[]` entry.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WebhookType {
    /// `ConversionWebhook`.
    Conversion,
    /// `MutatingAdmissionWebhook`.
    Mutating,
    /// `ValidatingAdmissionWebhook`.
    Validating,
    /// Anything else, kept verbatim.
    Other(String),
}

impl WebhookType {
    fn parse(s: &str) -> Self {
        match s {
            "ConversionWebhook" => Self::Conversion,
            "MutatingAdmissionWebhook" => Self::Mutating,
            "ValidatingAdmissionWebhook" => Self::Validating,
            other => Self::Other(other.to_owned()),
        }
    }

    /// The name as written in the CSV.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Conversion => "ConversionWebhook",
            Self::Mutating => "MutatingAdmissionWebhook",
            Self::Validating => "ValidatingAdmissionWebhook",
            Self::Other(s) => s,
        }
    }
}

impl fmt::Display for WebhookType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One admission rule of a webhook definition (only the parts OLM checks).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WebhookRule {
    /// `apiGroups`.
    pub api_groups: Vec<String>,
    /// `resources`.
    pub resources: Vec<String>,
}

/// A `spec.webhookdefinitions[]` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct WebhookDefinition {
    /// `type`.
    pub kind: WebhookType,
    /// `generateName`.
    pub generate_name: String,
    /// `deploymentName`: the strategy deployment serving the webhook.
    pub deployment_name: String,
    /// `containerPort` (0 when absent; OLM then uses 443).
    pub container_port: i64,
    /// `conversionCRDs`.
    pub conversion_crds: Vec<String>,
    /// `rules`.
    pub rules: Vec<WebhookRule>,
}

/// A CRD reference in `spec.customresourcedefinitions.{owned,required}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrdDescription {
    /// `name` (`<plural>.<group>`).
    pub name: String,
    /// `version`.
    pub version: String,
    /// `kind`.
    pub kind: String,
}

/// An API service in `spec.apiservicedefinitions.{owned,required}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiServiceDescription {
    /// `name`.
    pub name: String,
    /// `group`.
    pub group: String,
    /// `version`.
    pub version: String,
    /// `kind`.
    pub kind: String,
    /// `deploymentName`.
    pub deployment_name: String,
}

/// An RBAC policy rule, with the fields of `rbac/v1.PolicyRule`.
///
/// `None` and `Some(empty)` are kept apart because Go's JSON encoding (used for the hashed
/// object names) writes a missing `verbs` as `null` but an empty one as `[]`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PolicyRule {
    /// `verbs`.
    pub verbs: Option<Vec<String>>,
    /// `apiGroups`.
    pub api_groups: Option<Vec<String>>,
    /// `resources`.
    pub resources: Option<Vec<String>>,
    /// `resourceNames`.
    pub resource_names: Option<Vec<String>>,
    /// `nonResourceURLs`.
    pub non_resource_urls: Option<Vec<String>>,
}

/// A `spec.install.spec.{permissions,clusterPermissions}[]` entry
/// (`StrategyDeploymentPermissions`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Permission {
    /// `serviceAccountName` (may be empty, meaning `default`).
    pub service_account_name: String,
    /// `rules`; `None` when absent or `null`.
    pub rules: Option<Vec<PolicyRule>>,
}

/// A `spec.install.spec.deployments[]` entry (`StrategyDeploymentSpec`).
#[derive(Debug, Clone, PartialEq)]
pub struct DeploymentSpec {
    /// `name`.
    pub name: String,
    /// `label`: labels for the Deployment object.
    pub label: BTreeMap<String, String>,
    /// `spec`: the `apps/v1` DeploymentSpec, kept as JSON.
    pub spec: Value,
}

/// A `spec.relatedImages[]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelatedImage {
    /// `name` (optional).
    pub name: String,
    /// `image`.
    pub image: String,
}

/// Field reader that knows which CSV it reads, for error messages.
pub(crate) struct Reader<'a> {
    pub(crate) csv: &'a str,
}

impl Reader<'_> {
    fn invalid(&self, field: &str, expected: &'static str, found: &Value) -> Error {
        Error::InvalidField {
            csv: self.csv.to_owned(),
            field: field.to_owned(),
            expected,
            found: type_name(found),
        }
    }

    /// Child `key` of `v`; `None` if absent or null.
    pub(crate) fn get<'v>(&self, v: &'v Value, key: &str) -> Option<&'v Value> {
        v.get(key).filter(|c| !c.is_null())
    }

    pub(crate) fn object<'v>(
        &self,
        v: Option<&'v Value>,
        field: &str,
    ) -> Result<Option<&'v Map<String, Value>>, Error> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(m)) => Ok(Some(m)),
            Some(other) => Err(self.invalid(field, "a mapping", other)),
        }
    }

    pub(crate) fn array<'v>(
        &self,
        v: Option<&'v Value>,
        field: &str,
    ) -> Result<&'v [Value], Error> {
        match v {
            None | Some(Value::Null) => Ok(&[]),
            Some(Value::Array(a)) => Ok(a),
            Some(other) => Err(self.invalid(field, "a list", other)),
        }
    }

    pub(crate) fn string<'v>(&self, v: Option<&'v Value>, field: &str) -> Result<&'v str, Error> {
        match v {
            None | Some(Value::Null) => Ok(""),
            Some(Value::String(s)) => Ok(s),
            Some(other) => Err(self.invalid(field, "a string", other)),
        }
    }

    fn bool(&self, v: Option<&Value>, field: &str) -> Result<bool, Error> {
        match v {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(self.invalid(field, "a boolean", other)),
        }
    }

    fn int(&self, v: Option<&Value>, field: &str) -> Result<i64, Error> {
        match v {
            None | Some(Value::Null) => Ok(0),
            Some(n @ Value::Number(_)) => n
                .as_i64()
                .ok_or_else(|| self.invalid(field, "an integer", n)),
            Some(other) => Err(self.invalid(field, "an integer", other)),
        }
    }

    /// A list of strings; `None` when absent or null.
    pub(crate) fn strings(
        &self,
        v: Option<&Value>,
        field: &str,
    ) -> Result<Option<Vec<String>>, Error> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, item)| match item {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(self.invalid(&format!("{field}[{i}]"), "a string", other)),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(other) => Err(self.invalid(field, "a list of strings", other)),
        }
    }

    /// A string-to-string map (labels, annotations).
    pub(crate) fn string_map(
        &self,
        v: Option<&Value>,
        field: &str,
    ) -> Result<BTreeMap<String, String>, Error> {
        let mut out = BTreeMap::new();
        if let Some(m) = self.object(v, field)? {
            for (k, val) in m {
                match val {
                    Value::String(s) => {
                        out.insert(k.clone(), s.clone());
                    }
                    // Go's map[string]string drops nothing and accepts nothing else; a null
                    // value becomes "" there.
                    Value::Null => {
                        out.insert(k.clone(), String::new());
                    }
                    other => return Err(self.invalid(&format!("{field}.{k}"), "a string", other)),
                }
            }
        }
        Ok(out)
    }

    pub(crate) fn policy_rule(&self, v: &Value, field: &str) -> Result<PolicyRule, Error> {
        let m = self.object(Some(v), field)?;
        let m = match m {
            Some(m) => m,
            None => return Ok(PolicyRule::default()),
        };
        Ok(PolicyRule {
            verbs: self.strings(m.get("verbs"), &format!("{field}.verbs"))?,
            api_groups: self.strings(m.get("apiGroups"), &format!("{field}.apiGroups"))?,
            resources: self.strings(m.get("resources"), &format!("{field}.resources"))?,
            resource_names: self
                .strings(m.get("resourceNames"), &format!("{field}.resourceNames"))?,
            non_resource_urls: self.strings(
                m.get("nonResourceURLs"),
                &format!("{field}.nonResourceURLs"),
            )?,
        })
    }
}

const STRATEGY: &str = "spec.install.spec";

impl RegistryV1 {
    pub(crate) fn reader(&self) -> Reader<'_> {
        Reader {
            csv: self
                .csv
                .get("metadata")
                .and_then(|m| m.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("<unnamed>"),
        }
    }

    /// `metadata.name` of the CSV (the bundle name); must be a non-empty string.
    pub fn csv_name(&self) -> Result<&str, Error> {
        let name = self
            .csv
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("");
        if name.is_empty() {
            return Err(Error::InvalidField {
                csv: "<unnamed>".to_owned(),
                field: "metadata.name".to_owned(),
                expected: "a non-empty string",
                found: type_name(
                    self.csv
                        .get("metadata")
                        .and_then(|m| m.get("name"))
                        .unwrap_or(&Value::Null),
                ),
            });
        }
        Ok(name)
    }

    /// `spec.version`, if present.
    pub fn version(&self) -> Result<Option<&str>, Error> {
        let r = self.reader();
        let spec = r.get(&self.csv, "spec");
        let v = spec.and_then(|s| r.get(s, "version"));
        Ok(Some(r.string(v, "spec.version")?).filter(|s| !s.is_empty()))
    }

    /// `metadata.annotations` as strings (including the merged `olm.properties`).
    pub fn annotations(&self) -> Result<BTreeMap<String, String>, Error> {
        let r = self.reader();
        let md = r.get(&self.csv, "metadata");
        r.string_map(
            md.and_then(|m| r.get(m, "annotations")),
            "metadata.annotations",
        )
    }

    /// The annotation `operatorframework.io/suggested-namespace`, if set.
    pub fn suggested_namespace(&self) -> Option<&str> {
        self.csv
            .get("metadata")?
            .get("annotations")?
            .get("operatorframework.io/suggested-namespace")?
            .as_str()
            .filter(|s| !s.is_empty())
    }

    /// `spec.minKubeVersion`, if set.
    pub fn min_kube_version(&self) -> Result<Option<&str>, Error> {
        let r = self.reader();
        let v = r
            .get(&self.csv, "spec")
            .and_then(|s| r.get(s, "minKubeVersion"));
        Ok(Some(r.string(v, "spec.minKubeVersion")?).filter(|s| !s.is_empty()))
    }

    /// The install modes marked `supported: true`.
    pub fn install_modes(&self) -> Result<BTreeSet<InstallModeType>, Error> {
        let r = self.reader();
        let modes = r.array(
            r.get(&self.csv, "spec")
                .and_then(|s| r.get(s, "installModes")),
            "spec.installModes",
        )?;
        let mut out = BTreeSet::new();
        for (i, m) in modes.iter().enumerate() {
            let field = format!("spec.installModes[{i}]");
            let obj = r.object(Some(m), &field)?;
            let Some(obj) = obj else { continue };
            let ty = r.string(obj.get("type"), &format!("{field}.type"))?;
            if r.bool(obj.get("supported"), &format!("{field}.supported"))? {
                out.insert(InstallModeType::parse(ty));
            }
        }
        Ok(out)
    }

    /// `spec.webhookdefinitions`.
    pub fn webhook_definitions(&self) -> Result<Vec<WebhookDefinition>, Error> {
        let r = self.reader();
        let defs = r.array(
            r.get(&self.csv, "spec")
                .and_then(|s| r.get(s, "webhookdefinitions")),
            "spec.webhookdefinitions",
        )?;
        let mut out = Vec::with_capacity(defs.len());
        for (i, d) in defs.iter().enumerate() {
            let field = format!("spec.webhookdefinitions[{i}]");
            let Some(obj) = r.object(Some(d), &field)? else {
                continue;
            };
            let mut rules = Vec::new();
            for (j, rule) in r
                .array(obj.get("rules"), &format!("{field}.rules"))?
                .iter()
                .enumerate()
            {
                let rf = format!("{field}.rules[{j}]");
                let Some(rule) = r.object(Some(rule), &rf)? else {
                    continue;
                };
                rules.push(WebhookRule {
                    api_groups: r
                        .strings(rule.get("apiGroups"), &format!("{rf}.apiGroups"))?
                        .unwrap_or_default(),
                    resources: r
                        .strings(rule.get("resources"), &format!("{rf}.resources"))?
                        .unwrap_or_default(),
                });
            }
            out.push(WebhookDefinition {
                kind: WebhookType::parse(r.string(obj.get("type"), &format!("{field}.type"))?),
                generate_name: r
                    .string(obj.get("generateName"), &format!("{field}.generateName"))?
                    .to_owned(),
                deployment_name: r
                    .string(
                        obj.get("deploymentName"),
                        &format!("{field}.deploymentName"),
                    )?
                    .to_owned(),
                container_port: r
                    .int(obj.get("containerPort"), &format!("{field}.containerPort"))?,
                conversion_crds: r
                    .strings(
                        obj.get("conversionCRDs"),
                        &format!("{field}.conversionCRDs"),
                    )?
                    .unwrap_or_default(),
                rules,
            });
        }
        Ok(out)
    }

    fn crd_descriptions(&self, which: &str) -> Result<Vec<CrdDescription>, Error> {
        let r = self.reader();
        let base = format!("spec.customresourcedefinitions.{which}");
        let list = r.array(
            r.get(&self.csv, "spec")
                .and_then(|s| r.get(s, "customresourcedefinitions"))
                .and_then(|c| r.get(c, which)),
            &base,
        )?;
        let mut out = Vec::with_capacity(list.len());
        for (i, d) in list.iter().enumerate() {
            let field = format!("{base}[{i}]");
            let Some(obj) = r.object(Some(d), &field)? else {
                continue;
            };
            out.push(CrdDescription {
                name: r
                    .string(obj.get("name"), &format!("{field}.name"))?
                    .to_owned(),
                version: r
                    .string(obj.get("version"), &format!("{field}.version"))?
                    .to_owned(),
                kind: r
                    .string(obj.get("kind"), &format!("{field}.kind"))?
                    .to_owned(),
            });
        }
        Ok(out)
    }

    /// `spec.customresourcedefinitions.owned`.
    pub fn owned_crds(&self) -> Result<Vec<CrdDescription>, Error> {
        self.crd_descriptions("owned")
    }

    /// `spec.customresourcedefinitions.required`: APIs this bundle needs from another one.
    pub fn required_crds(&self) -> Result<Vec<CrdDescription>, Error> {
        self.crd_descriptions("required")
    }

    fn api_services(&self, which: &str) -> Result<Vec<ApiServiceDescription>, Error> {
        let r = self.reader();
        let base = format!("spec.apiservicedefinitions.{which}");
        let list = r.array(
            r.get(&self.csv, "spec")
                .and_then(|s| r.get(s, "apiservicedefinitions"))
                .and_then(|c| r.get(c, which)),
            &base,
        )?;
        let mut out = Vec::with_capacity(list.len());
        for (i, d) in list.iter().enumerate() {
            let field = format!("{base}[{i}]");
            let Some(obj) = r.object(Some(d), &field)? else {
                continue;
            };
            let s = |k: &str| -> Result<String, Error> {
                Ok(r.string(obj.get(k), &format!("{field}.{k}"))?.to_owned())
            };
            out.push(ApiServiceDescription {
                name: s("name")?,
                group: s("group")?,
                version: s("version")?,
                kind: s("kind")?,
                deployment_name: s("deploymentName")?,
            });
        }
        Ok(out)
    }

    /// `spec.apiservicedefinitions.owned` (OLM v1 refuses bundles that have any).
    pub fn owned_api_services(&self) -> Result<Vec<ApiServiceDescription>, Error> {
        self.api_services("owned")
    }

    /// `spec.apiservicedefinitions.required`.
    pub fn required_api_services(&self) -> Result<Vec<ApiServiceDescription>, Error> {
        self.api_services("required")
    }

    /// `spec.relatedImages`.
    pub fn related_images(&self) -> Result<Vec<RelatedImage>, Error> {
        let r = self.reader();
        let list = r.array(
            r.get(&self.csv, "spec")
                .and_then(|s| r.get(s, "relatedImages")),
            "spec.relatedImages",
        )?;
        let mut out = Vec::with_capacity(list.len());
        for (i, d) in list.iter().enumerate() {
            let field = format!("spec.relatedImages[{i}]");
            let Some(obj) = r.object(Some(d), &field)? else {
                continue;
            };
            out.push(RelatedImage {
                name: r
                    .string(obj.get("name"), &format!("{field}.name"))?
                    .to_owned(),
                image: r
                    .string(obj.get("image"), &format!("{field}.image"))?
                    .to_owned(),
            });
        }
        Ok(out)
    }

    fn strategy_list(&self, key: &str) -> Result<&[Value], Error> {
        let r = self.reader();
        let strategy = r
            .get(&self.csv, "spec")
            .and_then(|s| r.get(s, "install"))
            .and_then(|i| r.get(i, "spec"));
        r.array(
            strategy.and_then(|s| r.get(s, key)),
            &format!("{STRATEGY}.{key}"),
        )
    }

    fn permission_list(&self, key: &str) -> Result<Vec<Permission>, Error> {
        let r = self.reader();
        let mut out = Vec::new();
        for (i, p) in self.strategy_list(key)?.iter().enumerate() {
            let field = format!("{STRATEGY}.{key}[{i}]");
            let Some(obj) = r.object(Some(p), &field)? else {
                out.push(Permission::default());
                continue;
            };
            let rules = match obj.get("rules") {
                None | Some(Value::Null) => None,
                rules => Some(
                    r.array(rules, &format!("{field}.rules"))?
                        .iter()
                        .enumerate()
                        .map(|(j, rule)| r.policy_rule(rule, &format!("{field}.rules[{j}]")))
                        .collect::<Result<Vec<_>, _>>()?,
                ),
            };
            out.push(Permission {
                service_account_name: r
                    .string(
                        obj.get("serviceAccountName"),
                        &format!("{field}.serviceAccountName"),
                    )?
                    .to_owned(),
                rules,
            });
        }
        Ok(out)
    }

    /// `spec.install.spec.permissions`: namespaced RBAC per service account.
    pub fn permissions(&self) -> Result<Vec<Permission>, Error> {
        self.permission_list("permissions")
    }

    /// `spec.install.spec.clusterPermissions`: cluster-wide RBAC per service account.
    pub fn cluster_permissions(&self) -> Result<Vec<Permission>, Error> {
        self.permission_list("clusterPermissions")
    }

    /// `spec.install.spec.deployments`.
    pub fn deployment_specs(&self) -> Result<Vec<DeploymentSpec>, Error> {
        let r = self.reader();
        let mut out = Vec::new();
        for (i, d) in self.strategy_list("deployments")?.iter().enumerate() {
            let field = format!("{STRATEGY}.deployments[{i}]");
            let Some(obj) = r.object(Some(d), &field)? else {
                continue;
            };
            let spec = match obj.get("spec") {
                None | Some(Value::Null) => Value::Object(Map::new()),
                Some(s @ Value::Object(_)) => s.clone(),
                Some(other) => return Err(r.invalid(&format!("{field}.spec"), "a mapping", other)),
            };
            out.push(DeploymentSpec {
                name: r
                    .string(obj.get("name"), &format!("{field}.name"))?
                    .to_owned(),
                label: r.string_map(obj.get("label"), &format!("{field}.label"))?,
                spec,
            });
        }
        Ok(out)
    }

    /// Every container and init container image of the CSV deployments, de-duplicated and
    /// sorted (as `opm render` adds them to `relatedImages`).
    pub fn deployment_images(&self) -> Result<Vec<String>, Error> {
        let r = self.reader();
        let mut images = BTreeSet::new();
        for dep in self.deployment_specs()? {
            let pod = r.get(&dep.spec, "template").and_then(|t| r.get(t, "spec"));
            for key in ["initContainers", "containers"] {
                let field = format!("deployment {}: spec.template.spec.{key}", dep.name);
                for (i, c) in r
                    .array(pod.and_then(|p| r.get(p, key)), &field)?
                    .iter()
                    .enumerate()
                {
                    let image = r.string(c.get("image"), &format!("{field}[{i}].image"))?;
                    if !image.is_empty() {
                        images.insert(image.to_owned());
                    }
                }
            }
        }
        Ok(images.into_iter().collect())
    }
}
