//! Documents left in their files: with [`super::loader::LoadOptions::lazy_documents`], small
//! channels and bundles are decoded and checked once, then only their place is kept
//! ([`DocRef`], 32 bytes, in [`LazyDocs`]); `LazyDocs::decode` reads them back (nearby ones in
//! one read) and decodes them again, package by package, for `catalog validate`, so a million
//! small bundles cost their place, not 650 bytes decoded each (a YAML bundle with its csv
//! metadata checked and dropped, about 3 KB). A YAML document is read again through the fast
//! reader without the lines of its csv metadata ([`YamlCut`]), which are most of it.
//!
//! Also `Compact`, which gives back what decoding over-allocated, for every typed document
//! kept (read first or read back).

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;

use super::Error;
use super::fbc::{
    Bundle, Channel, CsvCheck, Deprecation, DocPlace, Located, Package, decoding_bundle,
};
use super::model::Origin;

/// Largest `olm.channel` or `olm.bundle` document that a load with
/// [`super::loader::LoadOptions::lazy_documents`] leaves in its file. Small documents cost several times
/// their size once decoded (a 216-byte bundle took 488 bytes, its channel entry 160 more);
/// larger ones are mostly embedded manifests, which stay in the file anyway
/// ([`super::loader::LoadOptions::lazy_bundle_objects`]) and are not worth decoding twice.
pub const LAZY_DOCUMENT_BYTES: usize = 64 << 10;

/// Where a document left in its file is (see [`super::loader::LoadOptions::lazy_documents`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DocRef {
    /// The file: an index into [`LazyDocs::files`].
    pub file: u32,
    /// Its `package`: an index into [`LazyDocs::packages`].
    pub package: u32,
    /// The line it starts on.
    pub line: u32,
    /// Its length in bytes.
    pub len: u32,
    /// The file offset of its first byte.
    pub offset: u64,
    /// `Some` for a document of a YAML file, which the fast reader read.
    pub yaml: Option<YamlCut>,
}

/// How a document of a YAML file is read again: through the fast reader, with the lines of
/// its csv metadata mapping (elided when it was first read: only checked to be a mapping)
/// replaced by one short line, so that it costs the rest of the bundle, not its metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct YamlCut {
    /// Where the lines start, relative to the document (which is at most
    /// [`LAZY_DOCUMENT_BYTES`] long).
    pub start: u16,
    /// Their length (0: nothing left out).
    pub len: u16,
    /// The column of the mapping's keys.
    pub indent: u16,
}

impl YamlCut {
    /// Nothing left out.
    pub const NONE: YamlCut = YamlCut {
        start: 0,
        len: 0,
        indent: 0,
    };
}

/// A channel or bundle as a load with [`super::loader::LoadOptions::lazy_documents`] keeps it.
#[derive(Debug)]
pub enum Kept<T> {
    /// Decoded: a large document, or one of a YAML file that the fast reader did not read.
    Decoded(Box<Located<T>>),
    /// Left in its file.
    InFile(DocRef),
}

/// The channels and bundles of a load with [`super::loader::LoadOptions::lazy_documents`],
/// each list in load order: small ones as their place only, the others decoded.
#[derive(Debug, Default)]
pub struct LazyDocs {
    /// `olm.channel` blobs.
    pub channels: Vec<Kept<Channel>>,
    /// `olm.bundle` blobs.
    pub bundles: Vec<Kept<Bundle>>,
    /// The package names [`DocRef::package`] indexes.
    pub packages: Vec<String>,
    /// The files [`DocRef::file`] indexes.
    pub files: Vec<Arc<Path>>,
    /// Whether bundle object values stay in the file when bundles are decoded again
    /// ([`super::loader::LoadOptions::lazy_bundle_objects`]).
    pub lazy_bundle_objects: bool,
    /// Whether csv metadata values are kept when bundles are decoded again
    /// ([`super::loader::LoadOptions::keep_csv_metadata`]); without it they are checked as they are read.
    pub keep_csv_metadata: bool,
}

