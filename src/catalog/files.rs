//! A catalog's files and the bounds on reading them: which files a catalog path consists of
//! ([`catalog_files`]: a file, or a directory walked in lexical order with `.indexignore`
//! applied), the size caps (a file at 1 GiB, refused before it is read when it reports more;
//! one document at [`MAX_DOCUMENT_BYTES`]), the read chunk, and the content digest (a reader
//! that hashes what passes through it, `combine_digest`, [`digest_only`]).
//!
//! File layout rules (reference/catalogs-and-conversion.md §1.2): a directory is walked in
//! lexical order (`fs.WalkDir` order), every regular file is read (no extension filter),
//! `.indexignore` files (gitignore syntax) apply to their directory and below and are skipped
//! themselves; a symlink is followed only when it stays inside the catalog.

use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::Error;

/// The files a catalog path consists of, in the loader's order.
#[derive(Debug, Clone)]
pub struct CatalogFiles {
    /// The path given (a file or a directory).
    pub root: PathBuf,
    /// `true` when `root` is a single file.
    pub single_file: bool,
    /// Files to read: absolute (joined) path and the relative path with `/` separators.
    pub files: Vec<(PathBuf, String)>,
}

/// Largest catalog file read (real per-package files are at most tens of MB). A file that
/// reports more is refused before it is read.
pub(super) const MAX_CATALOG_FILE_BYTES: u64 = 1 << 30;

/// Largest single document read (one JSON object, one YAML document): 64 MiB, the cap on one
/// file of a bundle directory ([`crate::fsread::BUNDLE_FILE_LIMIT`]). Real documents are far
/// smaller: the largest are `olm.bundle`s with their manifests embedded as base64, a few MB
/// (362 KB in `shared/realdata`). A document over the cap is refused while its end is looked
/// for, so no more than the cap (plus one read chunk) of it is ever held, and it is never
/// parsed.
pub const MAX_DOCUMENT_BYTES: usize = 64 << 20;

/// The size caps of one read: [`Caps::DEFAULT`] in use, small ones in tests (so that no test
/// writes GiBs).
#[derive(Debug, Clone, Copy)]
pub(super) struct Caps {
    /// Bytes of one file.
    pub(super) file: u64,
    /// Bytes of one document.
    pub(super) document: usize,
}

impl Caps {
    /// The caps in use.
    pub(super) const DEFAULT: Caps = Caps {
        file: MAX_CATALOG_FILE_BYTES,
        document: MAX_DOCUMENT_BYTES,
    };
}

/// List the files of a catalog: the file itself, or every non-ignored file of a directory in
/// lexical order (`fs.WalkDir` order: entries sorted by name, depth first).
pub fn catalog_files(root: &Path) -> Result<CatalogFiles, Error> {
    let meta = std::fs::metadata(root).map_err(|source| Error::Io {
        path: root.to_path_buf(),
        source,
    })?;
    if !meta.is_dir() {
        let rel = root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        return Ok(CatalogFiles {
            root: root.to_path_buf(),
            single_file: true,
            files: vec![(root.to_path_buf(), rel)],
        });
    }
    let mut files = Vec::new();
    let walker = ignore::WalkBuilder::new(root)
        .standard_filters(false)
        .parents(false)
        .follow_links(false)
        .add_custom_ignore_filename(".indexignore")
        .sort_by_file_name(|a, b| a.cmp(b))
        .build();
    for entry in walker {
        let entry = entry.map_err(|source| Error::Walk {
            path: root.to_path_buf(),
            source,
        })?;
        if entry.depth() == 0 {
            continue;
        }
        if entry.file_type().is_some_and(|t| t.is_dir()) {
            continue;
        }
        if entry.file_name() == ".indexignore" {
            continue;
        }
        let link = entry.path_is_symlink();
        let path = entry.into_path();
        // A symlink is followed only when it stays inside the catalog (issue 14). Links are
        // not followed by the walk, so only the entry itself can be one.
        if link {
            crate::fsread::check_confined(&path, root).map_err(|source| Error::Io {
                path: path.clone(),
                source,
            })?;
        }
        let rel = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        files.push((path, rel));
    }
    Ok(CatalogFiles {
        root: root.to_path_buf(),
        single_file: false,
        files,
    })
}

/// Combine per-file digests into the catalog digest (see [`super::content_digest`]).
pub(crate) fn combine_digest(single_file: bool, files: &[(&str, [u8; 32])]) -> String {
    if single_file && files.len() == 1 {
        return format!("sha256:{}", hex::encode(files[0].1));
    }
    let mut h = Sha256::new();
    for (rel, digest) in files {
        h.update(hex::encode(digest).as_bytes());
        h.update(b"  ");
        h.update(rel.as_bytes());
        h.update(b"\n");
    }
    format!("sha256:{}", hex::encode(h.finalize()))
}

/// A reader that hashes everything read through it.
pub(super) struct HashingReader<R> {
    /// The reader hashed.
    pub(super) inner: R,
    /// `None`: the caller does not need the digest.
    pub(super) hasher: Option<Sha256>,
}

impl<R: Read> Read for HashingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(h) = &mut self.hasher {
            h.update(&buf[..n]);
        }
        Ok(n)
    }
}

/// Bytes of one read.
pub(super) const CHUNK: usize = 1 << 20;

