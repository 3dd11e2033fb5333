//! Image manifests: the manifest and index documents this tool reads (OCI and Docker schema 2),
//! the choice of one image from an index (linux/amd64, else the first linux image, else the
//! first), the checks of a descriptor and of content against its digest, and `Blobs`, the
//! one way the puller reads manifests and blobs, from an OCI layout or a registry alike.

use serde::Deserialize;
use sha2::{Digest as _, Sha256};

use super::error::ErrorKind;
use super::reference::sha256_hex;

/// The largest manifest or index accepted (they are small JSON documents; registries and
/// containerd cap them at 4 MiB too).
pub const MAX_MANIFEST_BYTES: u64 = 4 * 1024 * 1024;

/// Media types accepted for manifests.
pub(super) const MANIFEST_TYPES: [&str; 4] = [
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.docker.distribution.manifest.v2+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
];

/// Refuse a descriptor whose digest is not sha256, whose size is negative or above `limit`.
pub(super) fn check_descriptor(
    digest: &str,
    size: i64,
    limit: u64,
    what: &str,
) -> Result<(), ErrorKind> {
    if sha256_hex(digest).is_none() {
        return Err(ErrorKind::InvalidManifest {
            digest: digest.to_string(),
            detail: format!("{what} digest {digest:?} is not sha256:<64 hex digits>"),
        });
    }
    if size < 0 {
        return Err(ErrorKind::InvalidManifest {
            digest: digest.to_string(),
            detail: format!("{what} size {size} is negative"),
        });
    }
    if size as u64 > limit {
        return Err(ErrorKind::TooLarge {
            what: format!("{what} {digest} ({size} bytes)"),
            limit,
            reason: "--max-bundle-size".into(),
        });
    }
    Ok(())
}

/// Refuse `bytes` unless they hash to `expected`.
pub(super) fn check_digest(what: &str, expected: &str, bytes: &[u8]) -> Result<(), ErrorKind> {
    let actual = format!("sha256:{}", hex::encode(Sha256::digest(bytes)));
    if actual != expected {
        return Err(ErrorKind::DigestMismatch {
            what: what.to_string(),
            expected: expected.to_string(),
            actual,
        });
    }
    Ok(())
}

/// A content descriptor.
#[derive(Debug, Clone, Deserialize)]
pub(super) struct Descriptor {
    #[serde(rename = "mediaType", default)]
    pub(super) media_type: String,
    #[serde(default)]
    pub(super) digest: String,
    #[serde(default)]
    pub(super) size: i64,
    #[serde(default)]
    platform: Option<Platform>,
}

#[derive(Debug, Clone, Deserialize)]
struct Platform {
    #[serde(default)]
    os: String,
    #[serde(default)]
    architecture: String,
}

#[derive(Deserialize)]
struct RawManifest {
    #[serde(rename = "schemaVersion", default)]
    schema_version: i64,
    #[serde(rename = "mediaType", default)]
    media_type: Option<String>,
    #[serde(default)]
    manifests: Option<Vec<Descriptor>>,
    #[serde(default)]
    layers: Option<Vec<Descriptor>>,
}

/// A manifest read: an index of manifests, or an image's layers.
pub(super) enum Parsed {
    Index(Vec<Descriptor>),
    Image(Vec<Descriptor>),
}

/// Parse a manifest or index whose digest is `digest`.
pub(super) fn parse_manifest(digest: &str, bytes: &[u8]) -> Result<Parsed, ErrorKind> {
    let invalid = |detail: String| ErrorKind::InvalidManifest {
        digest: digest.to_string(),
        detail,
    };
    let m: RawManifest =
        serde_json::from_slice(bytes).map_err(|e| invalid(format!("not JSON: {e}")))?;
    if m.schema_version != 2 {
        return Err(invalid(format!(
            "schemaVersion {} (only 2 is supported)",
            m.schema_version
        )));
    }
    if let Some(t) = &m.media_type
        && !MANIFEST_TYPES.contains(&t.as_str())
    {
        return Err(invalid(format!("unsupported mediaType {t:?}")));
    }
    match (m.manifests, m.layers) {
        (Some(entries), None) => Ok(Parsed::Index(entries)),
        (None, Some(layers)) => {
            for l in &layers {
                if l.media_type.contains("foreign") || l.media_type.contains("nondistributable") {
                    return Err(invalid(format!(
                        "layer {} is non-distributable ({})",
                        l.digest, l.media_type
                    )));
                }
            }
            Ok(Parsed::Image(layers))
        }
        _ => Err(invalid(
            "neither an image manifest (layers) nor an index (manifests)".into(),
        )),
    }
}

/// linux/amd64, else the first linux image, else the first entry (bundle content does not
/// depend on the platform).
pub(super) fn pick_platform(entries: &[Descriptor]) -> Option<&Descriptor> {
    let images: Vec<&Descriptor> = entries
        .iter()
        .filter(|e| !e.media_type.contains("index") && !e.media_type.contains("list"))
        .collect();
    let on = |os: &str, arch: Option<&str>| {
        images.iter().copied().find(|e| {
            e.platform
                .as_ref()
                .is_some_and(|p| p.os == os && arch.is_none_or(|a| p.architecture == a))
        })
    };
    on("linux", Some("amd64"))
        .or_else(|| on("linux", None))
        .or_else(|| images.first().copied())
}

