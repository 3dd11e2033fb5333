//! Loading a catalog into typed lists (operator-registry `alpha/declcfg/load.go`): [`load`]
//! and [`load_with`] read every file of a catalog (in parallel per file, through
//! [`super::read`]) into a [`DeclarativeConfig`], decoding only the documents a
//! [`PackageFilter`] keeps, straight from the read buffer (no copy of a document's text for the
//! four known schemas); documents of other schemas are kept as [`Meta`]s.
//!
//! Large catalogs (hundreds of MB, mostly base64 `olm.bundle.object` data) are read close to
//! the cost of one JSON pass: a kept document's routing keys are sniffed from its first
//! members and its typed decoding checks the whole document (the routing pass runs only when
//! the sniff is unsure, or for documents the filter skips); with
//! [`LoadOptions::lazy_bundle_objects`], bundle object values stay in the file and only their
//! byte range (and whether their base64 is valid) is kept. With
//! [`LoadOptions::lazy_documents`], small channels and bundles stay there too
//! ([`super::lazy`]), for `catalog validate`, which links and checks one package at a time.
//!
//! YAML documents are decoded from the fast reader's JSON text, or from a JSON value when that
//! text does not settle them ([`super::yamlstream`]). The catalog's content digest is computed
//! while reading only when [`LoadOptions::digest`] asks for it (see [`super::content_digest`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use serde::Deserialize;

use super::fbc::{
    Bundle, Channel, CsvCheck, Deprecation, DocPlace, Located, Meta, Package, Routing,
    SCHEMA_BUNDLE, SCHEMA_CHANNEL, SCHEMA_DEPRECATIONS, SCHEMA_PACKAGE, decoding_bundle,
    is_known_schema, meta_of, meta_of_value, routing, routing_of_value, sniff_routing,
};
use super::files::{Caps, catalog_files, combine_digest};
use super::lazy::{
    Compact, DocRef, Kept, LAZY_DOCUMENT_BYTES, LazyDoc, LazyDocs, YamlCut, intern, kept,
};
use super::model::Origin;
use super::read::read_with;
use super::sink::{DocSink, YamlPlace};
use super::{Error, PackageFilter};

/// A whole catalog as typed blobs, without links (operator-registry `DeclarativeConfig`).
#[derive(Debug, Default)]
pub struct DeclarativeConfig {
    /// `olm.package` blobs in load order.
    pub packages: Vec<Located<Package>>,
    /// `olm.channel` blobs in load order.
    pub channels: Vec<Located<Channel>>,
    /// `olm.bundle` blobs in load order.
    pub bundles: Vec<Located<Bundle>>,
    /// `olm.deprecations` blobs in load order.
    pub deprecations: Vec<Located<Deprecation>>,
    /// Documents with other schemas that the filter kept (ignored otherwise).
    pub others: Vec<Meta>,
    /// Number of documents with other schemas (kept or not by the filter).
    pub others_count: usize,
    /// Number of documents read, kept or not.
    pub documents_read: usize,
    /// Names of the `olm.package` documents the filter left out (for "did you mean").
    pub skipped_packages: Vec<String>,
    /// Content digest, `sha256:<hex>`; empty unless [`LoadOptions::digest`] was set.
    pub digest: String,
    /// The files that held a document the filter kept (paths and relative names, in load
    /// order): what [`crate::catalog::model::Catalog::read_digest`] covers.
    pub held_files: Vec<(PathBuf, String)>,
    /// The digest of [`DeclarativeConfig::held_files`] (as
    /// [`crate::catalog::model::Catalog::read_digest`] computes it); empty unless
    /// [`LoadOptions::digest`] was set (which hashes every file anyway) and the catalog is a
    /// directory.
    pub read_digest: String,
    /// Whether the catalog path is a single file (see [`super::files::combine_digest`]).
    pub single_file: bool,
    /// The catalog path given to [`load_with`].
    pub root: Option<PathBuf>,
    /// With [`LoadOptions::lazy_documents`], the `olm.channel` and `olm.bundle` blobs (and
    /// [`DeclarativeConfig::channels`] and [`DeclarativeConfig::bundles`] are empty).
    pub lazy: LazyDocs,
}