/// Append up to [`CHUNK`] bytes; returns `true` at end of file.
pub(super) fn fill<R: Read>(reader: &mut R, buf: &mut Vec<u8>) -> std::io::Result<bool> {
    // `read_to_end` reads into the spare capacity without zeroing it first and grows the
    // buffer by what arrives, so a small file costs its size, not a zeroed chunk.
    let n = reader.by_ref().take(CHUNK as u64).read_to_end(buf)?;
    Ok(n < CHUNK)
}

/// The content digest of a catalog path without parsing it (see [`super::content_digest`]).
/// The files are hashed on every core, one file per task (a single-file catalog on one).
pub fn digest_only(path: &Path) -> Result<String, Error> {
    let files = catalog_files(path)?;
    digest_of(files.single_file, &files.files)
}

/// The digest of these files of a catalog (paths and their relative names, in the loader's
/// order), as [`combine_digest`] combines them; the files are hashed on every core, one file
/// per task.
pub(crate) fn digest_of(single_file: bool, files: &[(PathBuf, String)]) -> Result<String, Error> {
    use rayon::prelude::*;
    let hashed: Vec<Result<[u8; 32], Error>> =
        files.par_iter().map(|(file, _)| hash_file(file)).collect();
    let mut digests = Vec::with_capacity(files.len());
    for ((_, rel), digest) in files.iter().zip(hashed) {
        digests.push((rel.as_str(), digest?));
    }
    Ok(combine_digest(single_file, &digests))
}

/// The sha256 of one catalog file, read within the catalog file cap.
fn hash_file(file: &Path) -> Result<[u8; 32], Error> {
    let io_err = |source| Error::Io {
        path: file.to_path_buf(),
        source,
    };
    let mut f = crate::fsread::open_capped(file, MAX_CATALOG_FILE_BYTES, None).map_err(io_err)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(source) => return Err(io_err(source)),
        };
        h.update(&buf[..n]);
    }
    Ok(h.finalize().into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::PackageFilter;
    use crate::catalog::loader::load;
    use crate::catalog::read::walk;
    use crate::catalog::tests::written::{C, P, names, write};

    #[test]
    fn stray_readme_is_an_error() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "a/catalog.json", P);
        write(d.path(), "a/README.md", "# Catalog\nSome text.\n");
        let e = load(d.path(), &PackageFilter::All).unwrap_err();
        assert!(e.to_string().contains("README.md"), "{e}");
    }
    #[test]
    fn indexignore_skips_files_below_it() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "a/catalog.json", P);
        write(d.path(), "a/README.md", "# Catalog\n");
        write(d.path(), "a/sub/notes.txt", "notes\n");
        write(d.path(), "a/.indexignore", "# docs\n\n*.md\nsub/\n");
        write(d.path(), "b/README.md", "# not ignored here\n");
        let files = catalog_files(d.path()).unwrap();
        let rels: Vec<&str> = files.files.iter().map(|(_, r)| r.as_str()).collect();
        assert_eq!(rels, ["a/catalog.json", "b/README.md"]);
        write(d.path(), "b/.indexignore", "README.md\n");
        let dc = load(d.path(), &PackageFilter::All).unwrap();
        assert_eq!(dc.packages.len(), 1);
    }
    #[test]
    fn lexical_order_and_digest() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "b/x.json", C);
        write(d.path(), "a/x.json", P);
        write(d.path(), "a.json", r#"{"schema":"olm.package","name":"c"}"#);
        let files = catalog_files(d.path()).unwrap();
        let rels: Vec<&str> = files.files.iter().map(|(_, r)| r.as_str()).collect();
        // fs.WalkDir order: entries sorted by name ("a" < "a.json"), depth first.
        assert_eq!(rels, ["a/x.json", "a.json", "b/x.json"]);
        let dc = load(d.path(), &PackageFilter::All).unwrap();
        let h = |s: &str| hex::encode(Sha256::digest(s.as_bytes()));
        let lines = format!(
            "{}  a/x.json\n{}  a.json\n{}  b/x.json\n",
            h(P),
            h(r#"{"schema":"olm.package","name":"c"}"#),
            h(C)
        );
        assert_eq!(dc.digest, format!("sha256:{}", h(&lines)));
        assert_eq!(digest_only(d.path()).unwrap(), dc.digest);
        // A single file: the sha256 of its bytes.
        let one = load(&d.path().join("a/x.json"), &PackageFilter::All).unwrap();
        assert_eq!(one.digest, format!("sha256:{}", h(P)));
    }
    #[test]
    fn filter_keeps_only_requested_packages() {
        let d = tempfile::tempdir().unwrap();
        let other = r#"{"schema":"olm.package","name":"b"}
{"schema":"olm.channel","package":"b","name":"s"}
{"schema":"olm.bundle","package":"b","name":"b.v1"}"#;
        write(d.path(), "c.json", &format!("{P}\n{C}\n{other}\n"));
        let dc = load(d.path(), &PackageFilter::Only(vec!["b".into()])).unwrap();
        assert_eq!(
            names(&dc),
            [("b".into(), 3), ("b.v1".into(), 5), ("s".into(), 4)]
        );
        assert_eq!(dc.documents_read, 5);
        let mut seen = Vec::new();
        walk(d.path(), &PackageFilter::Only(vec!["a".into()]), |m| {
            seen.push(m.name);
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, ["a", "s"]);
    }
}