/// Where manifests and blobs come from.
pub(super) trait Blobs {
    /// The manifest with this digest (not yet verified).
    fn manifest(&mut self, digest: &str) -> Result<Vec<u8>, ErrorKind>;
    /// Write the blob into `out`, at most `limit` bytes (not yet verified).
    fn blob(&mut self, desc: &Descriptor, out: &mut Spool, limit: u64) -> Result<(), ErrorKind>;
}

/// A layer's bytes from download to check, hashed and counted as they are written: in
/// memory when its descriptor says it is small ([`super::Limits::memory_layer_bytes`]; most
/// bundle layers are some kilobytes), else in an unnamed temporary file of the cache's staging
/// directory. A layer in memory costs no file: pulls in flight at once do not create and delete
/// an inode each, which on a filesystem without a journal makes every later file creation
/// search past the deleted inodes.
pub(super) struct Spool {
    store: Store,
    hasher: Sha256,
    written: u64,
}

enum Store {
    Memory(Vec<u8>),
    File(std::fs::File),
}

impl Spool {
    /// A spool for a layer of `size` bytes by its descriptor: in memory up to
    /// `memory_bytes`, else a temporary file in `staging`.
    pub(super) fn new(
        size: u64,
        memory_bytes: u64,
        staging: &std::path::Path,
    ) -> std::io::Result<Spool> {
        let store = if size <= memory_bytes {
            Store::Memory(Vec::with_capacity(size as usize))
        } else {
            Store::File(tempfile::tempfile_in(staging)?)
        };
        Ok(Spool {
            store,
            hasher: Sha256::new(),
            written: 0,
        })
    }

    /// Throw away what was written (a retry starts over).
    pub(super) fn clear(&mut self) -> std::io::Result<()> {
        self.hasher = Sha256::new();
        self.written = 0;
        match &mut self.store {
            Store::Memory(v) => {
                v.clear();
                Ok(())
            }
            Store::File(f) => {
                f.set_len(0)?;
                std::io::Seek::rewind(f)
            }
        }
    }

    /// `sha256:<hex>` of what was written.
    pub(super) fn digest(&self) -> String {
        format!("sha256:{}", hex::encode(self.hasher.clone().finalize()))
    }

    /// How many bytes were written.
    pub(super) fn len(&self) -> u64 {
        self.written
    }

    /// What was written, read from its start.
    pub(super) fn into_reader(self) -> std::io::Result<Box<dyn std::io::Read>> {
        Ok(match self.store {
            Store::Memory(v) => Box::new(std::io::Cursor::new(v)),
            Store::File(mut f) => {
                std::io::Seek::rewind(&mut f)?;
                Box::new(f)
            }
        })
    }
}

impl std::io::Write for Spool {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = match &mut self.store {
            Store::Memory(v) => v.write(buf)?,
            Store::File(f) => f.write(buf)?,
        };
        self.hasher.update(&buf[..n]);
        self.written += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.store {
            Store::Memory(_) => Ok(()),
            Store::File(f) => f.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A spool in memory and one in a file hash, count and give back exactly what was
    /// written since it was last cleared (a retry's partial body is forgotten).
    #[test]
    fn a_spool_keeps_what_was_written_since_it_was_cleared() {
        use std::io::{Read as _, Write as _};
        let staging = tempfile::tempdir().unwrap();
        for memory_bytes in [u64::MAX, 0] {
            let mut spool = Spool::new(5, memory_bytes, staging.path()).unwrap();
            spool.write_all(b"broken off").unwrap();
            spool.clear().unwrap();
            spool.write_all(b"hel").unwrap();
            spool.write_all(b"lo").unwrap();
            assert_eq!(spool.len(), 5);
            assert_eq!(
                spool.digest(),
                format!("sha256:{}", hex::encode(Sha256::digest(b"hello")))
            );
            let mut back = String::new();
            spool
                .into_reader()
                .unwrap()
                .read_to_string(&mut back)
                .unwrap();
            assert_eq!(back, "hello", "memory_bytes {memory_bytes}");
        }
    }

    const D: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn manifests_parse_or_fail_cleanly() {
        assert!(matches!(
            parse_manifest(D, br#"{"schemaVersion":2,"layers":[]}"#),
            Ok(Parsed::Image(_))
        ));
        assert!(parse_manifest(D, b"{").is_err());
        assert!(parse_manifest(D, br#"{"schemaVersion":1}"#).is_err());
        assert!(parse_manifest(D, br#"{"schemaVersion":2}"#).is_err());
        let Ok(Parsed::Index(entries)) = parse_manifest(
            D,
            br#"{"schemaVersion":2,"manifests":[
              {"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:a","size":1,"platform":{"os":"linux","architecture":"arm64"}},
              {"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:b","size":1,"platform":{"os":"linux","architecture":"amd64"}}]}"#,
        ) else {
            panic!("index")
        };
        assert_eq!(pick_platform(&entries).unwrap().digest, "sha256:b");
    }
}