/// What [`LazyDocs`] keeps: a channel or a bundle.
pub(crate) trait LazyDoc: for<'a> Deserialize<'a> + Compact {
    /// Its `package`.
    fn package(&self) -> &str;
    /// Whether its bundle object values may stay in the file.
    const BUNDLE: bool;
    /// Its list in [`LazyDocs`].
    fn lazy(docs: &mut LazyDocs) -> &mut Vec<Kept<Self>>;
}

impl LazyDoc for Channel {
    fn package(&self) -> &str {
        &self.package
    }
    const BUNDLE: bool = false;
    fn lazy(docs: &mut LazyDocs) -> &mut Vec<Kept<Self>> {
        &mut docs.channels
    }
}

impl LazyDoc for Bundle {
    fn package(&self) -> &str {
        &self.package
    }
    const BUNDLE: bool = true;
    fn lazy(docs: &mut LazyDocs) -> &mut Vec<Kept<Self>> {
        &mut docs.bundles
    }
}

impl LazyDocs {
    /// Documents left in a file further apart than this are read separately.
    const GAP: u64 = 64 << 10;
    /// The most read back at once.
    const SPAN: u64 = 4 << 20;

    /// The file of a kept document.
    pub(crate) fn file_of<'a, T: LazyDoc>(&'a self, doc: &'a Kept<T>) -> Option<&'a Arc<Path>> {
        match doc {
            Kept::Decoded(d) => Some(&d.origin.file),
            Kept::InFile(r) => self.files.get(r.file as usize),
        }
    }

    /// The package of a kept document.
    pub(crate) fn package_of<'a, T: LazyDoc>(&'a self, doc: &'a Kept<T>) -> &'a str {
        match doc {
            Kept::Decoded(d) => d.item.package(),
            Kept::InFile(r) => self
                .packages
                .get(r.package as usize)
                .map_or("", String::as_str),
        }
    }

    /// Decode kept documents, in order: those left in their file are read back (nearby ones
    /// in one read) and decoded as they were when first read. Fails when a file cannot be
    /// read again or no longer holds the same document.
    pub(crate) fn decode<T: LazyDoc>(&self, docs: Vec<Kept<T>>) -> Result<Vec<Located<T>>, Error> {
        let mut out = Vec::with_capacity(docs.len());
        let mut run: Vec<DocRef> = Vec::new();
        for doc in docs {
            match doc {
                Kept::Decoded(d) => {
                    self.read_back(&mut run, &mut out)?;
                    out.push(*d);
                }
                Kept::InFile(r) => {
                    let joins = match (run.first(), run.last()) {
                        (Some(first), Some(last)) => {
                            let end = last.offset + u64::from(last.len);
                            last.file == r.file
                                && r.offset >= end
                                && r.offset - end <= Self::GAP
                                && r.offset + u64::from(r.len) - first.offset <= Self::SPAN
                        }
                        _ => true,
                    };
                    if !joins {
                        self.read_back(&mut run, &mut out)?;
                    }
                    run.push(r);
                }
            }
        }
        self.read_back(&mut run, &mut out)?;
        Ok(out)
    }

