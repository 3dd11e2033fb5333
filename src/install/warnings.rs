//! Install-wide warnings about the target release, said once before any operator's: a
//! `clusterVersion` newer than the release table knows (its newest known release's rules are
//! used), and a catalog snapshot that says it was built for another release than the target
//! (an image tag `:v4.14`, or a source path segment `v4.14` or `…-v4.14`, while the target is
//! 4.20). The choice of bundles stands; the warning says what to check.

use super::Install;
use crate::config::CatalogLocation;
use crate::openshift::ClusterVersion;

/// The warnings for planning `inv` for `cluster_version`.
pub fn for_release(inv: &Install, cluster_version: &ClusterVersion) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(w) = crate::openshift::lookup(cluster_version)
        .ok()
        .and_then(|r| r.newer_warning())
    {
        out.push(format!("{w}: its rules are the ones used here"));
    }
    for c in &inv.config.catalogs {
        let source = c.source.value.to_string();
        let from_image = c
            .image
            .as_ref()
            .and_then(|i| crate::registry::ImageRef::parse(&i.value).ok())
            .and_then(|r| r.tag)
            .and_then(|t| release_in(&t).map(|m| (m, format!("its image tag {t}"))));
        let from_source = match &c.source.value {
            CatalogLocation::Path(p) => p
                .components()
                .filter_map(|s| s.as_os_str().to_str())
                .find_map(|s| release_in(s).map(|m| (m, format!("its source path segment {s}")))),
            CatalogLocation::Url(u) => u
                .split(['/', '?', '#'])
                .find_map(|s| release_in(s).map(|m| (m, format!("its URL path segment {s}")))),
        };
        if let Some((minor, why)) = from_image.or(from_source)
            && minor != cluster_version.minor
        {
            out.push(format!(
                "catalog \"{}\" ({}) looks built for OpenShift 4.{minor} ({why}), but the target release is {}: the operators are resolved against another release's catalog; use the catalog snapshot for 4.{}",
                crate::text::printable(&c.name.value),
                crate::text::printable(&source),
                cluster_version,
                cluster_version.minor
            ));
        }
    }
    out
}

/// The OpenShift 4 minor a tag or path segment names: `v4.14`, or one ending in `-v4.14` or
/// `_v4.14` (`redhat-operator-index-v4.14`).
fn release_in(segment: &str) -> Option<u64> {
    let at = segment.rfind("v4.")?;
    let before = segment[..at].chars().next_back();
    if !matches!(before, None | Some('-' | '_')) {
        return None;
    }
    let minor = &segment[at + 3..];
    if minor.is_empty() || minor.len() > 3 || !minor.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    minor.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::release_in;

    #[test]
    fn release_segments() {
        assert_eq!(release_in("v4.14"), Some(14));
        assert_eq!(release_in("redhat-operator-index-v4.20"), Some(20));
        assert_eq!(release_in("index_v4.9"), Some(9));
        assert_eq!(release_in("v4.14.2"), None);
        assert_eq!(release_in("catalog"), None);
        assert_eq!(release_in("dev4.14"), None);
        assert_eq!(release_in("v4."), None);
        assert_eq!(release_in("latest"), None);
    }
}
