//! Where an image is pulled from: install-config's mirror rules (`imageDigestSources`, and the
//! deprecated `imageContentSources`, which the installer turns into `ImageDigestMirrorSet`
//! objects) and the ordered list of locations they give a reference. [`MirrorRule`] is the
//! project's one mirror-rule type: the puller follows it, and `mirror` and `check` check images
//! against it.
//!
//! Matching follows containers-registries.conf(5) and the OpenShift IDMS API: a rule's `source`
//! names a registry (`registry.example.com`, `*.example.com`), a namespace or a repository, and
//! it matches that repository or anything below it by whole path components (`quay.io/foo`
//! matches `quay.io/foo/bar`, not `quay.io/foobar`); the most specific matching rule wins. A
//! reference by digest goes to that rule's mirrors, in order, then to its source unless the
//! rule says `NeverContactSource`; a reference by tag goes to its source only, as the cluster
//! would pull it.

use serde::Serialize;

use crate::config::install::InstallConfig;

use super::reference::{ImageRef, source_matches};

/// A mirror rule with its source policy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MirrorRule {
    /// `source` as written, without surrounding blanks or a trailing `/`.
    pub source: String,
    /// `mirrors`, in order.
    pub mirrors: Vec<String>,
    /// `sourcePolicy: NeverContactSource`.
    #[serde(skip)]
    pub never_contact_source: bool,
    /// Where the rule is: `imageDigestSources[0]` or `imageContentSources[2]`.
    pub origin: String,
}

impl MirrorRule {
    /// Whether the rule's `source` matches `image`'s repository.
    pub fn matches(&self, image: &ImageRef) -> bool {
        source_matches(&self.source, image)
    }

    /// Whether this rule redirects pulls of `image`'s repository. A rule without mirrors
    /// redirects nothing.
    pub fn covers(&self, image: &ImageRef) -> bool {
        !self.mirrors.is_empty() && self.matches(image)
    }

    /// How specific the source is (longer wins when several rules match).
    fn specificity(&self) -> usize {
        self.source.trim_start_matches("*.").len()
    }
}

/// The most specific of `rules` that `keep` keeps.
fn most_specific(rules: &[MirrorRule], keep: impl Fn(&MirrorRule) -> bool) -> Option<&MirrorRule> {
    rules
        .iter()
        .filter(|r| keep(r))
        .max_by_key(|r| r.specificity())
}

/// The most specific rule covering an image (one with mirrors).
pub fn covering_rule<'r>(image: &ImageRef, rules: &'r [MirrorRule]) -> Option<&'r MirrorRule> {
    most_specific(rules, |r| r.covers(image))
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
    // A matching rule without mirrors still decides: its policy may forbid the source.
    let Some(rule) = most_specific(rules, |r| r.matches(image)) else {
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

    fn rule(source: &str, mirror: &str) -> MirrorRule {
        rules(source, &[mirror], false).remove(0)
    }

    fn img(name: &str) -> ImageRef {
        ImageRef::parse(&format!("{name}@{D}")).unwrap()
    }

    #[test]
    fn sources_are_read_without_blanks_or_a_trailing_slash() {
        let r = rule(" quay.io/team/ ", "m.local/team");
        assert_eq!(r.source, "quay.io/team");
        assert_eq!(r.origin, "imageDigestSources[0]");
        assert!(r.covers(&img("quay.io/team/a")));
    }

    #[test]
    fn match_by_path_component_prefix() {
        let r = rule("registry.redhat.io/rhosdt", "mirror.local/rhosdt");
        assert!(r.covers(&img("registry.redhat.io/rhosdt")));
        assert!(r.covers(&img("registry.redhat.io/rhosdt/jaeger")));
        assert!(!r.covers(&img("registry.redhat.io/rhosdtx/jaeger")));
        assert!(!r.covers(&img("quay.io/rhosdt/jaeger")));
    }

    #[test]
    fn registry_and_wildcard_sources() {
        let r = rule("registry.redhat.io", "m.local");
        assert!(r.covers(&img("registry.redhat.io/a/b")));
        let w = rule("*.redhat.io", "m.local");
        assert!(w.covers(&img("registry.redhat.io/a")));
        assert!(!w.covers(&img("redhat.io/a")));
        assert!(!w.covers(&img("registry.notredhat.io/a")));
    }

    #[test]
    fn rule_without_mirrors_covers_nothing_but_still_matches() {
        let mut r = rule("quay.io", "m");
        r.mirrors.clear();
        assert!(!r.covers(&img("quay.io/a")));
        assert!(r.matches(&img("quay.io/a")));
    }

    #[test]
    fn most_specific_rule_wins() {
        let rules = [rule("quay.io", "a.local"), rule("quay.io/x", "b.local/x")];
        let r = covering_rule(&img("quay.io/x/y"), &rules).unwrap();
        assert_eq!(r.source, "quay.io/x");
        let l = locations(&img("quay.io/x/y"), &rules);
        assert_eq!(l[0].name(), "b.local/x/y");
    }
}