impl DeclarativeConfig {
    /// Whether it holds any document the filter kept (decoded or left in its file).
    fn holds_documents(&self) -> bool {
        !(self.packages.is_empty()
            && self.channels.is_empty()
            && self.bundles.is_empty()
            && self.deprecations.is_empty()
            && self.others.is_empty()
            && self.lazy.channels.is_empty()
            && self.lazy.bundles.is_empty())
    }
}

/// Where a decoded document lies in its file, for [`LoadOptions::lazy_documents`].
struct Place {
    /// File offset of its first byte.
    offset: u64,
    /// Its length.
    len: usize,
    /// `Some` for a YAML document the fast reader read.
    yaml: Option<YamlCut>,
}

impl Place {
    /// The place of a JSON document, `doc`, read at `offset` (`None`: not a file's own bytes).
    fn json(offset: Option<u64>, doc: &[u8]) -> Option<Place> {
        offset.map(|offset| Place {
            offset,
            len: doc.len(),
            yaml: None,
        })
    }
}

/// Where a load without [`LoadOptions::lazy_documents`] keeps a channel or a bundle.
trait Eager: LazyDoc + Clone {
    /// Its list in [`DeclarativeConfig`].
    fn eager(dc: &mut DeclarativeConfig) -> &mut Vec<Located<Self>>;
    /// Its list in [`FileDocs`].
    fn held(docs: &mut FileDocs) -> &mut Vec<Located<Self>>;
}

impl Eager for Channel {
    fn eager(dc: &mut DeclarativeConfig) -> &mut Vec<Located<Self>> {
        &mut dc.channels
    }
    fn held(docs: &mut FileDocs) -> &mut Vec<Located<Self>> {
        &mut docs.channels
    }
}

impl Eager for Bundle {
    fn eager(dc: &mut DeclarativeConfig) -> &mut Vec<Located<Self>> {
        &mut dc.bundles
    }
    fn held(docs: &mut FileDocs) -> &mut Vec<Located<Self>> {
        &mut docs.bundles
    }
}

/// The documents of one file, decoded, each list in file order: what [`load_each_file`]
/// hands over while the documents left in the file are still at hand.
#[derive(Debug, Default)]
pub struct FileDocs {
    /// `olm.package` blobs.
    pub packages: Vec<Located<Package>>,
    /// `olm.channel` blobs.
    pub channels: Vec<Located<Channel>>,
    /// `olm.bundle` blobs.
    pub bundles: Vec<Located<Bundle>>,
    /// `olm.deprecations` blobs.
    pub deprecations: Vec<Located<Deprecation>>,
}

/// Largest file whose documents [`load_each_file`] hands over decoded: all of them are held
/// at once, so memory stays bounded by this (times the cores), whatever the catalog's size.
pub const FILE_DOCS_BYTES: u64 = 8 << 20;

/// What reading one file gave: its typed documents and its sha256, and what
/// [`load_each_file`]'s closure made of them.
struct FileConfig<R> {
    dc: DeclarativeConfig,
    sha256: [u8; 32],
    each: Option<R>,
}

/// Decodes kept documents straight from the read buffer into typed blobs (no copy of the
/// document text for the four known schemas).
struct TypedSink<'f> {
    filter: &'f PackageFilter,
    /// See [`LoadOptions::lazy_bundle_objects`].
    lazy: bool,
    /// See [`LoadOptions::keep_csv_metadata`].
    keep_csv: bool,
    /// See [`LoadOptions::lazy_documents`].
    lazy_docs: bool,
    /// The package names of `out.lazy`, for their indexes.
    names: std::collections::HashMap<String, u32>,
    out: DeclarativeConfig,
    /// The file's channels and bundles, decoded, also those left in the file (for
    /// [`load_each_file`]).
    held: Option<FileDocs>,
}

