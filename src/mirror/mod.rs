//! Disconnected installs: which images the resolved operators pull, whether each is pinned by
//! digest and covered by a mirror rule, and the oc-mirror configuration that mirrors exactly
//! the resolved bundles ([`imageset`]).
//!
//! The mirror rules are install-config's, read as the puller reads them
//! ([`crate::registry::location`]: one rule type, [`MirrorRule`], and one way a rule matches).
//! Only references by digest are redirected to mirrors: a reference by tag is pulled from its
//! source, which a disconnected cluster cannot reach.

pub mod imageset;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::registry::{ImageRef, MirrorRule, covering_rule, split_domain};

/// Whether an image is hosted on one of the rules' mirror registries (pulled from there
/// directly, so no rule needs to redirect it).
pub fn on_mirror_registry(image: &str, rules: &[MirrorRule]) -> bool {
    let Ok(parsed) = ImageRef::parse(image) else {
        return false;
    };
    rules.iter().flat_map(|r| &r.mirrors).any(|m| {
        let host = m.split('/').next().unwrap_or("");
        !host.is_empty() && host == parsed.domain
    })
}

/// Why an operator needs an image.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Role {
    /// The bundle image (unpacked by the cluster).
    Bundle,
    /// A `relatedImages` entry.
    RelatedImage {
        /// Its name (may be empty).
        name: String,
    },
    /// The catalog index image of a `CatalogSource` written for a disconnected install.
    CatalogIndex {
        /// The configured catalog name.
        catalog: String,
    },
    /// A container of a converted workload (bootstrap operators).
    Container {
        /// The object's kind.
        #[serde(rename = "objectKind")]
        object_kind: String,
        /// The object's name.
        object: String,
        /// The container's name.
        container: String,
    },
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Role::Bundle => f.write_str("bundle image"),
            Role::RelatedImage { name } if name.is_empty() => f.write_str("related image"),
            Role::RelatedImage { name } => write!(f, "related image {name:?}"),
            Role::CatalogIndex { catalog } => write!(f, "index image of catalog {catalog:?}"),
            Role::Container {
                object_kind,
                object,
                container,
            } => write!(f, "container {container:?} of {object_kind} {object:?}"),
        }
    }
}

/// One image an operator needs.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct ImageUse {
    /// The reference.
    pub image: String,
    /// The operator (config `name`).
    pub operator: String,
    /// Why.
    pub role: Role,
}

/// The images of a resolved bundle: the bundle image and its `relatedImages`.
pub fn bundle_images(operator: &str, bundle: &crate::catalog::model::Bundle) -> Vec<ImageUse> {
    let mut out = Vec::new();
    if !bundle.image.is_empty() {
        out.push(ImageUse {
            image: bundle.image.clone(),
            operator: operator.to_string(),
            role: Role::Bundle,
        });
    }
    for r in &bundle.related_images {
        if r.image.is_empty() {
            continue;
        }
        out.push(ImageUse {
            image: r.image.clone(),
            operator: operator.to_string(),
            role: Role::RelatedImage {
                name: r.name.clone(),
            },
        });
    }
    out
}

/// The container images (containers and init containers) of workload objects: Deployments,
/// StatefulSets, DaemonSets, Jobs and Pods, and the pod template of any other kind that has one.
pub fn workload_images(operator: &str, objects: &[serde_json::Value]) -> Vec<ImageUse> {
    let mut out = Vec::new();
    for o in objects {
        let kind = o.get("kind").and_then(|k| k.as_str()).unwrap_or("");
        let name = o
            .pointer("/metadata/name")
            .and_then(|n| n.as_str())
            .unwrap_or("");
        let pod_spec = if kind == "Pod" {
            o.get("spec")
        } else if kind == "CronJob" {
            o.pointer("/spec/jobTemplate/spec/template/spec")
        } else {
            o.pointer("/spec/template/spec")
        };
        let Some(spec) = pod_spec else { continue };
        for list in ["initContainers", "containers"] {
            for c in spec
                .get(list)
                .and_then(|l| l.as_array())
                .into_iter()
                .flatten()
            {
                if let Some(image) = c.get("image").and_then(|i| i.as_str())
                    && !image.is_empty()
                {
                    out.push(ImageUse {
                        image: image.to_string(),
                        operator: operator.to_string(),
                        role: Role::Container {
                            object_kind: kind.to_string(),
                            object: name.to_string(),
                            container: c
                                .get("name")
                                .and_then(|n| n.as_str())
                                .unwrap_or("")
                                .to_string(),
                        },
                    });
                }
            }
        }
    }
    out
}