    /// Read back and decode a run of nearby documents of one file (emptying `run`).
    fn read_back<T: LazyDoc>(
        &self,
        run: &mut Vec<DocRef>,
        out: &mut Vec<Located<T>>,
    ) -> Result<(), Error> {
        let (Some(first), Some(last)) = (run.first().copied(), run.last().copied()) else {
            return Ok(());
        };
        let Some(file) = self.files.get(first.file as usize) else {
            return Err(changed(Path::new("")));
        };
        let io_err = |source| Error::Io {
            path: file.to_path_buf(),
            source,
        };
        let mut f = crate::fsread::open(file, None).map_err(io_err)?;
        let mut keep = |r: &DocRef, item: Option<T>| match item {
            Some(item)
                if Some(item.package())
                    == self.packages.get(r.package as usize).map(String::as_str) =>
            {
                out.push(kept(
                    item,
                    Origin {
                        file: file.clone(),
                        line: r.line as usize,
                    },
                ));
                Ok(())
            }
            _ => Err(changed(file)),
        };
        if first.yaml.is_some() {
            // The documents of a YAML file: each read apart, without its csv metadata lines.
            let (mut text, mut json) = (Vec::new(), Vec::new());
            for r in run.drain(..) {
                let cut = r.yaml.unwrap_or(YamlCut::NONE);
                // A document left in its file is at most `LAZY_DOCUMENT_BYTES` long.
                let len = u16::try_from(r.len).map_err(|_| changed(file))?;
                text.clear();
                if cut.len == 0 {
                    read_piece(&mut f, r.offset, len, &mut text).map_err(io_err)?;
                } else {
                    let end = cut
                        .start
                        .checked_add(cut.len)
                        .ok_or_else(|| changed(file))?;
                    let tail = len.checked_sub(end).ok_or_else(|| changed(file))?;
                    read_piece(&mut f, r.offset, cut.start, &mut text).map_err(io_err)?;
                    text.extend(std::iter::repeat_n(b' ', usize::from(cut.indent)));
                    text.extend_from_slice(b"x: 0\n");
                    read_piece(&mut f, r.offset + u64::from(end), tail, &mut text)
                        .map_err(io_err)?;
                }
                keep(&r, yaml_again(&text, &mut json))?;
            }
            return Ok(());
        }
        let start = first.offset;
        let mut bytes = Vec::new();
        read_at(
            &mut f,
            start,
            last.offset + u64::from(last.len) - start,
            &mut bytes,
        )
        .map_err(io_err)?;
        for r in run.drain(..) {
            let at = (r.offset - start) as usize;
            let Some(doc) = bytes.get(at..at + r.len as usize) else {
                return Err(changed(file));
            };
            let place =
                (T::BUNDLE && self.lazy_bundle_objects).then(|| DocPlace::of(doc, r.offset));
            // Checked now, as a bundle read once is: the first read only kept its place.
            let csv = if T::BUNDLE && !self.keep_csv_metadata {
                CsvCheck::Check
            } else {
                CsvCheck::Keep
            };
            keep(
                &r,
                decoding_bundle(place, csv, || serde_json::from_slice::<T>(doc)).ok(),
            )?;
        }
        Ok(())
    }

    /// Append another file's documents (its indexes renumbered).
    pub(super) fn append(
        &mut self,
        other: LazyDocs,
        names: &mut std::collections::HashMap<String, u32>,
    ) {
        let files = self.files.len() as u32;
        let renumber: Vec<u32> = other
            .packages
            .into_iter()
            .map(|p| intern(&mut self.packages, names, &p))
            .collect();
        let fix = |r: DocRef| DocRef {
            file: r.file + files,
            package: renumber
                .get(r.package as usize)
                .copied()
                .unwrap_or(u32::MAX),
            ..r
        };
        self.channels
            .extend(other.channels.into_iter().map(|d| match d {
                Kept::InFile(r) => Kept::InFile(fix(r)),
                d => d,
            }));
        self.bundles
            .extend(other.bundles.into_iter().map(|d| match d {
                Kept::InFile(r) => Kept::InFile(fix(r)),
                d => d,
            }));
        self.files.extend(other.files);
        self.lazy_bundle_objects |= other.lazy_bundle_objects;
        self.keep_csv_metadata |= other.keep_csv_metadata;
    }
}

/// Append the `len` bytes at `offset` of `f` to `out` (read into its spare room, not zeroed
/// first).
fn read_at(f: &mut std::fs::File, offset: u64, len: u64, out: &mut Vec<u8>) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    f.seek(SeekFrom::Start(offset))?;
    out.reserve(usize::try_from(len).unwrap_or(usize::MAX));
    if f.take(len).read_to_end(out)? as u64 != len {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    Ok(())
}

/// Append the `len` bytes at `offset` of `f` to `out`: a small piece, in one positioned read
/// where there is one.
fn read_piece(
    f: &mut std::fs::File,
    offset: u64,
    len: u16,
    out: &mut Vec<u8>,
) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        let at = out.len();
        out.resize(at + usize::from(len), 0);
        f.read_exact_at(&mut out[at..], offset)
    }
    #[cfg(not(unix))]
    read_at(f, offset, u64::from(len), out)
}

