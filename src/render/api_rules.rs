//! What the API server would refuse in the objects a ClusterExtension install writes, checked
//! here first, with the CRDs' own rules: the CEL `XValidation` rules of
//! openshift/operator-framework-operator-controller `release-4.22` `api/v1/clustercatalog_types.go`
//! (`ImageSource.Ref`) and `api/v1/clusterextension_types.go` (`CatalogFilter.Channels`; the
//! same rule on every release branch from 4.18).
//!
//! CEL's `matches` is an unanchored RE2 search and `find` returns the leftmost match; the
//! rules are evaluated exactly that way, quirks included (the "tag" is everything after the
//! first `:`, so a registry port counts towards its 127 characters).

use std::sync::LazyLock;

use regex::Regex;

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("the CRD's patterns compile")
}

static DOMAIN: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])((\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))+)?(:[0-9]+)?(?-u:\b)",
    )
});
static NAME: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(/[a-z0-9]+((([._]|__|[-]*)[a-z0-9]+)+)?((/[a-z0-9]+((([._]|__|[-]*)[a-z0-9]+)+)?)+)?)")
});
static DIGEST_AT: LazyLock<Regex> = LazyLock::new(|| re(r"(@.*:)"));
static FROM_COLON: LazyLock<Regex> = LazyLock::new(|| re(r":.*$"));
static TAG: LazyLock<Regex> = LazyLock::new(|| re(r"(?-u):\w[\w.-]*$"));
static ALGORITHM: LazyLock<Regex> =
    LazyLock::new(|| re(r"(@[A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)*[:])"));
static HEX: LazyLock<Regex> = LazyLock::new(|| re(r":[0-9A-Fa-f]*$"));
static DNS1123_SUBDOMAIN: LazyLock<Regex> =
    LazyLock::new(|| re(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"));

fn find<'a>(r: &Regex, s: &'a str) -> &'a str {
    r.find(s).map_or("", |m| m.as_str())
}

/// The messages the ClusterCatalog CRD gives for `spec.source.image.ref`, in rule order (empty:
/// accepted).
pub fn cluster_catalog_image_errors(reference: &str) -> Vec<&'static str> {
    let mut errs = Vec::new();
    if reference.chars().count() > 1000 {
        errs.push("may not be more than 1000 bytes");
    }
    if !DOMAIN.is_match(reference) {
        errs.push("must start with a valid domain. valid domains must be alphanumeric characters (lowercase and uppercase) separated by the \".\" character.");
    }
    if find(&NAME, reference).is_empty() {
        errs.push("a valid name is required. valid names must contain lowercase alphanumeric characters separated only by the \".\", \"_\", \"__\", \"-\" characters.");
    }
    let digest = find(&DIGEST_AT, reference);
    let from_colon = find(&FROM_COLON, reference);
    if digest.is_empty() && from_colon.is_empty() {
        errs.push("must end with a digest or a tag");
    }
    if digest.is_empty() && !from_colon.is_empty() {
        if from_colon.chars().count() - 1 > 127 {
            errs.push("tag is invalid. the tag must not be more than 127 characters");
        }
        if !TAG.is_match(from_colon) {
            errs.push("tag is invalid. valid tags must begin with a word character (alphanumeric + \"_\") followed by word characters or \".\", and \"-\" characters");
        }
    }
    if !digest.is_empty() {
        if !ALGORITHM.is_match(digest) {
            errs.push("digest algorithm is not valid. valid algorithms must start with an uppercase or lowercase alpha character followed by alphanumeric characters and may contain the \"-\", \"_\", \"+\", and \".\" characters.");
        }
        if from_colon.chars().count() - 1 < 32 {
            errs.push("digest is not valid. the encoded string must be at least 32 characters");
        }
        if !HEX.is_match(from_colon) {
            errs.push("digest is not valid. the encoded string must only contain hex characters (A-F, a-f, 0-9)");
        }
    }
    errs
}

/// The ClusterExtension CRD's rule for each `spec.source.catalog.channels` entry.
pub fn channel_is_valid(channel: &str) -> bool {
    DNS1123_SUBDOMAIN.is_match(channel)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIGEST: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn accepted_references() {
        for r in [
            "registry.redhat.io/redhat/redhat-operator-index:v4.21".to_string(),
            format!("quay.io/org/index@{DIGEST}"),
            "registry.example.com:5000/a/b/index:latest".to_string(),
            "localhost/index:1.0".to_string(),
        ] {
            assert_eq!(cluster_catalog_image_errors(&r), Vec::<&str>::new(), "{r}");
        }
    }

    #[test]
    fn refused_references() {
        let only = |r: &str| cluster_catalog_image_errors(r);
        assert_eq!(
            only("quay.io/org/index"),
            ["must end with a digest or a tag"]
        );
        assert!(only("quay.io/Org/Index:v1")[0].starts_with("a valid name is required"));
        assert_eq!(
            only("quay.io/org/index@sha256:abc"),
            ["digest is not valid. the encoded string must be at least 32 characters"]
        );
        assert!(only("quay.io/org/index:-v1")[0].starts_with("tag is invalid. valid tags"));
        let long_tag = format!("quay.io/org/index:{}", "a".repeat(128));
        assert_eq!(
            only(&long_tag),
            ["tag is invalid. the tag must not be more than 127 characters"]
        );
        let long = format!("quay.io/org/{}:v1", "a".repeat(1000));
        assert_eq!(only(&long)[0], "may not be more than 1000 bytes");
        assert!(only("-bad.io/org/index:v1")[0].starts_with("must start with a valid domain"));
    }

    #[test]
    fn channels() {
        assert!(channel_is_valid("stable"));
        assert!(channel_is_valid("stable-v1.2"));
        assert!(!channel_is_valid("Stable"));
        assert!(!channel_is_valid("stable_v1"));
        assert!(!channel_is_valid(""));
    }
}