impl TypedSink<'_> {
    fn new(filter: &PackageFilter, lazy: bool, lazy_docs: bool, keep_csv: bool) -> TypedSink<'_> {
        TypedSink {
            filter,
            lazy,
            keep_csv,
            lazy_docs,
            names: std::collections::HashMap::new(),
            out: DeclarativeConfig::default(),
            held: None,
        }
    }

    /// Whether a document of `len` bytes read at `offset` (a JSON file's own bytes) is left
    /// in its file once decoded ([`LoadOptions::lazy_documents`]): decided before it is
    /// decoded, so that its csv metadata is not checked twice ([`CsvCheck::Later`]).
    fn stays_in_file(&self, offset: Option<u64>, len: usize) -> bool {
        self.lazy_docs && offset.is_some() && len <= LAZY_DOCUMENT_BYTES
    }

    /// Keep a decoded channel or bundle. With [`LoadOptions::lazy_documents`], a small one
    /// (`place`: where it lies in its file) is left there: only its place is kept.
    fn keep<T: Eager>(&mut self, doc: Located<T>, place: Option<Place>) {
        if !self.lazy_docs {
            T::eager(&mut self.out).push(doc);
            return;
        }
        let in_file = place
            .filter(|p| self.stays_in_file(Some(p.offset), p.len))
            .map(|p| DocRef {
                file: 0,
                package: 0,
                // A file is at most 1 GiB, so its lines and a small document's length fit.
                line: u32::try_from(doc.origin.line).unwrap_or(u32::MAX),
                len: u32::try_from(p.len).unwrap_or(u32::MAX),
                offset: p.offset,
                yaml: p.yaml,
            });
        let kept = match in_file {
            Some(r) => {
                let r = DocRef {
                    package: intern(
                        &mut self.out.lazy.packages,
                        &mut self.names,
                        doc.item.package(),
                    ),
                    ..r
                };
                if let Some(held) = &mut self.held {
                    T::held(held).push(doc);
                }
                Kept::InFile(r)
            }
            None => {
                if let Some(held) = &mut self.held {
                    T::held(held).push(doc.clone());
                }
                Kept::Decoded(Box::new(doc))
            }
        };
        T::lazy(&mut self.out.lazy).push(kept);
    }
}

fn decode<T: for<'a> Deserialize<'a> + Compact>(
    path: &Arc<Path>,
    line: usize,
    doc: &[u8],
    schema: &str,
    r: &Routing,
) -> Result<Located<T>, Error> {
    match serde_json::from_slice(doc) {
        Ok(item) => Ok(kept(
            item,
            Origin {
                file: path.clone(),
                line,
            },
        )),
        Err(source) => located(path, line, schema, r, Err(source)),
    }
}

/// A YAML document's item with the file's shared path in its origin.
fn shared<T>(path: &Arc<Path>, mut doc: Located<T>) -> Located<T> {
    doc.origin.file = path.clone();
    doc
}

/// A decoded item with its origin, or the decode error naming the document.
fn located<T>(
    path: &Path,
    line: usize,
    schema: &str,
    r: &Routing,
    decoded: Result<T, serde_json::Error>,
) -> Result<Located<T>, Error> {
    let origin = Origin {
        file: Arc::from(path),
        line,
    };
    match decoded {
        Ok(item) => Ok(Located { item, origin }),
        Err(source) => Err(Error::Decode {
            origin,
            schema: schema.to_owned(),
            package: r.package.clone(),
            name: r.name.clone(),
            source,
        }),
    }
}

