//! OCI image layouts on disk (what `skopeo copy … oci:DIR` and oc-mirror write): an
//! `index.json` and `blobs/<algorithm>/<hex>`. An image is found by digest (any manifest or
//! index blob in the layout), or by its `org.opencontainers.image.ref.name` annotation (the
//! tag, or the whole reference). Blobs are read only through validated digests, so a name in
//! the layout can never point outside `blobs/`. `LayoutBlobs` reads a layout's manifests and
//! blobs for the puller, bounded as a registry's answers are.

use std::path::{Path, PathBuf};

use std::io::Read as _;

use serde::Deserialize;

use super::error::ErrorKind;
use super::manifest::{Blobs, Descriptor, MAX_MANIFEST_BYTES, Spool};
use super::reference::sha256_hex;

/// The annotation naming an image in `index.json`.
pub const REF_NAME: &str = "org.opencontainers.image.ref.name";

/// One OCI image layout directory.
#[derive(Debug, Clone)]
pub struct Layout {
    root: PathBuf,
}

#[derive(Deserialize)]
struct Index {
    #[serde(default)]
    manifests: Vec<IndexEntry>,
}

#[derive(Deserialize)]
struct IndexEntry {
    #[serde(default)]
    digest: String,
    #[serde(default)]
    annotations: std::collections::BTreeMap<String, String>,
}

impl Layout {
    /// A layout rooted at `root`; it must hold `index.json`.
    pub fn open(root: &Path) -> std::io::Result<Layout> {
        let index = root.join("index.json");
        if !index.is_file() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!(
                    "{} is not an OCI image layout (no index.json)",
                    root.display()
                ),
            ));
        }
        Ok(Layout {
            root: root.to_path_buf(),
        })
    }

    /// The layout's directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file of a blob, if `digest` is a well-formed sha256 digest and the blob exists.
    pub fn blob_path(&self, digest: &str) -> Option<PathBuf> {
        let hex = sha256_hex(digest)?;
        let path = self.root.join("blobs").join("sha256").join(hex);
        path.is_file().then_some(path)
    }

    /// The digest of the image `digest` or `tag`/`reference` names, if the layout has it.
    pub fn find(&self, digest: Option<&str>, reference: &str, tag: Option<&str>) -> Option<String> {
        if let Some(d) = digest {
            return self.blob_path(d).map(|_| d.to_string());
        }
        let text = std::fs::read_to_string(self.root.join("index.json")).ok()?;
        let index: Index = serde_json::from_str(&text).ok()?;
        index
            .manifests
            .into_iter()
            .find(|m| {
                m.annotations
                    .get(REF_NAME)
                    .is_some_and(|n| n == reference || Some(n.as_str()) == tag)
            })
            .map(|m| m.digest)
            .filter(|d| self.blob_path(d).is_some())
    }
}

/// A layout as the puller reads it: manifests and blobs by digest, bounded like a registry's.
pub(super) struct LayoutBlobs<'a> {
    pub(super) layout: &'a Layout,
}

impl LayoutBlobs<'_> {
    fn open(&self, digest: &str) -> Result<(PathBuf, std::fs::File), ErrorKind> {
        let path = self
            .layout
            .blob_path(digest)
            .ok_or_else(|| ErrorKind::NotFound {
                detail: format!("no blob {digest} in {}", self.layout.root().display()),
            })?;
        let file = std::fs::File::open(&path).map_err(|source| ErrorKind::Io {
            path: path.clone(),
            source,
        })?;
        Ok((path, file))
    }
}

impl Blobs for LayoutBlobs<'_> {
    fn manifest(&mut self, digest: &str) -> Result<Vec<u8>, ErrorKind> {
        let (path, file) = self.open(digest)?;
        let mut out = Vec::new();
        file.take(MAX_MANIFEST_BYTES + 1)
            .read_to_end(&mut out)
            .map_err(|source| ErrorKind::Io { path, source })?;
        if out.len() as u64 > MAX_MANIFEST_BYTES {
            return Err(ErrorKind::TooLarge {
                what: format!("manifest {digest}"),
                limit: MAX_MANIFEST_BYTES,
                reason: "the manifest size limit".into(),
            });
        }
        Ok(out)
    }

    fn blob(&mut self, desc: &Descriptor, out: &mut Spool, limit: u64) -> Result<(), ErrorKind> {
        let (path, file) = self.open(&desc.digest)?;
        // One byte more than declared is enough for the digest and size checks to fail.
        std::io::copy(&mut file.take(limit + 1), out)
            .map_err(|source| ErrorKind::Io { path, source })?;
        Ok(())
    }
}
