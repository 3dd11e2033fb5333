//! Install-wide warnings about the target release, said once before any operator's: a
//! `clusterVersion` newer than the release table knows (its newest known release's rules are
//! used), and a catalog snapshot that says it was built for another release than the target
//! (an image tag `:v4.14`, or a source path segment `v4.14` or `…-v4.14`, while the target is
//! 4.20). The choice of bundles stands; the warning says what to check. And one about the
//! install directory: `manifests/` without the installer's own files ([`for_directory`]), a note
//! when the directory holds nothing of the installer yet, a warning when it does.

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
        if let Some(((major, minor), why)) = from_image.or(from_source)
            && foreign_release((major, minor), cluster_version)
        {
            out.push(format!(
                "catalog \"{}\" ({}) looks built for OpenShift {major}.{minor} ({why}), but the target release is {}: the operators are resolved against another release's catalog; use the catalog snapshot for {}",
                crate::text::printable(&c.name.value),
                crate::text::printable(&source),
                cluster_version,
                cluster_version.minor_text()
            ));
        }
    }
    out
}

/// The installer's own file whose presence tells openshift-install that `manifests/` was made
/// by `create manifests` (its Manifests asset counts as found on disk only then, and then keeps
/// every file of the folder: openshift/installer `pkg/asset/manifests/operators.go`, `Load`).
const INSTALLER_MANIFEST: &str = "manifests/cluster-config.yaml";

/// What the install directory says about the order of the steps, for openshift-install: a
/// `manifests/` without the installer's own `cluster-config.yaml` is not read by it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DirectoryNotice {
    /// The directory holds nothing of the installer yet (po-manifests run first, as the quick
    /// starts do): what to run, as a note.
    Note(String),
    /// The directory looks like an installer's ([`installer_was_here`]) but lacks that file: a
    /// warning.
    Warning(String),
}

/// The notice about the install directory ([`DirectoryNotice`]); none for the other installers
/// or when `manifests/cluster-config.yaml` is there.
pub fn for_directory(inv: &Install) -> Option<DirectoryNotice> {
    if inv.installer != crate::rules::Installer::OpenshiftInstall
        || inv.dir.join(INSTALLER_MANIFEST).is_file()
    {
        return None;
    }
    let dir = crate::text::printable(&inv.dir.display().to_string()).into_owned();
    Some(if installer_was_here(&inv.dir) {
        DirectoryNotice::Warning(format!(
            "{dir}/manifests has none of the installer's own files (no {INSTALLER_MANIFEST}): run `openshift-install create manifests --dir {dir}` first; the installer reads the files of manifests/ only once its own are there"
        ))
    } else {
        DirectoryNotice::Note(format!(
            "{dir} holds no files of openshift-install yet: before the install, run `openshift-install create manifests --dir {dir}`, then this command again (the installer reads the files of manifests/ only once its own {INSTALLER_MANIFEST} is there)"
        ))
    })
}

/// The most entries of `manifests/` looked at for [`installer_was_here`].
const MAX_ENTRIES_LOOKED_AT: usize = 10_000;

/// Whether openshift-install has worked in `dir`: its state file or log is there, or
/// `manifests/` holds a file po-manifests did not write (dotfiles aside: po-manifests' staging
/// folders, editors' files).
fn installer_was_here(dir: &std::path::Path) -> bool {
    if [".openshift_install_state.json", ".openshift_install.log"]
        .iter()
        .any(|f| dir.join(f).exists())
    {
        return true;
    }
    let Ok(entries) = std::fs::read_dir(dir.join("manifests")) else {
        return false;
    };
    entries.take(MAX_ENTRIES_LOOKED_AT).flatten().any(|e| {
        let name = e.file_name();
        let name = name.to_string_lossy();
        !name.starts_with(crate::output::FILE_PREFIX) && !name.starts_with('.')
    })
}

/// Whether a catalog built for `found` is another release's than `target`'s: neither the
/// target's own `major.minor` nor the tag of the target's own catalogs in the release table
/// (5.1's default ClusterCatalogs are still `v5.0` on its branch).
fn foreign_release(found: (u64, u64), target: &ClusterVersion) -> bool {
    if found == (target.major, target.minor) {
        return false;
    }
    let own_tag = crate::openshift::lookup(target)
        .ok()
        .filter(|r| !r.newer_than_known)
        .map(|r| r.row.catalog_tag);
    own_tag != Some(format!("v{}.{}", found.0, found.1).as_str())
}

/// The OpenShift release a tag or path segment names: `v4.14`, `v5.0`, or one ending in
/// `-v4.14` or `_v4.14` (`redhat-operator-index-v4.14`).
fn release_in(segment: &str) -> Option<(u64, u64)> {
    let digits = |s: &str| !s.is_empty() && s.len() <= 3 && s.bytes().all(|b| b.is_ascii_digit());
    let at = segment.rfind('v')?;
    let before = segment[..at].chars().next_back();
    if !matches!(before, None | Some('-' | '_')) {
        return None;
    }
    let (major, minor) = segment[at + 1..].split_once('.')?;
    if !digits(major) || !digits(minor) || major.starts_with('0') {
        return None;
    }
    let major: u64 = major.parse().ok()?;
    (major >= 4).then_some(())?;
    Some((major, minor.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::{foreign_release, release_in};
    use crate::openshift::ClusterVersion;

    /// A catalog of the target's own release, or tagged as the table says the target's own
    /// catalogs are, is no other release's.
    #[test]
    fn catalogs_of_the_releases_after_4_22() {
        let cv = |v: &str| ClusterVersion::parse(v).unwrap();
        assert!(!foreign_release((5, 0), &cv("5.0.1")));
        assert!(foreign_release((4, 22), &cv("5.0.1")));
        assert!(!foreign_release((4, 23), &cv("4.23")));
        assert!(foreign_release((5, 0), &cv("4.23")));
        assert!(!foreign_release((5, 1), &cv("5.1")));
        assert!(!foreign_release((5, 0), &cv("5.1")));
        assert!(foreign_release((4, 22), &cv("5.1")));
        assert!(foreign_release((4, 14), &cv("4.20")));
        assert!(!foreign_release((5, 9), &cv("5.9")));
        assert!(foreign_release((5, 1), &cv("5.9")));
    }

    #[test]
    fn release_segments() {
        assert_eq!(release_in("v5.0"), Some((5, 0)));
        assert_eq!(release_in("redhat-operator-index-v5.1"), Some((5, 1)));
        assert_eq!(release_in("v3.11"), None);
        assert_eq!(release_in("v05.1"), None);
        assert_eq!(release_in("v4.14"), Some((4, 14)));
        assert_eq!(release_in("redhat-operator-index-v4.20"), Some((4, 20)));
        assert_eq!(release_in("index_v4.9"), Some((4, 9)));
        assert_eq!(release_in("v4.14.2"), None);
        assert_eq!(release_in("catalog"), None);
        assert_eq!(release_in("dev4.14"), None);
        assert_eq!(release_in("v4."), None);
        assert_eq!(release_in("latest"), None);
    }
}