impl DocSink for TypedSink<'_> {
    fn doc(
        &mut self,
        path: &Arc<Path>,
        line: usize,
        offset: Option<u64>,
        doc: &[u8],
    ) -> Result<(), Error> {
        if let Some(item) = self.sniffed(path, line, offset, doc) {
            self.take(item, Place::json(offset, doc));
            return Ok(());
        }
        let (schema, r, kept) = routing(path, line, doc, self.filter)?;
        self.out.documents_read += 1;
        if !kept {
            if !is_known_schema(&schema) {
                self.out.others_count += 1;
            } else if schema == SCHEMA_PACKAGE {
                self.out.skipped_packages.push(r.name.clone());
            }
            return Ok(());
        }
        let in_file = Place::json(offset, doc);
        match schema.as_str() {
            SCHEMA_PACKAGE => {
                let package = decode(path, line, doc, &schema, &r)?;
                self.keep_package(package)
            }
            SCHEMA_CHANNEL => {
                let channel = decode::<Channel>(path, line, doc, &schema, &r)?;
                self.keep(channel, in_file)
            }
            SCHEMA_BUNDLE => {
                let bundle = self.in_bundle(offset, doc, || {
                    decode::<Bundle>(path, line, doc, &schema, &r)
                });
                self.keep(bundle?, in_file)
            }
            SCHEMA_DEPRECATIONS => {
                let deprecation = decode(path, line, doc, &schema, &r)?;
                self.out.deprecations.push(deprecation)
            }
            _ => {
                self.out.others_count += 1;
                self.out.others.push(meta_of(path, line, doc, schema, r)?);
            }
        }
        Ok(())
    }
    fn reset(&mut self) {
        self.out = DeclarativeConfig::default();
        self.names.clear();
        if self.held.is_some() {
            self.held = Some(FileDocs::default());
        }
    }
    type Yaml = YamlItem;
    fn decode_yaml(
        &self,
        path: &Arc<Path>,
        line: usize,
        value: serde_json::Value,
    ) -> Result<YamlItem, Error> {
        let (schema, r, kept) = routing_of_value(path, line, &value, self.filter)?;
        if !kept {
            return Ok(YamlItem::skipped(&schema, r));
        }
        Ok(match schema.as_str() {
            SCHEMA_PACKAGE => {
                YamlItem::Package(shared(path, decode_value(path, line, value, &schema, &r)?))
            }
            SCHEMA_CHANNEL => {
                YamlItem::Channel(shared(path, decode_value(path, line, value, &schema, &r)?))
            }
            SCHEMA_BUNDLE => {
                YamlItem::Bundle(shared(path, decode_value(path, line, value, &schema, &r)?))
            }
            SCHEMA_DEPRECATIONS => {
                YamlItem::Deprecation(shared(path, decode_value(path, line, value, &schema, &r)?))
            }
            _ => YamlItem::Other(meta_of_value(path, line, &value, schema, r)?),
        })
    }
    fn decode_yaml_json(&self, path: &Arc<Path>, line: usize, json: &[u8]) -> Option<YamlItem> {
        // As `doc` reads a JSON document, but answering only when decoding succeeds.
        if let Some(item) = self.sniffed(path, line, None, json) {
            return Some(item);
        }
        let (schema, r, kept) = routing(path, line, json, self.filter).ok()?;
        if !kept {
            return Some(YamlItem::skipped(&schema, r));
        }
        Some(match schema.as_str() {
            SCHEMA_PACKAGE => YamlItem::Package(decode(path, line, json, &schema, &r).ok()?),
            SCHEMA_CHANNEL => YamlItem::Channel(decode(path, line, json, &schema, &r).ok()?),
            SCHEMA_BUNDLE => YamlItem::Bundle(
                self.in_bundle(None, json, || decode(path, line, json, &schema, &r))
                    .ok()?,
            ),
            SCHEMA_DEPRECATIONS => {
                YamlItem::Deprecation(decode(path, line, json, &schema, &r).ok()?)
            }
            _ => YamlItem::Other(meta_of(path, line, json, schema, r).ok()?),
        })
    }
    fn take_yaml(&mut self, item: YamlItem, place: Option<YamlPlace>) {
        // Read again only as this load first read it: csv metadata elided.
        let place = place.filter(|_| !self.keep_csv).and_then(|p| {
            // A document small enough to stay in its file fits the cut's numbers.
            let cut = match p.elided {
                Some(lines) => YamlCut {
                    start: u16::try_from(lines.range.start).ok()?,
                    len: u16::try_from(lines.range.len()).ok()?,
                    indent: u16::try_from(lines.indent).ok()?,
                },
                None => YamlCut::NONE,
            };
            Some(Place {
                offset: p.offset,
                len: p.len,
                yaml: Some(cut),
            })
        });
        self.take(item, place);
    }
    fn elides_csv_metadata(&self) -> bool {
        // A load for validation alone checks csv metadata values as they are read
        // (`CsvCheck::Written`) and keeps only the outcome.
        !self.keep_csv
    }
}

impl TypedSink<'_> {
    /// Keep a package. A load for validation alone drops its icon and description: they
    /// were checked as they were decoded, and nothing reads them after (a catalog of many
    /// small packages would otherwise hold them all until it is linked).
    fn keep_package(&mut self, mut p: Located<Package>) {
        if !self.keep_csv {
            p.item.icon = None;
            p.item.description = String::new();
        }
        self.out.packages.push(p);
    }

    /// Keep one decoded document; `in_file` is its place when it can be read again there.
    fn take(&mut self, item: YamlItem, in_file: Option<Place>) {
        if let YamlItem::Channel(_) | YamlItem::Bundle(_) = item {
            self.out.documents_read += 1;
            match item {
                YamlItem::Channel(c) => self.keep(c, in_file),
                YamlItem::Bundle(b) => self.keep(b, in_file),
                _ => {}
            }
            return;
        }
        if let YamlItem::Package(p) = item {
            self.out.documents_read += 1;
            self.keep_package(p);
            return;
        }
        let dc = &mut self.out;
        dc.documents_read += 1;
        match item {
            YamlItem::Package(_) => {}
            YamlItem::Channel(_) | YamlItem::Bundle(_) => {}
            YamlItem::Deprecation(d) => dc.deprecations.push(d),
            YamlItem::Other(m) => {
                dc.others_count += 1;
                dc.others.push(m);
            }
            YamlItem::SkippedOther => dc.others_count += 1,
            YamlItem::SkippedPackage(name) => dc.skipped_packages.push(name),
            YamlItem::Skipped => {}
        }
    }
}