/// A problem with one image in a disconnected install.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "problem", rename_all = "camelCase")]
pub enum Finding {
    /// The reference does not parse.
    Invalid {
        /// The image and who needs it.
        image: ImageUse,
        /// Why.
        error: String,
    },
    /// Pulled by tag: mirror rules only apply to digests.
    NotPinned {
        /// The image and who needs it.
        image: ImageUse,
    },
    /// No rule covers the repository.
    NotMirrored {
        /// The image and who needs it.
        image: ImageUse,
        /// A rule that would cover it, as install-config YAML.
        suggestion: String,
    },
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Finding::Invalid { image, error } => write!(
                f,
                "{} ({} of operator {:?}) is not a valid image reference: {error}",
                image.image, image.role, image.operator
            ),
            Finding::NotPinned { image } => write!(
                f,
                "{} ({} of operator {:?}) is not pinned by digest; mirror rules only apply to digest references",
                image.image, image.role, image.operator
            ),
            Finding::NotMirrored { image, suggestion } => write!(
                f,
                "{} ({} of operator {:?}) is not covered by any mirror rule; a rule that would cover it:\n{suggestion}",
                image.image, image.role, image.operator
            ),
        }
    }
}

/// Check every image: pinned by digest and covered by a rule. Findings are sorted by image,
/// then operator and role, one per distinct image use.
pub fn check(images: &[ImageUse], rules: &[MirrorRule]) -> Vec<Finding> {
    let mut uses: Vec<&ImageUse> = images.iter().collect();
    uses.sort();
    uses.dedup();
    let mut out = Vec::new();
    for u in uses {
        let parsed = match ImageRef::parse(&u.image) {
            Ok(p) => p,
            Err(e) => {
                out.push(Finding::Invalid {
                    image: u.clone(),
                    error: e.to_string(),
                });
                continue;
            }
        };
        if parsed.digest.is_none() {
            out.push(Finding::NotPinned { image: u.clone() });
            continue;
        }
        if covering_rule(&parsed, rules).is_none() {
            out.push(Finding::NotMirrored {
                image: u.clone(),
                suggestion: suggest_rule(&parsed, rules),
            });
        }
    }
    out
}

/// A rule for `image`'s repository, as an `imageDigestSources` entry. The mirror host is taken
/// from an existing rule for the same registry (keeping that rule's path mapping), else from
/// any existing rule, else a placeholder.
pub fn suggest_rule(image: &ImageRef, rules: &[MirrorRule]) -> String {
    let source = image.repository();
    let mirror = rules
        .iter()
        .filter(|r| !r.mirrors.is_empty())
        .map(|r| {
            let (domain, path) = match r.source.split_once('/') {
                Some(_) => split_domain(&r.source),
                None => (r.source.clone(), String::new()),
            };
            let same_registry = domain == image.domain;
            let m = r.mirrors[0].trim_end_matches('/');
            // Keep the rule's mapping: `src/a → mirror/x/a` gives `src/b → mirror/x/b`.
            let base = if !path.is_empty() && m.ends_with(&format!("/{path}")) {
                m[..m.len() - path.len() - 1].to_string()
            } else if path.is_empty() {
                m.to_string()
            } else {
                m.split('/').next().unwrap_or(m).to_string()
            };
            (!same_registry, format!("{base}/{}", image.path))
        })
        .min()
        .map(|(_, m)| m)
        .unwrap_or_else(|| format!("<mirror-registry>/{}", image.path));
    format!("imageDigestSources:\n- source: {source}\n  mirrors:\n  - {mirror}")
}

/// Images grouped for display: each distinct reference with the uses that need it.
pub fn by_image(images: &[ImageUse]) -> BTreeMap<&str, Vec<&ImageUse>> {
    let mut map: BTreeMap<&str, Vec<&ImageUse>> = BTreeMap::new();
    for u in images {
        map.entry(u.image.as_str()).or_default().push(u);
    }
    for v in map.values_mut() {
        v.sort();
        v.dedup();
    }
    map
}

#[cfg(test)]
mod tests;
