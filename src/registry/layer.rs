//! Unpacking image layers safely: only `manifests/` and `metadata/` of a registry+v1 bundle.
//!
//! A layer is a tar stream, plain, gzip- or zstd-compressed (detected from its first bytes, so
//! a wrong `mediaType` does not matter). Every entry is checked before anything is written:
//!
//! * absolute paths and `..` components are refused anywhere in the layer;
//! * device files and FIFOs are refused anywhere in the layer;
//! * symbolic and hard links whose target leaves the image root are refused; a link inside
//!   `manifests/` or `metadata/` to a file unpacked before it is written as a copy of that file
//!   (no link is ever created on disk);
//! * entries outside `manifests/` and `metadata/` are skipped, and so is anything deeper than
//!   `manifests/NAME` or `metadata/NAME` (nothing reads it: a bundle's `manifests/` is flat), so
//!   no deep tree is ever written; a subdirectory directly in them is kept, empty, for the
//!   bundle loader to refuse or ignore;
//! * a name longer than 255 bytes (what Linux file systems allow) is refused as content;
//! * OCI whiteouts (`.wh.NAME`, `.wh..wh..opq`) remove what earlier layers wrote, at the top
//!   of the image too (`.wh.manifests` removes `manifests/`);
//! * the bytes read (decompressed) and the bytes written are bounded by [`Limits`], and so is
//!   the number of entries.
//!
//! Files are written with mode 0644 below a destination directory that the caller owns (a
//! staging directory inside the cache), so a hostile layer cannot write anywhere else.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Bounds on what one bundle image may unpack to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// At most this many bytes per blob as stored (compressed), and at most this many bytes of
    /// decompressed tar stream per layer, and at most this many bytes written in all.
    pub max_bytes: u64,
    /// At most this many tar entries per layer.
    pub max_entries: u64,
    /// At most this many layers.
    pub max_layers: usize,
    /// A layer of at most this many bytes (by its descriptor) is downloaded and checked in
    /// memory; a larger one goes through a temporary file.
    pub memory_layer_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 100 * 1024 * 1024,
            max_entries: 10_000,
            max_layers: 32,
            memory_layer_bytes: 8 * 1024 * 1024,
        }
    }
}

/// Why a layer was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LayerError {
    /// An entry names an absolute path.
    #[error("entry {path:?} has an absolute path")]
    AbsolutePath {
        /// The entry path as written.
        path: String,
    },
    /// An entry path goes up with `..`.
    #[error("entry {path:?} contains a \"..\" component")]
    ParentComponent {
        /// The entry path as written.
        path: String,
    },
    /// A path component is longer than a file name may be.
    #[error("entry {path:?} has a name of {len} bytes, longer than 255 bytes")]
    NameTooLong {
        /// The entry path (its start, when very long).
        path: String,
        /// The length of the longest component.
        len: usize,
    },
    /// A path is not UTF-8.
    #[error("entry path {path:?} is not UTF-8")]
    NotUtf8 {
        /// The path, lossily decoded.
        path: String,
    },
    /// A link points outside the image.
    #[error("entry {path:?} is a link to {target:?}, which is outside the image")]
    LinkEscapes {
        /// The link.
        path: String,
        /// Its target as written.
        target: String,
    },
    /// A link inside the bundle points to something that was not unpacked before it.
    #[error("entry {path:?} is a link to {target:?}, which is not a file unpacked before it")]
    DanglingLink {
        /// The link.
        path: String,
        /// Its target as written.
        target: String,
    },
    /// A device file or FIFO.
    #[error("entry {path:?} is a device file or FIFO")]
    DeviceFile {
        /// The entry path.
        path: String,
    },
    /// An entry type this tool does not unpack.
    #[error("entry {path:?} has unsupported tar entry type {kind:?}")]
    UnsupportedEntry {
        /// The entry path.
        path: String,
        /// The type byte.
        kind: char,
    },
    /// Too many bytes.
    #[error("the layer unpacks to more than {limit} bytes")]
    TooLarge {
        /// The limit.
        limit: u64,
    },
    /// Too many entries.
    #[error("the layer has more than {limit} entries")]
    TooManyEntries {
        /// The limit.
        limit: u64,
    },
    /// The stream is not a valid (compressed) tar.
    #[error("the layer is not a valid tar stream: {detail}")]
    Corrupt {
        /// What failed.
        detail: String,
    },
    /// Writing the unpacked files failed.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