/// One document as [`TypedSink`] keeps it.
enum YamlItem {
    Package(Located<Package>),
    Channel(Located<Channel>),
    Bundle(Located<Bundle>),
    Deprecation(Located<Deprecation>),
    Other(Meta),
    /// Left out by the filter: a document of another schema.
    SkippedOther,
    /// Left out by the filter: an `olm.package` (its name).
    SkippedPackage(String),
    /// Left out by the filter.
    Skipped,
}

impl YamlItem {
    /// A document of `schema` that the filter leaves out.
    fn skipped(schema: &str, r: Routing) -> YamlItem {
        if !is_known_schema(schema) {
            YamlItem::SkippedOther
        } else if schema == SCHEMA_PACKAGE {
            YamlItem::SkippedPackage(r.name)
        } else {
            YamlItem::Skipped
        }
    }
}

/// [`decode`] from a value (YAML documents): the typed structs take the value's members
/// (strings are moved, not copied); property values become JSON text (`RawValue`) as when
/// read from a JSON file.
fn decode_value<T: for<'a> Deserialize<'a>>(
    path: &Path,
    line: usize,
    value: serde_json::Value,
    schema: &str,
    r: &Routing,
) -> Result<Located<T>, Error> {
    located(path, line, schema, r, T::deserialize(value))
}

impl TypedSink<'_> {
    /// Run `decode`, which reads the `olm.bundle` document `doc` (JSON text; at file offset
    /// `offset` when it is the file's own bytes), with this load's settings for property
    /// values in place ([`decoding_bundle`]). `offset` is `None` exactly for text the
    /// fast YAML reader wrote.
    fn in_bundle<R>(&self, offset: Option<u64>, doc: &[u8], decode: impl FnOnce() -> R) -> R {
        let place = offset
            .filter(|_| self.lazy)
            .map(|offset| DocPlace::of(doc, offset));
        let csv = match (self.keep_csv, offset) {
            (true, _) => CsvCheck::Keep,
            // Checked when read back, unless the file's documents are held decoded (they
            // are linked from that decoding).
            (false, Some(_)) if self.stays_in_file(offset, doc.len()) && self.held.is_none() => {
                CsvCheck::Later
            }
            (false, Some(_)) => CsvCheck::Check,
            (false, None) => CsvCheck::Written,
        };
        decoding_bundle(place, csv, decode)
    }

    /// Decode a kept document of a known schema without the routing pass: the routing keys
    /// are sniffed from its first members, and typed decoding checks the whole document
    /// (including the routing pass's duplicate-key rule). `None`, having decoded nothing
    /// that is kept, whenever the full path must decide (also to report any error its way).
    /// `offset` is the document's place in its file (JSON), `None` for converted text (YAML).
    fn sniffed(
        &self,
        path: &Arc<Path>,
        line: usize,
        offset: Option<u64>,
        doc: &[u8],
    ) -> Option<YamlItem> {
        let r = sniff_routing(doc)?;
        let schema = r.schema.as_deref().unwrap_or_default();
        if !is_known_schema(schema) || !self.filter.keeps_doc(schema, &r.package, &r.name) {
            return None;
        }
        let origin = || Origin {
            file: path.clone(),
            line,
        };
        // Each arm checks that the typed keys agree with the sniffed ones (a repeated key
        // after the sniffed members would change them).
        Some(match schema {
            SCHEMA_PACKAGE => match serde_json::from_slice::<Package>(doc) {
                Ok(item) if item.schema == schema && item.name == r.name => {
                    YamlItem::Package(kept(item, origin()))
                }
                _ => return None,
            },
            SCHEMA_CHANNEL => match serde_json::from_slice::<Channel>(doc) {
                Ok(item)
                    if item.schema == schema
                        && item.name == r.name
                        && item.package == r.package =>
                {
                    YamlItem::Channel(kept(item, origin()))
                }
                _ => return None,
            },
            SCHEMA_BUNDLE => {
                let bundle = self.in_bundle(offset, doc, || serde_json::from_slice::<Bundle>(doc));
                match bundle {
                    Ok(item)
                        if item.schema == schema
                            && item.name == r.name
                            && item.package == r.package =>
                    {
                        YamlItem::Bundle(kept(item, origin()))
                    }
                    _ => return None,
                }
            }
            _ => match serde_json::from_slice::<Deprecation>(doc) {
                Ok(item) if item.schema == schema && item.package == r.package => {
                    YamlItem::Deprecation(kept(item, origin()))
                }
                _ => return None,
            },
        })
    }
}