/// Decode again a channel or bundle of a YAML file, as it was decoded when first read: the
/// fast reader's text of the document (with its csv metadata lines replaced by `x: 0`, a
/// mapping it elides as it elided the whole one), decoded as a bundle whose csv metadata is
/// only checked. `None` if the text is no longer such a document.
fn yaml_again<T: LazyDoc>(text: &[u8], json: &mut Vec<u8>) -> Option<T> {
    let text = std::str::from_utf8(text).ok()?;
    super::fastyaml::to_json_eliding(text, json)?;
    let csv = if T::BUNDLE {
        CsvCheck::Written
    } else {
        CsvCheck::Keep
    };
    decoding_bundle(None, csv, || serde_json::from_slice::<T>(json)).ok()
}

/// The index of `name` in `names` (added when new), through the lookup `index`.
pub(super) fn intern(
    names: &mut Vec<String>,
    index: &mut std::collections::HashMap<String, u32>,
    name: &str,
) -> u32 {
    if let Some(&i) = index.get(name) {
        return i;
    }
    let i = names.len() as u32;
    names.push(name.to_owned());
    index.insert(name.to_owned(), i);
    i
}

/// A document read back is not what was read first.
fn changed(path: &Path) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source: std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the catalog file changed since it was loaded",
        ),
    }
}

/// Gives back what decoding over-allocated: serde grows a list from an unknown length (a
/// JSON array) one item at a time, so a list of one item holds room for four (a bundle's one
/// property cost 240 bytes instead of 64). Run on every typed document as it is kept.
pub(crate) trait Compact {
    /// Shrink the lists to their lengths.
    fn compact(&mut self);
}

impl Compact for Package {
    fn compact(&mut self) {
        self.properties.shrink_to_fit();
    }
}

impl Compact for Channel {
    fn compact(&mut self) {
        self.entries.shrink_to_fit();
        for e in &mut self.entries {
            e.skips.shrink_to_fit();
        }
        self.properties.shrink_to_fit();
    }
}

impl Compact for Bundle {
    fn compact(&mut self) {
        self.properties.shrink_to_fit();
        self.related_images.shrink_to_fit();
    }
}

impl Compact for Deprecation {
    fn compact(&mut self) {
        self.entries.shrink_to_fit();
    }
}

/// A decoded item, compacted, with its origin.
pub(super) fn kept<T: Compact>(mut item: T, origin: Origin) -> Located<T> {
    item.compact();
    Located { item, origin }
}

#[cfg(test)]
mod tests {
    //! [`LoadOptions::lazy_documents`]: small channels and bundles are left in their files
    //! and decode again to what an eager load gives.
    use super::*;
    use crate::catalog::PackageFilter;
    use crate::catalog::loader::{DeclarativeConfig, LoadOptions, load_with};
    use crate::catalog::tests::written::{C, P, write};

    fn options(lazy_documents: bool) -> LoadOptions {
        LoadOptions {
            digest: false,
            lazy_bundle_objects: true,
            lazy_documents,
            keep_csv_metadata: true,
        }
    }

    /// Name, package, file name and line of each document, in load order.
    fn listed<T: LazyDoc>(docs: &[Located<T>], name: impl Fn(&T) -> &str) -> Vec<String> {
        docs.iter()
            .map(|d| {
                let file = d.origin.file.file_name().unwrap().to_string_lossy();
                format!(
                    "{} {} {file}:{}",
                    name(&d.item),
                    d.item.package(),
                    d.origin.line
                )
            })
            .collect()
    }

    /// Decodes what a lazy load left in its files and asserts that it is what the eager
    /// load read: the same bundles and channels, in the same order, at the same places,
    /// with the same properties. Returns the decoded bundles.
    fn decoded_as_eager(
        lazy: &mut DeclarativeConfig,
        eager: &DeclarativeConfig,
    ) -> Vec<Located<Bundle>> {
        let taken = std::mem::take(&mut lazy.lazy.bundles);
        let bundles = lazy.lazy.decode(taken).unwrap();
        let taken = std::mem::take(&mut lazy.lazy.channels);
        let channels = lazy.lazy.decode(taken).unwrap();
        assert_eq!(
            listed(&bundles, |b| &b.name),
            listed(&eager.bundles, |b| &b.name)
        );
        assert_eq!(
            listed(&channels, |c| &c.name),
            listed(&eager.channels, |c| &c.name)
        );
        for (a, b) in bundles.iter().zip(&eager.bundles) {
            assert_eq!(a.item.properties, b.item.properties, "{}", a.item.name);
        }
        bundles
    }