impl LayerError {
    /// Whether this is a local I/O failure rather than bad content.
    pub fn is_io(&self) -> bool {
        matches!(self, LayerError::Write { .. })
    }
}

/// The top-level directories of a registry+v1 bundle that are unpacked.
const KEPT: [&str; 2] = ["manifests", "metadata"];

/// The deepest entry unpacked: `manifests/NAME`, `metadata/NAME`.
const MAX_DEPTH: usize = 2;

/// The longest file name Linux file systems take (`NAME_MAX`).
const NAME_MAX: usize = 255;

/// Counts bytes read and fails past a limit.
struct Bounded<R> {
    inner: R,
    read: u64,
    limit: u64,
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if self.read > self.limit {
            return Err(std::io::Error::other(BoundExceeded));
        }
        Ok(n)
    }
}

#[derive(Debug)]
struct BoundExceeded;

impl std::fmt::Display for BoundExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("size limit exceeded")
    }
}

impl std::error::Error for BoundExceeded {}

fn is_bound_exceeded(e: &std::io::Error) -> bool {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = e.get_ref().map(|e| e as _);
    while let Some(err) = cur {
        if err.is::<BoundExceeded>() {
            return true;
        }
        if let Some(io) = err.downcast_ref::<std::io::Error>()
            && io.get_ref().is_some_and(|i| i.is::<BoundExceeded>())
        {
            return true;
        }
        cur = err.source();
    }
    e.to_string().contains("size limit exceeded")
}

/// Bytes written so far across the layers of one image.
#[derive(Debug, Default)]
pub struct Budget {
    written: u64,
}

/// Unpack one layer (`reader` gives the blob as stored) into `dest`.
pub fn unpack_layer(
    reader: impl Read,
    dest: &Path,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<(), LayerError> {
    let mut buffered = BufReader::new(reader);
    let magic = buffered.fill_buf().map_err(|e| LayerError::Corrupt {
        detail: e.to_string(),
    })?;
    let decoded: Box<dyn Read> = if magic.starts_with(&[0x1f, 0x8b]) {
        Box::new(flate2::read::MultiGzDecoder::new(buffered))
    } else if magic.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        let decoder =
            ruzstd::decoding::StreamingDecoder::new(buffered).map_err(|e| LayerError::Corrupt {
                detail: format!("zstd: {e}"),
            })?;
        Box::new(decoder)
    } else {
        Box::new(buffered)
    };
    let bounded = Bounded {
        inner: decoded,
        read: 0,
        limit: limits.max_bytes,
    };
    let mut archive = tar::Archive::new(bounded);
    let corrupt = |e: std::io::Error| {
        if is_bound_exceeded(&e) {
            LayerError::TooLarge {
                limit: limits.max_bytes,
            }
        } else {
            LayerError::Corrupt {
                detail: e.to_string(),
            }
        }
    };
    let entries = archive.entries().map_err(corrupt)?;
    let mut count: u64 = 0;
    for entry in entries {
        let mut entry = entry.map_err(corrupt)?;
        count += 1;
        if count > limits.max_entries {
            return Err(LayerError::TooManyEntries {
                limit: limits.max_entries,
            });
        }
        let raw = entry.path_bytes().into_owned();
        let text = String::from_utf8(raw).map_err(|e| LayerError::NotUtf8 {
            path: String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })?;
        let components = clean_path(&text)?;
        let kind = entry.header().entry_type();
        if kind.is_character_special() || kind.is_block_special() || kind.is_fifo() {
            return Err(LayerError::DeviceFile { path: text });
        }
        let link_target = if kind.is_symlink() || kind.is_hard_link() {
            let target = entry
                .link_name_bytes()
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            // Symbolic links resolve from the link's directory, hard links from the root.
            let base: &[String] = if kind.is_symlink() {
                &components[..components.len().saturating_sub(1)]
            } else {
                &[]
            };
            Some((resolve_link(base, &target, &text)?, target))
        } else {
            None
        };
        let Some(top) = components.first() else {
            continue; // the root directory itself
        };
        let name = components.last().map(String::as_str).unwrap_or("");
        if components.len() == 1
            && let Some(hidden) = name.strip_prefix(".wh.")
        {
            // A whiteout at the top of the image: of `manifests/`, `metadata/`, or all.
            if hidden == ".wh..opq" || KEPT.contains(&hidden) {
                apply_whiteout(dest, &components, hidden)?;
            }
            continue;
        }
        if !KEPT.contains(&top.as_str()) {
            continue;
        }
        if components.len() > MAX_DEPTH {
            // Never read, so not written; its directory is, for the loader to see (a
            // subdirectory of manifests/ is not a registry+v1 bundle).
            let dir = join(dest, &components[..MAX_DEPTH]);
            if std::fs::symlink_metadata(&dir).is_err() {
                std::fs::create_dir_all(&dir).map_err(write_err(&dir))?;
            }
            continue;
        }
        if let Some(hidden) = name.strip_prefix(".wh.") {
            apply_whiteout(dest, &components, hidden)?;
            continue;
        }
        let path = join(dest, &components);
        if kind.is_dir() {
            std::fs::create_dir_all(&path).map_err(write_err(&path))?;
            continue;
        }
        if let Some((target, written)) = link_target {
            let from = join(dest, &target);
            let is_file = std::fs::symlink_metadata(&from).is_ok_and(|m| m.is_file());
            if !is_file || target.is_empty() {
                return Err(LayerError::DanglingLink {
                    path: text,
                    target: written,
                });
            }
            let bytes = std::fs::read(&from).map_err(write_err(&from))?;
            charge(budget, bytes.len() as u64, limits)?;
            write_file(&path, &mut bytes.as_slice())?;
            continue;
        }
        if !(kind.is_file() || kind.is_contiguous()) {
            if kind.is_pax_global_extensions() || kind.is_pax_local_extensions() {
                continue;
            }
            return Err(LayerError::UnsupportedEntry {
                path: text,
                kind: kind.as_byte() as char,
            });
        }
        let size = entry.header().size().map_err(corrupt)?;
        charge(budget, size, limits)?;
        let mut limited = (&mut entry).take(size);
        write_file(&path, &mut limited).map_err(|e| match e {
            LayerError::Write { source, .. } if is_bound_exceeded(&source) => {
                LayerError::TooLarge {
                    limit: limits.max_bytes,
                }
            }
            // An error without an OS code came from reading the layer, not from the disk.
            LayerError::Write { source, .. } if source.raw_os_error().is_none() => {
                LayerError::Corrupt {
                    detail: source.to_string(),
                }
            }
            other => other,
        })?;
    }
    Ok(())
}

