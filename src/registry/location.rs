//! Where an image is pulled from: install-config's mirror rules (`imageDigestSources`, and the
//! deprecated `imageContentSources`) and the ordered list of locations they give a reference.
//! A reference by digest goes to the mirrors of the most specific rule covering it, in order,
//! then to its source unless the rule says `NeverContactSource` (containers-registries.conf(5));
//! a reference by tag goes to its source only, as the cluster would pull it.

use crate::config::install::InstallConfig;

use super::reference::{ImageRef, source_matches};

/// A mirror rule with its source policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MirrorRule {
    /// `source` as written.
    pub source: String,
    /// `mirrors`, in order.
    pub mirrors: Vec<String>,
    /// `sourcePolicy: NeverContactSource`.
    pub never_contact_source: bool,
    /// Where the rule is (`imageDigestSources[0]`).
    pub origin: String,
}

/// The mirror rules of an install-config, `imageDigestSources` first.
pub fn mirror_rules(install: &InstallConfig) -> Vec<MirrorRule> {
    let mut out = Vec::new();
    for (field, list) in [
        ("imageDigestSources", &install.image_digest_sources),
        ("imageContentSources", &install.image_content_sources),
    ] {
        for (i, r) in list.iter().enumerate() {
            out.push(MirrorRule {
                source: r.source.trim().trim_end_matches('/').to_string(),
                mirrors: r.mirrors.clone(),
                never_contact_source: r.source_policy.as_deref() == Some("NeverContactSource"),
                origin: format!("{field}[{i}]"),
            });
        }
    }
    out
}

/// One place to pull an image from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// `host[:port]`.
    pub registry: String,
    /// The repository below the registry.
    pub repository: String,
    /// Why this location: `source`, or `mirror of imageDigestSources[0]`.
    pub why: String,
}

impl Location {
    /// `registry/repository`.
    pub fn name(&self) -> String {
        format!("{}/{}", self.registry, self.repository)
    }
}

/// Where to pull `image` from, in order: mirrors of the most specific covering rule (for a
/// reference by digest), then the source unless that rule forbids it.
pub fn locations(image: &ImageRef, rules: &[MirrorRule]) -> Vec<Location> {
    let source = Location {
        registry: image.domain.clone(),
        repository: image.path.clone(),
        why: "source".into(),
    };
    if image.digest.is_none() {
        return vec![source];
    }
    let rule = rules
        .iter()
        .filter(|r| source_matches(&r.source, image))
        .max_by_key(|r| r.source.trim_start_matches("*.").len());
    let Some(rule) = rule else {
        return vec![source];
    };
    let repository = image.repository();
    let mut out = Vec::new();
    for mirror in &rule.mirrors {
        let mirror = mirror.trim().trim_end_matches('/');
        let target = if rule.source.starts_with("*.") {
            // A wildcard rule replaces the registry only.
            format!("{mirror}/{}", image.path)
        } else {
            match repository.strip_prefix(&rule.source) {
                Some(rest) => format!("{mirror}{rest}"),
                None => format!("{mirror}/{}", image.path),
            }
        };
        let Ok(parsed) = ImageRef::parse(&format!(
            "{target}@{}",
            image.digest.as_deref().unwrap_or_default()
        )) else {
            continue;
        };
        out.push(Location {
            registry: parsed.domain,
            repository: parsed.path,
            why: format!("mirror {mirror} of {}", rule.origin),
        });
    }
    if !rule.never_contact_source || out.is_empty() {
        out.push(source);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::install::ImageDigestSource;

    fn rules(source: &str, mirrors: &[&str], never: bool) -> Vec<MirrorRule> {
        mirror_rules(&InstallConfig {
            image_digest_sources: vec![ImageDigestSource {
                source: source.into(),
                mirrors: mirrors.iter().map(|m| m.to_string()).collect(),
                source_policy: never.then(|| "NeverContactSource".into()),
            }],
            ..Default::default()
        })
    }

    const D: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn mirrors_first_then_source_unless_never() {
        let image = ImageRef::parse(&format!("quay.io/team/op-bundle@{D}")).unwrap();
        let l = locations(
            &image,
            &rules("quay.io/team", &["mirror.test:5000/m"], false),
        );
        let names: Vec<String> = l.iter().map(Location::name).collect();
        assert_eq!(
            names,
            ["mirror.test:5000/m/op-bundle", "quay.io/team/op-bundle"]
        );
        let l = locations(&image, &rules("quay.io/team", &["mirror.test/m"], true));
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].name(), "mirror.test/m/op-bundle");
        // By tag: the source only.
        let image = ImageRef::parse("quay.io/team/op-bundle:v1").unwrap();
        let l = locations(&image, &rules("quay.io/team", &["mirror.test/m"], true));
        assert_eq!(l[0].name(), "quay.io/team/op-bundle");
        // No match: the source.
        let image = ImageRef::parse(&format!("quay.io/teamx/b@{D}")).unwrap();
        let l = locations(&image, &rules("quay.io/team", &["mirror.test/m"], true));
        assert_eq!(l[0].name(), "quay.io/teamx/b");
    }
}