fn decode_file<R>(
    path: &Path,
    filter: &PackageFilter,
    options: &LoadOptions,
    each: Option<&EachFile<'_, R>>,
) -> Result<FileConfig<R>, Error> {
    let meta = std::fs::metadata(path)
        .ok()
        .filter(|m| m.file_type().is_file());
    // Only a regular file can be read again later (not a pipe or a device).
    let lazy = options.lazy_bundle_objects && meta.is_some();
    let mut sink = TypedSink::new(
        filter,
        lazy,
        options.lazy_documents,
        options.keep_csv_metadata,
    );
    // A small file of a load for validation alone: its documents are also held decoded for
    // `each` (those left in the file too), until the file is read.
    if each.is_some()
        && options.lazy_documents
        && !options.keep_csv_metadata
        && meta.is_some_and(|m| m.len() <= FILE_DOCS_BYTES)
    {
        sink.held = Some(FileDocs::default());
    }
    let file: Arc<Path> = Arc::from(path);
    let sha256 = read_with(&file, &mut sink, options.digest, Caps::DEFAULT)?;
    let each = match (each, sink.held.take()) {
        (Some(each), Some(mut held)) => {
            held.packages = sink.out.packages.clone();
            held.deprecations = sink.out.deprecations.clone();
            Some(each(held))
        }
        _ => None,
    };
    if options.lazy_documents {
        sink.out.lazy.files = vec![file];
        sink.out.lazy.lazy_bundle_objects = lazy;
        sink.out.lazy.keep_csv_metadata = options.keep_csv_metadata;
    }
    Ok(FileConfig {
        dc: sink.out,
        sha256,
        each,
    })
}

/// What [`load_each_file`]'s closure gave, per file: the file's path (as the documents'
/// origins share it) and the closure's result, in load order.
pub type PerFile<R> = Vec<(Arc<Path>, R)>;

/// What [`load_each_file`] calls for each small file.
type EachFile<'a, R> = dyn Fn(FileDocs) -> R + Sync + 'a;

/// Load a catalog (file or directory) into typed blobs, decoding only what `filter` keeps.
/// Files are read and decoded in parallel; the result is in the loader's (lexical) order.
/// The first error in file order is returned.
pub fn load(path: &Path, filter: &PackageFilter) -> Result<DeclarativeConfig, Error> {
    load_with(path, filter, &LoadOptions::default())
}

/// Options for [`load_with`].
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Compute the content digest (sha256 of every byte, about a third of the loading time
    /// of a large catalog). Without it, [`DeclarativeConfig::digest`] is empty.
    pub digest: bool,
    /// Leave `olm.bundle.object` values of JSON files in the file: the property's `value` is
    /// [`super::property::PropertyValue::InFile`], its byte range, instead of the value (`model::Bundle` reads it back
    /// when asked for its objects). Values from YAML files, and values that do not have
    /// the `{"data": …}` shape, stay in memory (without [`LoadOptions::keep_csv_metadata`],
    /// a YAML document's are checked as they are read and only the outcome is kept).
    pub lazy_bundle_objects: bool,
    /// Keep `olm.csv.metadata` values. Without it (a load for validation alone), a value is
    /// checked as it is read (rule 5) and only the outcome is kept
    /// ([`super::property::PropertyValue::Checked`]): the values are most of a catalog of small bundles, and
    /// validation needs nothing else of them. Values read from a YAML document that only
    /// serde-saphyr reads are kept either way. Such a load also keeps neither the icon nor the
    /// description of a package (checked as they are decoded, never read after).
    pub keep_csv_metadata: bool,
    /// Leave small (at most [`LAZY_DOCUMENT_BYTES`]) `olm.channel` and `olm.bundle` documents
    /// in the file, once decoded and checked: only their place is kept, and
    /// [`super::link::build_with`] decodes them again package by package, so `catalog
    /// validate` never holds every document decoded. That is every small one of a JSON file,
    /// and without [`LoadOptions::keep_csv_metadata`] every small one of a YAML file that the
    /// fast reader reads (read again without the lines of its csv metadata, see
    /// [`super::lazy::YamlCut`]). The channels and bundles then go to
    /// [`DeclarativeConfig::lazy`] (the others decoded), in load order.
    pub lazy_documents: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            digest: true,
            lazy_bundle_objects: false,
            keep_csv_metadata: true,
            lazy_documents: false,
        }
    }
}