fn charge(budget: &mut Budget, bytes: u64, limits: &Limits) -> Result<(), LayerError> {
    budget.written = budget.written.saturating_add(bytes);
    if budget.written > limits.max_bytes {
        return Err(LayerError::TooLarge {
            limit: limits.max_bytes,
        });
    }
    Ok(())
}

fn write_err(path: &Path) -> impl FnOnce(std::io::Error) -> LayerError + '_ {
    move |source| LayerError::Write {
        path: path.to_path_buf(),
        source,
    }
}

/// Write a regular file, replacing what an earlier layer wrote there.
fn write_file(path: &Path, data: &mut dyn Read) -> Result<(), LayerError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(write_err(parent))?;
    }
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path).map_err(write_err(path))?,
        Ok(_) => std::fs::remove_file(path).map_err(write_err(path))?,
        Err(_) => {}
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(write_err(path))?;
    std::io::copy(data, &mut file).map_err(write_err(path))?;
    Ok(())
}

/// Split an entry path into components, refusing absolute paths and `..`.
fn clean_path(text: &str) -> Result<Vec<String>, LayerError> {
    if text.starts_with('/') || text.starts_with('\\') {
        return Err(LayerError::AbsolutePath {
            path: text.to_string(),
        });
    }
    let mut out = Vec::new();
    for part in text.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                return Err(LayerError::ParentComponent {
                    path: text.to_string(),
                });
            }
            p if p.contains('\0') || p.contains('\\') => {
                return Err(LayerError::ParentComponent {
                    path: text.to_string(),
                });
            }
            p if p.len() > NAME_MAX => {
                return Err(LayerError::NameTooLong {
                    path: text.chars().take(120).collect::<String>() + "…",
                    len: p.len(),
                });
            }
            p => out.push(p.to_string()),
        }
    }
    Ok(out)
}

/// Resolve a link target against `base` (components), refusing targets outside the root.
fn resolve_link(base: &[String], target: &str, path: &str) -> Result<Vec<String>, LayerError> {
    let escapes = || LayerError::LinkEscapes {
        path: path.to_string(),
        target: target.to_string(),
    };
    if target.starts_with('/') {
        return Err(escapes());
    }
    let mut out: Vec<String> = base.to_vec();
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if out.pop().is_none() {
                    return Err(escapes());
                }
            }
            p => out.push(p.to_string()),
        }
    }
    Ok(out)
}

