//! The download cache: content-addressed, keyed by URL.
//!
//! Layout under the cache root:
//!
//! ```text
//! catalogs/<sha256 of the URL>/url                 the URL, for people reading the cache
//! catalogs/<sha256 of the URL>/sha256-<hex>        one downloaded body, named by its sha256
//! catalogs/<sha256 of the URL>/latest              the hex digest of the newest download
//! bundles/sha256-<hex>/{manifests,metadata}/       a bundle image unpacked by [`crate::registry`],
//!                                                  named by the digest its reference pins
//! tmp/                                             staging: downloads and unpacking in progress
//! ```
//!
//! Every file lands atomically (written to a temporary file in the same directory, then
//! renamed), so an interrupted download never leaves a partial entry. A body whose digest does
//! not match the expected one is never stored.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

/// A cache directory.
#[derive(Debug, Clone)]
pub struct Cache {
    root: PathBuf,
}

/// A cache entry that was found or stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The file holding the body.
    pub path: PathBuf,
    /// Its sha256, lowercase hex.
    pub sha256: String,
}

impl Cache {
    /// A cache rooted at `root` (created on first store).
    pub fn new(root: impl Into<PathBuf>) -> Cache {
        Cache { root: root.into() }
    }

    /// The default root: the user's cache directory plus `po-manifests`, if there is one.
    pub fn default_root() -> Option<PathBuf> {
        dirs::cache_dir().map(|d| d.join("po-manifests"))
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directory of one URL's entries.
    pub fn url_dir(&self, url: &str) -> PathBuf {
        self.root
            .join("catalogs")
            .join(hex::encode(Sha256::digest(url.as_bytes())))
    }

    /// The entry with this content digest for `url`, if cached.
    pub fn get(&self, url: &str, sha256: &str) -> Option<Entry> {
        let path = self.url_dir(url).join(format!("sha256-{sha256}"));
        path.is_file().then(|| Entry {
            path,
            sha256: sha256.to_string(),
        })
    }

    /// The newest entry stored for `url`, if any.
    pub fn latest(&self, url: &str) -> Option<Entry> {
        let text = std::fs::read_to_string(self.url_dir(url).join("latest")).ok()?;
        let hex = text.trim();
        if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        self.get(url, hex)
    }

    /// Where downloads are written before they are verified and adopted.
    pub fn staging_dir(&self) -> PathBuf {
        self.root.join("tmp")
    }

    /// Move a verified download (a temporary file on the same file system, see
    /// [`Cache::staging_dir`]) into place under its digest and make it the latest.
    pub fn adopt(
        &self,
        url: &str,
        file: tempfile::NamedTempFile,
        sha256: &str,
    ) -> std::io::Result<Entry> {
        let dir = self.url_dir(url);
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(format!("sha256-{sha256}"));
        file.as_file().sync_all()?;
        file.persist(&path).map_err(|e| e.error)?;
        write_atomic(&dir, &dir.join("url"), format!("{url}\n").as_bytes())?;
        write_atomic(&dir, &dir.join("latest"), format!("{sha256}\n").as_bytes())?;
        Ok(Entry {
            path,
            sha256: sha256.to_string(),
        })
    }

    /// Store a body for `url` under its digest and make it the latest; returns the entry.
    pub fn store(&self, url: &str, body: &[u8], sha256: &str) -> std::io::Result<Entry> {
        let dir = self.url_dir(url);
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(format!("sha256-{sha256}"));
        if !path.is_file() {
            write_atomic(&dir, &path, body)?;
        }
        write_atomic(&dir, &dir.join("url"), format!("{url}\n").as_bytes())?;
        write_atomic(&dir, &dir.join("latest"), format!("{sha256}\n").as_bytes())?;
        Ok(Entry {
            path,
            sha256: sha256.to_string(),
        })
    }
}

fn write_atomic(dir: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_then_get_and_latest() {
        let d = tempfile::tempdir().unwrap();
        let c = Cache::new(d.path());
        let url = "https://example.test/api/v1/all";
        assert!(c.latest(url).is_none());
        let sha = hex::encode(Sha256::digest(b"one"));
        let e = c.store(url, b"one", &sha).unwrap();
        assert_eq!(std::fs::read(&e.path).unwrap(), b"one");
        assert_eq!(c.get(url, &sha), Some(e.clone()));
        assert_eq!(c.latest(url), Some(e));
        let sha2 = hex::encode(Sha256::digest(b"two"));
        c.store(url, b"two", &sha2).unwrap();
        assert_eq!(c.latest(url).unwrap().sha256, sha2);
        // The older content stays addressable.
        assert!(c.get(url, &sha).is_some());
        assert!(c.get("https://other.test/", &sha).is_none());
    }

    #[test]
    fn garbage_latest_is_ignored() {
        let d = tempfile::tempdir().unwrap();
        let c = Cache::new(d.path());
        let dir = c.url_dir("u");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("latest"), "../../etc/passwd").unwrap();
        assert!(c.latest("u").is_none());
    }
}