    #[test]
    fn documents_left_in_their_files_decode_as_an_eager_load_reads_them() {
        let d = tempfile::tempdir().unwrap();
        let big = "x".repeat(LAZY_DOCUMENT_BYTES);
        let bundle = |p: &str, n: &str| {
            format!(
                r#"{{"schema":"olm.bundle","package":"{p}","name":"{n}","properties":[{{"type":"olm.package","value":{{"packageName":"{p}","version":"1.0.0"}}}}]}}"#
            )
        };
        // Two JSON files (their packages and files renumbered when merged), a bundle too
        // large to leave in its file between small ones, and a YAML file (decoded).
        write(
            d.path(),
            "a/catalog.json",
            &format!(
                "{P}\n{C}\n{}\n{}\n{}\n",
                bundle("a", "a.v1"),
                bundle("a", "a.v2").replace(
                    r#""properties""#,
                    &format!(r#""description":"{big}","properties""#)
                ),
                bundle("a", "a.v3"),
            ),
        );
        write(
            d.path(),
            "b/catalog.json",
            &format!(
                "{}\n{}\n{}\n",
                r#"{"schema":"olm.package","name":"b","defaultChannel":"s"}"#,
                r#"{"schema":"olm.channel","package":"b","name":"s","entries":[{"name":"b.v1"}]}"#,
                bundle("b", "b.v1"),
            ),
        );
        write(
            d.path(),
            "c/catalog.yaml",
            "schema: olm.package\nname: c\n---\nschema: olm.channel\npackage: c\nname: s\nentries: []\n---\nschema: olm.bundle\npackage: c\nname: c.v1\n",
        );
        let eager = load_with(d.path(), &PackageFilter::All, &options(false)).unwrap();
        let mut lazy = load_with(d.path(), &PackageFilter::All, &options(true)).unwrap();
        assert!(lazy.channels.is_empty() && lazy.bundles.is_empty());
        let in_file = lazy
            .lazy
            .bundles
            .iter()
            .filter(|b| matches!(b, Kept::InFile(_)))
            .count();
        assert_eq!((in_file, lazy.lazy.bundles.len()), (3, 5));
        assert_eq!(lazy.lazy.files.len(), 3);
        let packages: Vec<&str> = lazy
            .lazy
            .bundles
            .iter()
            .map(|b| lazy.lazy.package_of(b))
            .collect();
        assert_eq!(packages, ["a", "a", "a", "b", "c"]);
        decoded_as_eager(&mut lazy, &eager);
        assert_eq!(lazy.packages.len(), eager.packages.len());
    }

    /// A load for validation alone: csv metadata checked and not kept.
    fn checking(lazy_documents: bool) -> LoadOptions {
        LoadOptions {
            keep_csv_metadata: false,
            ..options(lazy_documents)
        }
    }

    #[test]
    fn yaml_documents_left_in_their_files_decode_as_an_eager_load_reads_them() {
        let d = tempfile::tempdir().unwrap();
        let bundle = |n: &str, csv: &str| {
            format!(
                "schema: olm.bundle\npackage: p\nname: {n}\nimage: quay.io/p:{n}\nproperties:\n- type: olm.package\n  value:\n    packageName: p\n    version: 1.0.0\n{csv}relatedImages:\n- image: quay.io/p:{n}\n  name: ''\n"
            )
        };
        let csv = "- type: olm.csv.metadata\n  value:\n    description: |\n      Two\n\n      lines\n    # a comment\n    keywords:\n    - a\n\n";
        let docs = [
            "schema: olm.package\nname: p\ndefaultChannel: s\n".to_string(),
            "schema: olm.channel\npackage: p\nname: s\nentries:\n- name: p.v1\n".to_string(),
            bundle("p.v1", csv),
            // No csv metadata; two of them (nothing left out when read again); keys in
            // another case (written whole); not read by the fast reader (kept decoded).
            bundle("p.v2", ""),
            bundle("p.v3", &format!("{csv}{csv}")),
            bundle("p.v4", &csv.replace("  value:", "  Value:")),
            bundle("p.v5", "- type: olm.csv.metadata\n  value: &a\n    a: 1\n"),
            // The csv metadata last, at the end of the file without a line break.
            format!(
                "{}{}",
                bundle("p.v6", "")
                    .replace("relatedImages:\n- image: quay.io/p:p.v6\n  name: ''\n", ""),
                "- type: olm.csv.metadata\n  value:\n    a: 1"
            ),
        ];
        write(d.path(), "p/catalog.yaml", &docs.join("---\n"));
        let eager = load_with(d.path(), &PackageFilter::All, &checking(false)).unwrap();
        // The last document ends in its csv metadata, not in relatedImages.
        let last = &eager.bundles[5].item;
        assert_eq!((last.name.as_str(), last.related_images.len()), ("p.v6", 0));
        let mut lazy = load_with(d.path(), &PackageFilter::All, &checking(true)).unwrap();
        let in_file: Vec<bool> = lazy
            .lazy
            .bundles
            .iter()
            .map(|b| matches!(b, Kept::InFile(DocRef { yaml: Some(_), .. })))
            .collect();
        assert_eq!(in_file, [true, true, true, true, false, true]);
        // The first is read again without its csv metadata lines.
        assert!(matches!(
            lazy.lazy.bundles[0],
            Kept::InFile(DocRef {
                yaml: Some(YamlCut { len: 60.., .. }),
                ..
            })
        ));
        let bundles = decoded_as_eager(&mut lazy, &eager);
        for (a, b) in bundles.iter().zip(&eager.bundles) {
            assert_eq!(a.item.related_images.len(), b.item.related_images.len());
            assert_eq!(a.item.image, b.item.image);
        }
        // A load that keeps csv metadata reads no YAML document twice.
        let keeping = load_with(d.path(), &PackageFilter::All, &options(true)).unwrap();
        assert!(
            keeping
                .lazy
                .bundles
                .iter()
                .all(|b| matches!(b, Kept::Decoded(_)))
        );
        // A document changed since: an error when read back.
        write(
            d.path(),
            "p/catalog.yaml",
            &docs
                .join("---\n")
                .replace("package: p\nname: p.v1", "package: z\nname: p.v1"),
        );
        let mut lazy = load_with(d.path(), &PackageFilter::All, &checking(true)).unwrap();
        write(d.path(), "p/catalog.yaml", &docs.join("---\n"));
        let taken = std::mem::take(&mut lazy.lazy.bundles);
        let e = lazy.lazy.decode(taken).unwrap_err();
        assert!(e.to_string().contains("catalog.yaml"), "{e}");
    }

    #[test]
    fn a_place_is_small() {
        // What a million small bundles cost in `catalog validate` (issue 26 item 9), and
        // an origin's share of every object (the file's path is shared, not copied).
        assert_eq!(std::mem::size_of::<Kept<Bundle>>(), 32);
        assert_eq!(std::mem::size_of::<Origin>(), 24);
    }

    #[test]
    fn a_file_changed_since_the_load_is_an_error_when_read_back() {
        let d = tempfile::tempdir().unwrap();
        let b = r#"{"schema":"olm.bundle","package":"a","name":"a.v1"}"#;
        write(d.path(), "c.json", &format!("{P}\n{C}\n{b}\n"));
        let mut dc = load_with(d.path(), &PackageFilter::All, &options(true)).unwrap();
        // The same length, another package.
        write(
            d.path(),
            "c.json",
            &format!(
                "{P}\n{C}\n{}\n",
                b.replace(r#""a","name""#, r#""z","name""#)
            ),
        );
        let taken = std::mem::take(&mut dc.lazy.bundles);
        let e = dc.lazy.decode(taken).unwrap_err();
        assert!(e.to_string().contains("c.json"), "{e}");
        assert!(
            std::error::Error::source(&e)
                .unwrap()
                .to_string()
                .contains("changed since it was loaded"),
            "{e}"
        );
    }
}