fn join(dest: &Path, components: &[String]) -> PathBuf {
    let mut p = dest.to_path_buf();
    for c in components {
        p.push(c);
    }
    p
}

fn apply_whiteout(dest: &Path, components: &[String], hidden: &str) -> Result<(), LayerError> {
    let parent = join(dest, &components[..components.len() - 1]);
    if hidden == ".wh..opq" {
        // Opaque directory: drop everything earlier layers put in it.
        if let Ok(entries) = std::fs::read_dir(&parent) {
            for e in entries.flatten() {
                let p = e.path();
                let r = if p.is_dir() {
                    std::fs::remove_dir_all(&p)
                } else {
                    std::fs::remove_file(&p)
                };
                r.map_err(write_err(&p))?;
            }
        }
        return Ok(());
    }
    if hidden.is_empty() || hidden == "." || hidden == ".." {
        return Ok(());
    }
    let target = parent.join(hidden);
    match std::fs::symlink_metadata(&target) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(&target).map_err(write_err(&target)),
        Ok(_) => std::fs::remove_file(&target).map_err(write_err(&target)),
        Err(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tar_with(entries: &[(&str, tar::EntryType, &[u8], Option<&str>)]) -> Vec<u8> {
        let mut b = tar::Builder::new(Vec::new());
        for (path, kind, data, link) in entries {
            let mut h = tar::Header::new_gnu();
            h.set_entry_type(*kind);
            h.set_size(data.len() as u64);
            h.set_mode(0o644);
            // Write the raw name so hostile paths reach the reader unchanged.
            let name = path.as_bytes();
            h.as_gnu_mut().unwrap().name[..name.len()].copy_from_slice(name);
            if let Some(l) = link {
                h.set_link_name(l).unwrap();
            }
            h.set_cksum();
            b.append(&h, *data).unwrap();
        }
        b.into_inner().unwrap()
    }

    fn unpack(bytes: &[u8]) -> (tempfile::TempDir, Result<(), LayerError>) {
        let d = tempfile::tempdir().unwrap();
        let dest = d.path().join("out");
        std::fs::create_dir(&dest).unwrap();
        let r = unpack_layer(bytes, &dest, &Limits::default(), &mut Budget::default());
        (d, r)
    }

    use tar::EntryType as T;

    #[test]
    fn keeps_manifests_and_metadata_only() {
        let t = tar_with(&[
            ("manifests/a.yaml", T::Regular, b"a", None),
            ("metadata/annotations.yaml", T::Regular, b"m", None),
            ("etc/passwd", T::Regular, b"x", None),
        ]);
        let (d, r) = unpack(&t);
        r.unwrap();
        assert!(d.path().join("out/manifests/a.yaml").is_file());
        assert!(d.path().join("out/metadata/annotations.yaml").is_file());
        assert!(!d.path().join("out/etc").exists());
    }

    #[test]
    fn refuses_traversal_absolute_devices_and_escaping_links() {
        for (entries, want) in [
            (
                vec![("manifests/../../x", T::Regular, &b"x"[..], None)],
                "..",
            ),
            (
                vec![("/manifests/x", T::Regular, &b"x"[..], None)],
                "absolute",
            ),
            (vec![("manifests/null", T::Char, &b""[..], None)], "device"),
            (
                vec![(
                    "manifests/l",
                    T::Symlink,
                    &b""[..],
                    Some("../../etc/passwd"),
                )],
                "outside",
            ),
            (
                vec![("manifests/l", T::Symlink, &b""[..], Some("/etc/passwd"))],
                "outside",
            ),
            (
                vec![("manifests/h", T::Link, &b""[..], Some("../etc/passwd"))],
                "outside",
            ),
        ] {
            let (d, r) = unpack(&tar_with(&entries));
            let e = r.unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
            assert!(!d.path().join("x").exists());
        }
    }

    #[test]
    fn links_inside_become_copies_and_whiteouts_remove() {
        let t = tar_with(&[
            ("manifests/a.yaml", T::Regular, b"a", None),
            ("manifests/b.yaml", T::Symlink, b"", Some("a.yaml")),
            ("metadata/x", T::Regular, b"x", None),
            ("metadata/.wh.x", T::Regular, b"", None),
        ]);
        let (d, r) = unpack(&t);
        r.unwrap();
        let b = d.path().join("out/manifests/b.yaml");
        assert!(
            !std::fs::symlink_metadata(&b)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&b).unwrap(), b"a");
        assert!(!d.path().join("out/metadata/x").exists());
    }

    #[test]
    fn top_level_whiteouts_deep_trees_and_long_names() {
        // `.wh.manifests` in a later layer removes what an earlier one wrote.
        let d = tempfile::tempdir().unwrap();
        let mut budget = Budget::default();
        let first = tar_with(&[("manifests/csv.yaml", T::Regular, b"kind: x", None)]);
        unpack_layer(&first[..], d.path(), &Limits::default(), &mut budget).unwrap();
        let second = tar_with(&[(".wh.manifests", T::Regular, b"", None)]);
        unpack_layer(&second[..], d.path(), &Limits::default(), &mut budget).unwrap();
        assert!(!d.path().join("manifests").exists());
        // Deeper than manifests/NAME: not written.
        let (d, r) = unpack(&tar_with(&[
            ("metadata/a/b/c.yaml", T::Regular, b"x", None),
            ("manifests/sub", T::Directory, b"", None),
        ]));
        r.unwrap();
        assert!(d.path().join("out/metadata/a").is_dir());
        assert!(!d.path().join("out/metadata/a/b").exists());
        assert!(d.path().join("out/manifests/sub").is_dir());
        // A 256-byte name is refused as content, not an I/O error.
        let mut b = tar::Builder::new(Vec::new());
        let mut h = tar::Header::new_gnu();
        h.set_size(1);
        h.set_entry_type(T::Regular);
        b.append_data(&mut h, format!("manifests/{}", "n".repeat(256)), &b"x"[..])
            .unwrap();
        let (_d, r) = unpack(&b.into_inner().unwrap());
        let e = r.unwrap_err();
        assert!(matches!(e, LayerError::NameTooLong { len: 256, .. }), "{e}");
        assert!(!e.is_io());
    }

    #[test]
    fn bombs_are_bounded() {
        use std::io::Write as _;
        let big = vec![0u8; 3 * 1024 * 1024];
        let t = tar_with(&[("manifests/big", T::Regular, &big, None)]);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&t).unwrap();
        let gz = gz.finish().unwrap();
        let d = tempfile::tempdir().unwrap();
        let limits = Limits {
            max_bytes: 1024 * 1024,
            ..Limits::default()
        };
        let e = unpack_layer(&gz[..], d.path(), &limits, &mut Budget::default()).unwrap_err();
        assert!(matches!(e, LayerError::TooLarge { .. }), "{e}");
    }

    #[test]
    fn zstd_and_plain_layers_unpack() {
        let t = tar_with(&[("manifests/a.yaml", T::Regular, b"zstd", None)]);
        let z =
            ruzstd::encoding::compress_to_vec(&t[..], ruzstd::encoding::CompressionLevel::Fastest);
        assert_eq!(&z[..4], &[0x28, 0xb5, 0x2f, 0xfd]);
        for bytes in [z, t] {
            let (d, r) = unpack(&bytes);
            r.unwrap();
            assert_eq!(
                std::fs::read(d.path().join("out/manifests/a.yaml")).unwrap(),
                b"zstd"
            );
        }
    }

    #[test]
    fn garbage_is_corrupt_not_a_panic() {
        let (_d, r) = unpack(&[0x1f, 0x8b, 1, 2, 3]);
        assert!(r.is_err());
        let (_d, r) = unpack(&[0x28, 0xb5, 0x2f, 0xfd, 0, 0]);
        assert!(r.is_err());
        let (_d, r) = unpack(b"");
        r.unwrap();
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Arbitrary bytes, and valid layers with bytes flipped, never panic and never write
        /// outside the destination.
        #[test]
        fn no_panic_on_any_input(noise in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..2048),
                                 flips in proptest::collection::vec((0usize..4096, proptest::prelude::any::<u8>()), 0..8)) {
            let (_d, _) = unpack(&noise);
            let mut t = tar_with(&[
                ("manifests/a.yaml", T::Regular, b"kind: A", None),
                ("manifests/l", T::Symlink, b"", Some("a.yaml")),
            ]);
            for (i, b) in flips {
                let n = t.len();
                t[i % n] ^= b;
            }
            let d = tempfile::tempdir().unwrap();
            let dest = d.path().join("out");
            std::fs::create_dir(&dest).unwrap();
            let _ = unpack_layer(&t[..], &dest, &Limits::default(), &mut Budget::default());
            for e in walkdir::WalkDir::new(d.path()).min_depth(1) {
                let e = e.unwrap();
                proptest::prop_assert!(e.path().starts_with(&dest));
                proptest::prop_assert!(!e.file_type().is_symlink());
            }
        }
    }
}