/// [`load`] with options.
pub fn load_with(
    path: &Path,
    filter: &PackageFilter,
    options: &LoadOptions,
) -> Result<DeclarativeConfig, Error> {
    load_files(path, filter, options, None::<&EachFile<'_, ()>>).map(|(dc, _)| dc)
}

/// [`load_with`] for a load for validation alone ([`LoadOptions::lazy_documents`] without
/// [`LoadOptions::keep_csv_metadata`]): each file of at most [`FILE_DOCS_BYTES`] is also handed
/// to `each` as soon as it is read, on the thread that read it, all its documents decoded
/// (also those left in the file, which are then not read again for it). Returns, beside the
/// load, what `each` gave for each such file, with the file's path (as the documents'
/// origins share it), in load order.
pub fn load_each_file<R: Send>(
    path: &Path,
    filter: &PackageFilter,
    options: &LoadOptions,
    each: &EachFile<'_, R>,
) -> Result<(DeclarativeConfig, PerFile<R>), Error> {
    load_files(path, filter, options, Some(each))
}

fn load_files<R: Send>(
    path: &Path,
    filter: &PackageFilter,
    options: &LoadOptions,
    each: Option<&EachFile<'_, R>>,
) -> Result<(DeclarativeConfig, PerFile<R>), Error> {
    let files = catalog_files(path)?;
    let parts: Vec<Result<FileConfig<R>, Error>> = files
        .files
        .par_iter()
        .map(|(file, _)| decode_file(file, filter, options, each))
        .collect();
    let mut parts = parts
        .into_iter()
        .collect::<Result<Vec<FileConfig<R>>, Error>>()?;
    let mut handed = Vec::new();
    for part in &mut parts {
        if let (Some(r), Some(file)) = (part.each.take(), part.dc.lazy.files.first()) {
            handed.push((file.clone(), r));
        }
    }
    let digests: Vec<(&str, [u8; 32])> = parts
        .iter()
        .zip(&files.files)
        .map(|(part, (_, rel))| (rel.as_str(), part.sha256))
        .collect();
    let held: Vec<bool> = parts.iter().map(|p| p.dc.holds_documents()).collect();
    let held_files: Vec<(PathBuf, String)> = files
        .files
        .iter()
        .zip(&held)
        .filter(|(_, held)| **held)
        .map(|(file, _)| file.clone())
        .collect();
    // A single file's lists are moved whole. Several files' go into one allocation per list:
    // growing the lists by doubling would copy them and leave up to half of the room unused.
    let mut dc = match parts.len() {
        1 => parts.pop().map(|p| p.dc).unwrap_or_default(),
        _ => {
            let total =
                |len: fn(&DeclarativeConfig) -> usize| parts.iter().map(|p| len(&p.dc)).sum();
            let mut dc = DeclarativeConfig {
                packages: Vec::with_capacity(total(|d| d.packages.len())),
                channels: Vec::with_capacity(total(|d| d.channels.len())),
                bundles: Vec::with_capacity(total(|d| d.bundles.len())),
                deprecations: Vec::with_capacity(total(|d| d.deprecations.len())),
                lazy: LazyDocs {
                    channels: Vec::with_capacity(total(|d| d.lazy.channels.len())),
                    bundles: Vec::with_capacity(total(|d| d.lazy.bundles.len())),
                    ..LazyDocs::default()
                },
                ..DeclarativeConfig::default()
            };
            let mut names = std::collections::HashMap::new();
            for part in parts {
                dc.lazy.append(part.dc.lazy, &mut names);
                dc.packages.extend(part.dc.packages);
                dc.channels.extend(part.dc.channels);
                dc.bundles.extend(part.dc.bundles);
                dc.deprecations.extend(part.dc.deprecations);
                dc.others.extend(part.dc.others);
                dc.others_count += part.dc.others_count;
                dc.documents_read += part.dc.documents_read;
                dc.skipped_packages.extend(part.dc.skipped_packages);
            }
            dc
        }
    };
    if options.digest {
        dc.digest = combine_digest(files.single_file, &digests);
        // Every file was hashed: the held files' digest comes from the same hashes (a single
        // file's read digest is its whole digest).
        let held_digests: Vec<(&str, [u8; 32])> = digests
            .iter()
            .zip(&held)
            .filter(|(_, held)| **held)
            .map(|(d, _)| *d)
            .collect();
        if !files.single_file {
            dc.read_digest = combine_digest(false, &held_digests);
        }
    }
    dc.root = Some(files.root.clone());
    dc.held_files = held_files;
    dc.single_file = files.single_file;
    Ok((dc, handed))
}

#[cfg(test)]
mod tests {
    //! The fast YAML road answers for the documents catalogs are made of, so that a change
    //! which sends them all back to the value's road fails here, not only in a benchmark.
    use super::*;
    use crate::catalog::property::PropertyValue;

    fn json_of(yaml: &str) -> Vec<u8> {
        let mut out = Vec::new();
        crate::catalog::fastyaml::to_json(yaml, &mut out).expect("in the fast subset");
        out
    }

    #[test]
    fn typical_documents_are_decoded_from_their_json_text() {
        let filter = PackageFilter::All;
        let path: Arc<Path> = Arc::from(Path::new("c.yaml"));
        let docs = [
            "schema: olm.package\nname: p\ndefaultChannel: stable\nicon:\n  base64data: PHN2Zy8+\n  mediatype: image/svg+xml\n",
            "schema: olm.channel\npackage: p\nname: stable\nentries:\n- name: p.v1.0.0\n- name: p.v1.1.0\n  replaces: p.v1.0.0\n  skipRange: '>=1.0.0 <1.1.0'\n",
            "schema: olm.bundle\npackage: p\nname: p.v1.0.0\nimage: quay.io/p@sha256:0\nproperties:\n- type: olm.package\n  value:\n    packageName: p\n    version: 1.0.0\n- type: olm.csv.metadata\n  value:\n    displayName: P\n    description: |\n      Two\n      lines\nrelatedImages:\n- image: quay.io/p@sha256:0\n  name: ''\n",
            "schema: olm.deprecations\npackage: p\nentries:\n- reference:\n    schema: olm.bundle\n    name: p.v1.0.0\n  message: use 1.1\n",
        ];
        for keep_csv in [true, false] {
            let sink = TypedSink::new(&filter, false, false, keep_csv);
            for doc in docs {
                let item = sink.decode_yaml_json(&path, 1, &json_of(doc));
                assert!(
                    matches!(
                        item,
                        Some(
                            YamlItem::Package(_)
                                | YamlItem::Channel(_)
                                | YamlItem::Bundle(_)
                                | YamlItem::Deprecation(_)
                        )
                    ),
                    "{doc}"
                );
            }
            // The csv metadata of a load for validation is checked, not kept.
            let Some(YamlItem::Bundle(b)) = sink.decode_yaml_json(&path, 1, &json_of(docs[2]))
            else {
                panic!("the bundle is decoded from its JSON text");
            };
            let csv = &b.item.properties[1].value;
            if keep_csv {
                assert!(
                    csv.text()
                        .is_some_and(|t| t.starts_with("{\"displayName\""))
                );
            } else {
                assert_eq!(csv, &PropertyValue::Checked(Ok(())));
            }
        }
    }

    #[test]
    fn an_error_goes_back_to_the_value_road() {
        let filter = PackageFilter::All;
        let path: Arc<Path> = Arc::from(Path::new("c.yaml"));
        let sink = TypedSink::new(&filter, false, false, true);
        for doc in [
            "schema: olm.channel\npackage: p\nname: c\nentries: 5\n",
            "schema: olm.bundle\npackage: p\nname: b\nproperties:\n- type: olm.package\n",
            "name: no-schema\n",
        ] {
            assert!(
                sink.decode_yaml_json(&path, 1, &json_of(doc)).is_none(),
                "{doc}"
            );
        }
    }
}
