//! The File-Based Catalog format as written in files: our copy of operator-registry's
//! `alpha/declcfg` (`declcfg.go`, `load.go`). Nothing here is linked or checked; that is
//! [`super::link`]'s job (and [`super::validate`]'s), into [`super::model`]. Property types
//! and values are [`super::property`]'s; the decoding rules, [`super::decode`]'s.
//!
//! * [`Meta`] is a document's routing keys (`schema`, `package`, `name`) plus its raw blob.
//! * [`Package`], [`Channel`], [`Bundle`], [`Deprecation`] and [`Property`] are serde structs
//!   named as in the file. Field names match case-insensitively (ASCII), like Go's
//!   `encoding/json`; unknown fields are ignored; a `null` value means "not set".
//! * [`walk`] yields one document at a time; [`load`] collects a whole catalog (in parallel per
//!   file) into a [`DeclarativeConfig`], decoding only the documents a [`PackageFilter`] keeps.
//!
//! Large catalogs (hundreds of MB, mostly base64 `olm.bundle.object` data) are read close to
//! the cost of one JSON pass: a kept document's routing keys are sniffed from its first
//! members and its typed decoding checks the whole document (the routing pass runs only when
//! the sniff is unsure, or for documents the filter skips); with
//! [`LoadOptions::lazy_bundle_objects`], bundle object values stay in the file and only their
//! byte range (and whether their base64 is valid) is kept. With
//! [`LoadOptions::lazy_documents`], small channels and bundles stay there too ([`LazyDocs`]),
//! for `catalog validate`, which links and checks one package at a time (a million small
//! bundles then cost their place, 32 bytes each, not 650 bytes decoded).
//!
//! Sizes are capped: a file at 1 GiB (refused before it is read when it reports more), one
//! document at [`MAX_DOCUMENT_BYTES`], refused while its end is looked for, before it is
//! parsed. Memory while reading is one read chunk plus one document (JSON) or one batch of
//! documents (YAML).
//!
//! File layout rules (reference/catalogs-and-conversion.md §1.2): a directory is walked in
//! lexical order, every regular file is read (no extension filter), `.indexignore` files
//! (gitignore syntax) apply to their directory and below and are skipped themselves. A file
//! whose first non-whitespace byte is `{` is a JSON stream (concatenated objects, JSON lines);
//! if its first object does not decode, the file is read as YAML instead (apimachinery's
//! fallback, which is allowed while at most one object has decoded). Anything else is YAML
//! multi-doc, split on lines starting with `---` exactly as apimachinery's `YAMLReader` does;
//! empty documents are skipped.
//!
//! YAML files are split into documents in place and parsed in batches on every core; each
//! document is read into a JSON value (which fixes the reading of scalars) and the typed
//! structs decode from that value directly. The catalog's content digest is computed while
//! reading only when [`LoadOptions::digest`] asks for it (see [`super::content_digest`]).

use std::borrow::Cow;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

use super::decode::yaml_options;
use super::decode::{Key, RoutingKeys, fbc_struct};
use super::model::Origin;
use super::property::{LazyValue, PROPERTY_BUNDLE_OBJECT, PROPERTY_CSV_METADATA, PropertyValue};
use super::{Error, PackageFilter};

/// `schema` of a package blob.
pub const SCHEMA_PACKAGE: &str = "olm.package";
/// `schema` of a channel blob.
pub const SCHEMA_CHANNEL: &str = "olm.channel";
/// `schema` of a bundle blob.
pub const SCHEMA_BUNDLE: &str = "olm.bundle";
/// `schema` of a deprecations blob.
pub const SCHEMA_DEPRECATIONS: &str = "olm.deprecations";

fbc_struct! {
    document;
    /// An `olm.package` blob.
    pub struct Package {
        /// Always `olm.package`.
        "schema" => pub schema: String,
        /// Package name.
        "name" => pub name: String,
        /// Default channel name.
        "defaultChannel" => pub default_channel: String,
        /// Optional icon.
        "icon" => pub icon: Option<Icon>,
        /// Description (may be long).
        "description" => pub description: String,
        /// Package properties.
        "properties" => pub properties: Vec<Property>,
    }
}

fbc_struct! {
    /// A package icon.
    pub struct Icon {
        /// Standard base64 of the image.
        "base64data" => pub base64data: String,
        /// Media type, e.g. `image/svg+xml`.
        "mediatype" => pub mediatype: String,
    }
}

fbc_struct! {
    document;
    /// An `olm.channel` blob.
    pub struct Channel {
        /// Always `olm.channel`.
        "schema" => pub schema: String,
        /// Channel name.
        "name" => pub name: String,
        /// Owning package.
        "package" => pub package: String,
        /// Entries, in file order.
        "entries" => pub entries: Vec<ChannelEntry>,
        /// Channel properties (internal use).
        "properties" => pub properties: Vec<Property>,
    }
}

fbc_struct! {
    /// One `entries[]` item of a channel.
    pub struct ChannelEntry {
        /// Bundle name.
        "name" => pub name: String,
        /// The bundle this one replaces (empty: none).
        "replaces" => pub replaces: String,
        /// Bundles this one skips.
        "skips" => pub skips: Vec<String>,
        /// blang range of versions this one upgrades from (empty: none).
        "skipRange" => pub skip_range: String,
    }
}

fbc_struct! {
    document;
    /// An `olm.bundle` blob.
    pub struct Bundle {
        /// Always `olm.bundle`.
        "schema" => pub schema: String,
        /// Bundle name.
        "name" => pub name: String,
        /// Owning package.
        "package" => pub package: String,
        /// Bundle image reference.
        "image" => pub image: String,
        /// Properties, values raw.
        "properties" => pub properties: Vec<Property>,
        /// Related images.
        "relatedImages" => pub related_images: Vec<RelatedImage>,
    }
}

fbc_struct! {
    /// One `relatedImages[]` item.
    pub struct RelatedImage {
        /// Optional name.
        "name" => pub name: String,
        /// Image reference.
        "image" => pub image: String,
    }
}

fbc_struct! {
    document;
    /// An `olm.deprecations` blob.
    pub struct Deprecation {
        /// Always `olm.deprecations`.
        "schema" => pub schema: String,
        /// Package the deprecations are for.
        "package" => pub package: String,
        /// Entries.
        "entries" => pub entries: Vec<DeprecationEntry>,
    }
}

fbc_struct! {
    /// One deprecation entry.
    pub struct DeprecationEntry {
        /// What is deprecated.
        "reference" => pub reference: PackageScopedReference,
        /// The message shown to users.
        "message" => pub message: String,
    }
}

fbc_struct! {
    /// A reference to an object inside the deprecation's package.
    pub struct PackageScopedReference {
        /// `olm.package`, `olm.channel` or `olm.bundle`.
        "schema" => pub schema: String,
        /// Channel or bundle name (empty for the package).
        "name" => pub name: String,
    }
}

/// A `{type, value}` property with its value kept as raw JSON.
#[derive(Debug, Clone, Serialize)]
pub struct Property {
    /// `type`.
    #[serde(rename = "type")]
    pub ty: String,
    /// `value`: raw JSON, or for an `olm.bundle.object` of a JSON file, its place in the file.
    pub value: PropertyValue,
}

impl PartialEq for Property {
    fn eq(&self, other: &Self) -> bool {
        self.ty == other.ty && self.value == other.value
    }
}

impl<'de> Deserialize<'de> for Property {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct PropertyVisitor;
        impl<'de> Visitor<'de> for PropertyVisitor {
            type Value = Property;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a property object {type, value}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Property, A::Error> {
                // Inside an `olm.bundle` read for a lazy load, the deserializer reads from
                // the document's bytes, so values can be borrowed and placed in the file.
                let place = DOC_PLACE.get();
                // Inside an `olm.bundle` read as JSON text by a load for validation alone:
                // values can be borrowed, and csv metadata is checked, not kept.
                let csv = CSV_CHECK.get();
                let check_only = csv != CsvCheck::Keep;
                let mut ty: Option<String> = None;
                let mut value: Option<PropertyValue> = None;
                let mut borrowed: Option<&'de RawValue> = None;
                while let Some(key) = map.next_key::<Key<'de>>()? {
                    if key.0.eq_ignore_ascii_case("type") {
                        ty = map.next_value()?;
                    } else if key.0.eq_ignore_ascii_case("value") {
                        if place.is_some() || check_only {
                            borrowed = Some(map.next_value()?);
                            value = None;
                        } else {
                            value = Some(PropertyValue::Json(map.next_value()?));
                            borrowed = None;
                        }
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                // Same checks as operator-registry's `property.Property.UnmarshalJSON`.
                let ty = ty
                    .filter(|t| !t.is_empty())
                    .ok_or_else(|| de::Error::custom("property type must be set"))?;
                if let Some(b) = borrowed
                    .filter(|b| check_only && ty == PROPERTY_CSV_METADATA && b.get() != "null")
                {
                    borrowed = None;
                    value = Some(PropertyValue::Checked(csv_outcome(csv, b.get())));
                }
                if let (Some(b), None) = (borrowed, place) {
                    value = Some(PropertyValue::Json(b.to_owned()));
                }
                if let (Some(b), Some(place)) = (borrowed, place) {
                    value = Some(match place.range_of(b) {
                        // The common `{"data":"<base64>"}`: valid base64 has no quote or
                        // backslash, so the data is the whole string and needs no parsing.
                        Some((offset, length))
                            if ty == PROPERTY_BUNDLE_OBJECT && plain_base64_data(b.get()) =>
                        {
                            PropertyValue::InFile(LazyValue {
                                offset,
                                length,
                                base64_ok: true,
                            })
                        }
                        Some((offset, length)) if ty == PROPERTY_BUNDLE_OBJECT => {
                            match serde_json::from_str::<BundleObjectRef<'_>>(b.get()).ok() {
                                // Checked now, while the bytes are at hand, so that validation
                                // does not read them back.
                                Some(obj) => PropertyValue::InFile(LazyValue {
                                    offset,
                                    length,
                                    base64_ok: !obj.data.is_empty()
                                        && super::model::is_standard_base64(obj.data.as_bytes()),
                                }),
                                None => PropertyValue::Json(b.to_owned()),
                            }
                        }
                        _ => PropertyValue::Json(b.to_owned()),
                    });
                }
                let value = value
                    .filter(|v| v.text() != Some("null"))
                    .ok_or_else(|| de::Error::custom("property value must be set"))?;
                Ok(Property { ty, value })
            }
        }
        d.deserialize_map(PropertyVisitor)
    }
}

/// Where the `olm.bundle` document being decoded on this thread lies in its file. Set only
/// while [`TypedSink`] decodes one for a load with [`LoadOptions::lazy_bundle_objects`].
#[derive(Debug, Clone, Copy)]
struct DocPlace {
    /// Address of the document's first byte in the read buffer.
    start: usize,
    /// Length of the document.
    len: usize,
    /// File offset of the document's first byte.
    offset: u64,
}

impl DocPlace {
    /// File offset and length of a value borrowed from the document.
    fn range_of(&self, value: &RawValue) -> Option<(u64, usize)> {
        let text = value.get();
        let at = (text.as_ptr() as usize).checked_sub(self.start)?;
        (at + text.len() <= self.len).then(|| (self.offset + at as u64, text.len()))
    }
}

thread_local! {
    static DOC_PLACE: std::cell::Cell<Option<DocPlace>> = const { std::cell::Cell::new(None) };
    /// Other than `Keep` only while [`TypedSink`] decodes an `olm.bundle` from JSON text for
    /// a load that does not keep csv metadata ([`LoadOptions::keep_csv_metadata`]).
    static CSV_CHECK: std::cell::Cell<CsvCheck> = const { std::cell::Cell::new(CsvCheck::Keep) };
}

/// What the `olm.bundle` being decoded on this thread does with its csv metadata values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CsvCheck {
    /// Keep them.
    Keep,
    /// Check them (rule 5) and keep the outcome only.
    Check,
    /// Neither kept nor checked: the document stays in its file
    /// ([`LoadOptions::lazy_documents`]) and is decoded again with its package, when its
    /// values are checked; what is decoded now is dropped but for its place.
    Later,
    /// The same as `Check`, for text the fast YAML reader wrote ([`super::fastyaml::to_json`]): that is
    /// `serde_json`'s own writing of a value (finite numbers, valid strings, at most 48
    /// levels deep), so an object there decodes as a map by construction and is not walked
    /// again. Debug builds (every test) walk it anyway and compare.
    Written,
}

/// Rule 5's outcome for one csv metadata value's JSON text.
fn csv_outcome(how: CsvCheck, text: &str) -> Result<(), String> {
    if how == CsvCheck::Later {
        return Ok(());
    }
    if how == CsvCheck::Written && text.starts_with('{') {
        debug_assert_eq!(super::property::check_csv_metadata(text), Ok(()), "{text}");
        return Ok(());
    }
    super::property::check_csv_metadata(text)
}

/// Whether a bundle object value is exactly `{"data":"…"}` with non-empty, valid standard
/// base64 between the quotes.
fn plain_base64_data(value: &str) -> bool {
    value
        .strip_prefix("{\"data\":\"")
        .and_then(|v| v.strip_suffix("\"}"))
        .is_some_and(|data| !data.is_empty() && super::model::is_standard_base64(data.as_bytes()))
}

/// `{"data", "ref"}` like [`BundleObject`] (keys folded, `null` as unset, last wins), borrowing
/// the strings from the input when they have no escapes.
pub(crate) struct BundleObjectRef<'a> {
    /// Base64 of one manifest.
    pub data: Cow<'a, str>,
    /// Defunct alpha form.
    pub reference: Cow<'a, str>,
}

impl<'de> Deserialize<'de> for BundleObjectRef<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Text<'a>(Cow<'a, str>);
        impl<'de> Deserialize<'de> for Text<'de> {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                Key::deserialize(d).map(|k| Text(k.0))
            }
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = BundleObjectRef<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object (BundleObject)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = BundleObjectRef {
                    data: Cow::Borrowed(""),
                    reference: Cow::Borrowed(""),
                };
                while let Some(key) = map.next_key::<Key<'de>>()? {
                    let slot = if key.0.eq_ignore_ascii_case("data") {
                        &mut out.data
                    } else if key.0.eq_ignore_ascii_case("ref") {
                        &mut out.reference
                    } else {
                        map.next_value::<IgnoredAny>()?;
                        continue;
                    };
                    if let Some(Text(v)) = map.next_value::<Option<Text<'de>>>()? {
                        *slot = v;
                    }
                }
                Ok(out)
            }
        }
        d.deserialize_map(V)
    }
}

/// One document's routing keys and its raw blob (operator-registry `declcfg.Meta`).
#[derive(Debug, Clone)]
pub struct Meta {
    /// `schema` (never empty).
    pub schema: String,
    /// `package` (empty when absent).
    pub package: String,
    /// `name` (empty when absent).
    pub name: String,
    /// The whole document as JSON text.
    pub blob: Box<RawValue>,
    /// File and line the document starts on.
    pub origin: Origin,
}

/// Routing keys read with case-insensitive lookup; keys that differ only by case are an
/// error, like `extractUniqueMetaKeys`.
#[derive(Default)]
struct Routing {
    schema: Option<String>,
    package: String,
    name: String,
}

impl<'de> Deserialize<'de> for Routing {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct RoutingVisitor;
        impl<'de> Visitor<'de> for RoutingVisitor {
            type Value = Routing;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Routing, A::Error> {
                let mut out = Routing::default();
                let mut seen: [Option<Cow<'de, str>>; 3] = [None, None, None];
                while let Some(key) = map.next_key::<Key<'de>>()? {
                    let slot = ["schema", "package", "name"]
                        .iter()
                        .position(|k| key.0.eq_ignore_ascii_case(k));
                    let Some(slot) = slot else {
                        map.next_value::<IgnoredAny>()?;
                        continue;
                    };
                    if let Some(prev) = &seen[slot]
                        && *prev != key.0
                    {
                        return Err(de::Error::custom(format_args!(
                            "duplicate keys {prev:?} and {:?} differ only by case",
                            key.0
                        )));
                    }
                    let value: Option<String> = map.next_value()?;
                    let value = value.unwrap_or_default();
                    match slot {
                        0 => out.schema = Some(value),
                        1 => out.package = value,
                        _ => out.name = value,
                    }
                    seen[slot] = Some(key.0);
                }
                Ok(out)
            }
        }
        d.deserialize_map(RoutingVisitor)
    }
}

impl PackageFilter {
    /// Whether a package with this name is kept.
    pub fn keeps(&self, package: &str) -> bool {
        match self {
            PackageFilter::All => true,
            PackageFilter::Only(names) => names.iter().any(|n| n == package),
        }
    }

    fn keeps_doc(&self, schema: &str, package: &str, name: &str) -> bool {
        match self {
            PackageFilter::All => true,
            PackageFilter::Only(_) if schema == SCHEMA_PACKAGE => self.keeps(name),
            PackageFilter::Only(_) => self.keeps(package),
        }
    }
}

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
const MAX_CATALOG_FILE_BYTES: u64 = 1 << 30;

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
struct Caps {
    /// Bytes of one file.
    file: u64,
    /// Bytes of one document.
    document: usize,
}

impl Caps {
    const DEFAULT: Caps = Caps {
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

/// What reading one file produced.
#[derive(Debug)]
pub struct FileDocs {
    /// sha256 of the file's bytes.
    pub sha256: [u8; 32],
    /// Documents the filter kept, in file order.
    pub metas: Vec<Meta>,
    /// Documents read (kept or not).
    pub read: usize,
}

/// A reader that hashes everything read through it.
struct HashingReader<R> {
    inner: R,
    /// `None`: the caller does not need the digest.
    hasher: Option<Sha256>,
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

const CHUNK: usize = 1 << 20;

/// Receives the documents of one file, as JSON text, in order.
trait DocSink {
    /// One document starting at `line`, at file offset `offset` when `doc` is the file's
    /// own bytes (JSON), `None` when it was converted (YAML).
    fn doc(
        &mut self,
        path: &Arc<Path>,
        line: usize,
        offset: Option<u64>,
        doc: &[u8],
    ) -> Result<(), Error>;
    /// Forget everything received (the file is being re-read as YAML).
    fn reset(&mut self);
    /// What [`DocSink::decode_yaml`] makes of one document.
    type Yaml: Send;
    /// Decode one YAML document's value, on any thread (documents of a YAML file are parsed
    /// in parallel); the results are handed to [`DocSink::take_yaml`] in file order.
    fn decode_yaml(
        &self,
        path: &Arc<Path>,
        line: usize,
        value: serde_json::Value,
    ) -> Result<Self::Yaml, Error>;
    /// Decode one YAML document that the fast reader wrote as JSON text (an object), on any
    /// thread: what [`DocSink::decode_yaml`] would make of its value, without the value.
    /// `None` when the value must decide instead: every error, and any case the text does not
    /// settle at once, is then decoded from the value as before, so that messages and results
    /// stay the same.
    fn decode_yaml_json(&self, path: &Arc<Path>, line: usize, json: &[u8]) -> Option<Self::Yaml>;
    /// Keep one decoded YAML document.
    fn take_yaml(&mut self, item: Self::Yaml);
}

/// [`routing`] for a document already read into a value (YAML).
fn routing_of_value(
    path: &Arc<Path>,
    line: usize,
    value: &serde_json::Value,
    filter: &PackageFilter,
) -> Result<(String, Routing, bool), Error> {
    routed(path, line, filter, || Routing::deserialize(value))
}

/// [`meta_of`] for a document already read into a value (YAML): the blob is its JSON text.
fn meta_of_value(
    path: &Arc<Path>,
    line: usize,
    value: &serde_json::Value,
    schema: String,
    routing: Routing,
) -> Result<Meta, Error> {
    let origin = || Origin {
        file: path.clone(),
        line,
    };
    let text = serde_json::to_string(value).map_err(|source| Error::Json {
        origin: origin(),
        source,
    })?;
    let blob = RawValue::from_string(text).map_err(|source| Error::Json {
        origin: origin(),
        source,
    })?;
    Ok(Meta {
        schema,
        package: routing.package,
        name: routing.name,
        blob,
        origin: origin(),
    })
}

/// The routing keys of a document read from its first members without parsing the rest, for
/// documents that typed decoding will check in full. `None` whenever this is not certain
/// (escapes, a value that is not a plain string, a repeated key, no `schema`): the caller
/// then runs the full routing parse.
fn sniff_routing(doc: &[u8]) -> Option<Routing> {
    fn ws(doc: &[u8], mut i: usize) -> usize {
        while i < doc.len() && doc[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    }
    /// The end (after the closing quote) of a string starting at `i`, and whether it had
    /// escapes.
    fn string_end(doc: &[u8], i: usize) -> Option<(usize, bool)> {
        let mut j = i + 1;
        let mut escaped = false;
        loop {
            let k = j + memchr::memchr2(b'"', b'\\', doc.get(j..)?)?;
            if doc[k] == b'"' {
                return Some((k + 1, escaped));
            }
            escaped = true;
            j = k + 2;
        }
    }
    fn value_end(doc: &[u8], i: usize) -> Option<usize> {
        match *doc.get(i)? {
            b'"' => string_end(doc, i).map(|(e, _)| e),
            b'{' | b'[' => {
                let mut depth = 0usize;
                let mut j = i;
                loop {
                    match *doc.get(j)? {
                        b'"' => {
                            j = string_end(doc, j)?.0;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                return Some(j + 1);
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
            }
            _ => {
                let mut j = i;
                while j < doc.len() && !matches!(doc[j], b',' | b'}' | b']') {
                    j += 1;
                }
                Some(j)
            }
        }
    }
    let mut i = ws(doc, 0);
    if doc.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    let mut found: [Option<String>; 3] = [None, None, None];
    loop {
        i = ws(doc, i);
        if *doc.get(i)? != b'"' {
            return None;
        }
        let (key_end, escaped) = string_end(doc, i)?;
        if escaped {
            return None;
        }
        let key = std::str::from_utf8(&doc[i + 1..key_end - 1]).ok()?;
        i = ws(doc, key_end);
        if *doc.get(i)? != b':' {
            return None;
        }
        i = ws(doc, i + 1);
        let slot = ["schema", "package", "name"]
            .iter()
            .position(|k| key.eq_ignore_ascii_case(k));
        if let Some(slot) = slot {
            if found[slot].is_some() || *doc.get(i)? != b'"' {
                return None;
            }
            let (end, escaped) = string_end(doc, i)?;
            if escaped {
                return None;
            }
            found[slot] = Some(std::str::from_utf8(&doc[i + 1..end - 1]).ok()?.to_owned());
            i = end;
            if found.iter().all(Option::is_some) {
                break;
            }
        } else {
            i = value_end(doc, i)?;
        }
        i = ws(doc, i);
        match *doc.get(i)? {
            b',' => i += 1,
            b'}' => break,
            _ => return None,
        }
    }
    let [schema, package, name] = found;
    Some(Routing {
        schema: Some(schema.filter(|s| !s.is_empty())?),
        package: package.unwrap_or_default(),
        name: name.unwrap_or_default(),
    })
}

/// Parse the routing keys of one document: its schema, keys, and whether the filter keeps it.
fn routing(
    path: &Arc<Path>,
    line: usize,
    doc: &[u8],
    filter: &PackageFilter,
) -> Result<(String, Routing, bool), Error> {
    routed(path, line, filter, || serde_json::from_slice(doc))
}

/// The routing keys `decode` reads, checked for a schema, and whether the filter keeps them.
fn routed(
    path: &Arc<Path>,
    line: usize,
    filter: &PackageFilter,
    decode: impl FnOnce() -> Result<Routing, serde_json::Error>,
) -> Result<(String, Routing, bool), Error> {
    let origin = || Origin {
        file: path.clone(),
        line,
    };
    let routing = decode().map_err(|source| Error::Json {
        origin: origin(),
        source,
    })?;
    let schema = match &routing.schema {
        Some(s) if !s.is_empty() => s.clone(),
        _ => return Err(Error::MissingSchema { origin: origin() }),
    };
    let kept = filter.keeps_doc(&schema, &routing.package, &routing.name);
    Ok((schema, routing, kept))
}

fn meta_of(
    path: &Arc<Path>,
    line: usize,
    doc: &[u8],
    schema: String,
    routing: Routing,
) -> Result<Meta, Error> {
    let origin = || Origin {
        file: path.clone(),
        line,
    };
    let text = std::str::from_utf8(doc).map_err(|_| Error::NotUtf8 { origin: origin() })?;
    let blob = RawValue::from_string(text.to_owned()).map_err(|source| Error::Json {
        origin: origin(),
        source,
    })?;
    Ok(Meta {
        schema,
        package: routing.package,
        name: routing.name,
        blob,
        origin: origin(),
    })
}

/// Keeps [`Meta`]s.
struct MetaSink<'f> {
    filter: &'f PackageFilter,
    out: FileDocs,
}

impl DocSink for MetaSink<'_> {
    fn doc(
        &mut self,
        path: &Arc<Path>,
        line: usize,
        _offset: Option<u64>,
        doc: &[u8],
    ) -> Result<(), Error> {
        let (schema, r, kept) = routing(path, line, doc, self.filter)?;
        self.out.read += 1;
        if kept {
            self.out.metas.push(meta_of(path, line, doc, schema, r)?);
        }
        Ok(())
    }
    fn reset(&mut self) {
        self.out.metas.clear();
        self.out.read = 0;
    }
    type Yaml = Option<Meta>;
    fn decode_yaml(
        &self,
        path: &Arc<Path>,
        line: usize,
        value: serde_json::Value,
    ) -> Result<Option<Meta>, Error> {
        let (schema, r, kept) = routing_of_value(path, line, &value, self.filter)?;
        if !kept {
            return Ok(None);
        }
        meta_of_value(path, line, &value, schema, r).map(Some)
    }
    fn decode_yaml_json(&self, path: &Arc<Path>, line: usize, json: &[u8]) -> Option<Option<Meta>> {
        let (schema, r, kept) = routing(path, line, json, self.filter).ok()?;
        if !kept {
            return Some(None);
        }
        meta_of(path, line, json, schema, r).ok().map(Some)
    }
    fn take_yaml(&mut self, item: Option<Meta>) {
        self.out.read += 1;
        self.out.metas.extend(item);
    }
}

/// Read one file's documents, keeping those the filter wants.
pub fn read_file(path: &Path, filter: &PackageFilter) -> Result<FileDocs, Error> {
    let mut sink = MetaSink {
        filter,
        out: FileDocs {
            sha256: [0; 32],
            metas: Vec::new(),
            read: 0,
        },
    };
    sink.out.sha256 = read_with(&Arc::from(path), &mut sink, true, Caps::DEFAULT)?;
    Ok(sink.out)
}

/// Read one file, feeding each document to `sink`; returns the file's sha256 (zeros when
/// `digest` is false).
fn read_with<S: DocSink + Sync>(
    path: &Arc<Path>,
    sink: &mut S,
    digest: bool,
    caps: Caps,
) -> Result<[u8; 32], Error> {
    let io_err = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    // Regular files only, capped by bytes read (issue 14), and refused before reading when
    // they report more than the cap.
    let open = || -> Result<_, Error> {
        Ok(HashingReader {
            inner: crate::fsread::open_capped(path, caps.file, None).map_err(io_err)?,
            hasher: digest.then(Sha256::new),
        })
    };
    let mut reader = open()?;
    let mut buf = Vec::with_capacity(64 * 1024);
    // Sniff the first non-whitespace byte. Whitespace beyond the document cap is read as the
    // start of a YAML document, which the cap then refuses (so this buffer stays bounded).
    let first = loop {
        let n = reader
            .by_ref()
            .take(64 * 1024)
            .read_to_end(&mut buf)
            .map_err(io_err)?;
        if let Some(b) = buf.iter().find(|b| !b.is_ascii_whitespace()) {
            break Some(*b);
        }
        if n == 0 || buf.len() > caps.document {
            break None;
        }
    };
    if first == Some(b'{') {
        match read_json(path, &mut reader, buf, sink, caps) {
            Ok(()) => {}
            Err(JsonFailure::Fatal(e)) => return Err(e),
            Err(JsonFailure::Fallback(json_err)) => {
                // apimachinery falls back to YAML when the first object does not decode.
                // The file is read again from the start, streamed like any YAML file (the
                // only case with a second read).
                let mut reader = open()?;
                sink.reset();
                return match read_yaml(path, &mut reader, Vec::new(), sink, caps) {
                    Ok(()) => Ok(reader
                        .hasher
                        .map(|h| h.finalize().into())
                        .unwrap_or_default()),
                    Err(e @ Error::Io { .. }) => Err(e),
                    // Neither JSON nor YAML: the JSON error says more about a `{` file.
                    Err(_) => Err(*json_err),
                };
            }
        }
    } else {
        read_yaml(path, &mut reader, buf, sink, caps)?;
    }
    Ok(reader
        .hasher
        .map(|h| h.finalize().into())
        .unwrap_or_default())
}

enum JsonFailure {
    Fatal(Error),
    Fallback(Box<Error>),
}

/// Split a JSON stream into top-level objects without holding the whole file: at most one
/// document (up to `caps.document` bytes) and one read chunk.
fn read_json<R: Read, S: DocSink + Sync>(
    path: &Arc<Path>,
    reader: &mut R,
    mut buf: Vec<u8>,
    sink: &mut S,
    caps: Caps,
) -> Result<(), JsonFailure> {
    let io_err = |source| {
        JsonFailure::Fatal(Error::Io {
            path: path.to_path_buf(),
            source,
        })
    };
    let mut base = 0u64; // file offset of buf[0]
    let mut pos = 0usize; // start of unconsumed data in buf
    let mut line = 1usize; // line number at buf[pos]
    let mut eof = false;
    let mut decoded = 0usize;
    loop {
        // Skip whitespace between documents.
        loop {
            while pos < buf.len() && buf[pos].is_ascii_whitespace() {
                if buf[pos] == b'\n' {
                    line += 1;
                }
                pos += 1;
            }
            if pos < buf.len() || eof {
                break;
            }
            base += buf.len() as u64;
            buf.clear();
            pos = 0;
            eof = fill(reader, &mut buf).map_err(io_err)?;
        }
        if pos >= buf.len() {
            return Ok(());
        }
        let origin = Origin {
            file: path.clone(),
            line,
        };
        // While at most one object has decoded, a failure sends the file to YAML.
        let fail = |e: Error| {
            if decoded <= 1 {
                JsonFailure::Fallback(Box::new(e))
            } else {
                JsonFailure::Fatal(e)
            }
        };
        let too_large = |origin: &Origin| {
            fail(Error::DocumentTooLarge {
                origin: origin.clone(),
                limit: caps.document,
            })
        };
        if buf[pos] != b'{' {
            return Err(fail(Error::NotAnObject {
                origin,
                found: describe_json_start(buf[pos]),
            }));
        }
        // Find the end of the object: track brace depth outside strings.
        let mut scan = pos;
        let mut depth = 0usize;
        let mut in_string = false;
        let end = loop {
            let found = if scan >= buf.len() {
                None
            } else if in_string {
                memchr::memchr2(b'"', b'\\', &buf[scan..])
            } else {
                memchr::memchr3(b'"', b'{', b'}', &buf[scan..])
            };
            match found {
                Some(off) => {
                    let i = scan + off;
                    match buf[i] {
                        b'\\' => scan = i + 2,
                        b'"' => {
                            in_string = !in_string;
                            scan = i + 1;
                        }
                        b'{' => {
                            depth += 1;
                            scan = i + 1;
                        }
                        _ => {
                            depth -= 1;
                            scan = i + 1;
                            if depth == 0 {
                                break Some(scan);
                            }
                        }
                    }
                }
                None => {
                    if eof {
                        break None;
                    }
                    // The document goes on past the cap: refused before more is read.
                    if buf.len() - pos > caps.document {
                        return Err(too_large(&origin));
                    }
                    // Need more data: drop the consumed prefix, read another chunk.
                    if pos > 0 {
                        base += pos as u64;
                        buf.drain(..pos);
                        scan -= pos;
                        pos = 0;
                    }
                    // `scan` may point one past the end (a backslash was the last byte);
                    // it then skips the first byte of the new chunk, as it should.
                    eof = fill(reader, &mut buf).map_err(io_err)?;
                }
            }
        };
        let Some(end) = end else {
            // Truncated object: let serde_json name the problem.
            let source = serde_json::from_slice::<IgnoredAny>(&buf[pos..])
                .err()
                .unwrap_or_else(|| <serde_json::Error as de::Error>::custom("unexpected end"));
            return Err(fail(Error::Json { origin, source }));
        };
        if end - pos > caps.document {
            return Err(too_large(&origin));
        }
        let doc = &buf[pos..end];
        match sink.doc(path, line, Some(base + pos as u64), doc) {
            Ok(()) => decoded += 1,
            Err(e @ Error::Json { .. }) if decoded <= 1 => {
                return Err(JsonFailure::Fallback(Box::new(e)));
            }
            Err(e) => return Err(JsonFailure::Fatal(e)),
        }
        line += memchr::memchr_iter(b'\n', doc).count();
        pos = end;
    }
}

/// Append up to [`CHUNK`] bytes; returns `true` at end of file.
fn fill<R: Read>(reader: &mut R, buf: &mut Vec<u8>) -> std::io::Result<bool> {
    // `read_to_end` reads into the spare capacity without zeroing it first and grows the
    // buffer by what arrives, so a small file costs its size, not a zeroed chunk.
    let n = reader.by_ref().take(CHUNK as u64).read_to_end(buf)?;
    Ok(n < CHUNK)
}

fn describe_json_start(b: u8) -> &'static str {
    match b {
        b'[' => "an array",
        b'"' => "a string",
        b'0'..=b'9' | b'-' => "a number",
        b't' | b'f' => "a boolean",
        b'n' => "null",
        _ => "not JSON",
    }
}

/// How many bytes of complete YAML documents are collected before they are parsed (in
/// parallel); the file is read in [`CHUNK`]s, so memory stays flat in the file's size.
const YAML_BATCH: usize = 4 * CHUNK;

/// One YAML document found by [`read_yaml`]: its byte range in the buffer and the line its
/// text starts on (the line after the `---` separator, or 1).
struct YamlDoc {
    start: usize,
    end: usize,
    first_line: usize,
}

/// Split YAML into documents on `---` lines (apimachinery `YAMLReader`: a line starting with
/// `---` separates documents; anything but a comment after it is an error) and route each.
///
/// The bytes are split in place (no per-line copy). Documents are parsed in batches of about
/// [`YAML_BATCH`] bytes on every core (each document is independent once its boundaries are
/// known), then handed to the sink in file order, so the first error in file order is the one
/// reported, as when reading one document after another. A document over `caps.document`
/// bytes is refused as soon as that many of it are read, without parsing it; the documents
/// before it are parsed first, so an error in one of them comes first.
fn read_yaml<R: Read, S: DocSink + Sync>(
    path: &Arc<Path>,
    reader: &mut R,
    mut buf: Vec<u8>,
    sink: &mut S,
    caps: Caps,
) -> Result<(), Error> {
    let io_err = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let too_large = |doc: &[u8], first_line: usize| Error::DocumentTooLarge {
        origin: Origin {
            file: path.clone(),
            line: content_line(doc, first_line).unwrap_or(first_line),
        },
        limit: caps.document,
    };
    let mut eof = false;
    let mut pos = 0usize; // start of the next line to look at
    let mut line_no = 1usize; // line number of the line at `pos`
    // `buf[pos..searched]` holds no newline (when `searched > pos`): a line longer than a
    // read is searched once, not from its start again after every read.
    let mut searched = 0usize;
    let mut doc_start = 0usize;
    let mut doc_line = 1usize;
    let mut pending: Vec<YamlDoc> = Vec::new();
    loop {
        // Look at every complete line (or the last, unterminated one at end of file).
        // `stop`: an error that ends the reading once the documents before it are parsed.
        let mut stop = None;
        while pos < buf.len() {
            let from = searched.max(pos);
            let line_end = match memchr::memchr(b'\n', &buf[from..]) {
                Some(i) => from + i + 1,
                None if eof => buf.len(),
                None => {
                    searched = buf.len();
                    break;
                }
            };
            if buf[pos..line_end].starts_with(b"---") {
                let rest = String::from_utf8_lossy(&buf[pos + 3..line_end]);
                let rest = rest.trim();
                if !rest.is_empty() && !rest.starts_with('#') {
                    stop = Some(Error::YamlSeparator {
                        origin: Origin {
                            file: path.clone(),
                            line: line_no,
                        },
                        rest: rest.to_owned(),
                    });
                    break;
                }
                if pos - doc_start > caps.document {
                    stop = Some(too_large(&buf[doc_start..pos], doc_line));
                    break;
                }
                pending.push(YamlDoc {
                    start: doc_start,
                    end: pos,
                    first_line: doc_line,
                });
                doc_start = line_end;
                doc_line = line_no + 1;
            }
            // Lines without a separator are skipped at memchr speed: jump to the next
            // newline that is followed by `---`.
            pos = line_end;
            line_no += 1;
            if pos < buf.len() && !buf[pos..].starts_with(b"---") {
                match memchr::memmem::find(&buf[pos..], b"\n---") {
                    Some(i) => {
                        line_no += memchr::memchr_iter(b'\n', &buf[pos..pos + i + 1]).count();
                        pos += i + 1;
                    }
                    None => {
                        // No separator in what is read: the rest is the current document.
                        // Keep `pos` at the start of its last line, which may continue.
                        let last = memchr::memrchr(b'\n', &buf[pos..]).map_or(pos, |i| pos + i + 1);
                        line_no += memchr::memchr_iter(b'\n', &buf[pos..last]).count();
                        pos = last;
                        searched = buf.len();
                        if !eof {
                            break;
                        }
                    }
                }
            }
        }
        if stop.is_none() {
            // What is read of the current document: all of the buffer from its start, unless
            // the unfinished line at `pos` may be a separator. Once over the cap, it is
            // refused (a document only grows).
            let partial = &buf[pos..];
            let may_separate = partial.starts_with(b"---") || b"---".starts_with(partial);
            let doc_end = if may_separate { pos } else { buf.len() };
            if doc_end - doc_start > caps.document {
                stop = Some(too_large(&buf[doc_start..doc_end], doc_line));
            } else if partial.len() > caps.document {
                // A separator line longer than any document may be: refused like one.
                stop = Some(too_large(partial, line_no));
            } else if eof {
                pending.push(YamlDoc {
                    start: doc_start,
                    end: buf.len(),
                    first_line: doc_line,
                });
            }
        }
        let batch_bytes =
            pending.last().map_or(0, |d| d.end) - pending.first().map_or(0, |d| d.start);
        if eof || stop.is_some() || batch_bytes >= YAML_BATCH {
            yaml_batch(path, &buf, &pending, sink)?;
            pending.clear();
            if let Some(e) = stop {
                return Err(e);
            }
            if eof {
                return Ok(());
            }
            // Drop what was parsed; the current document and the unread line stay.
            buf.drain(..doc_start);
            pos -= doc_start;
            searched = searched.saturating_sub(doc_start);
            doc_start = 0;
        }
        eof = fill(reader, &mut buf).map_err(io_err)?;
    }
}

/// The line of a YAML document that starts on `first_line`: its first line that is neither
/// blank nor a comment; `None` when it has none (an empty document).
fn content_line(doc: &[u8], first_line: usize) -> Option<usize> {
    doc.split(|b| *b == b'\n')
        .position(|l| {
            let t = l.trim_ascii_start();
            !t.is_empty() && !t.starts_with(b"#")
        })
        .map(|i| first_line + i)
}

/// Parse a batch of documents on every core, then hand them to the sink in order.
fn yaml_batch<S: DocSink + Sync>(
    path: &Arc<Path>,
    buf: &[u8],
    docs: &[YamlDoc],
    sink: &mut S,
) -> Result<(), Error> {
    let shared: &S = sink;
    let parsed: Vec<Result<Option<S::Yaml>, Error>> = docs
        .par_iter()
        .map(|d| yaml_doc(path, d.first_line, &buf[d.start..d.end], shared))
        .collect();
    for item in parsed {
        if let Some(item) = item? {
            sink.take_yaml(item);
        }
    }
    Ok(())
}

/// Parse one YAML document and decode it for the sink; `None` for an empty document.
fn yaml_doc<S: DocSink>(
    path: &Arc<Path>,
    first_line: usize,
    doc: &[u8],
    sink: &S,
) -> Result<Option<S::Yaml>, Error> {
    // The document's line: its first line that is neither blank nor a comment.
    let Some(line) = content_line(doc, first_line) else {
        return Ok(None);
    };
    let origin = || Origin {
        file: path.clone(),
        line,
    };
    let text = std::str::from_utf8(doc).map_err(|_| Error::NotUtf8 { origin: origin() })?;
    // The fast reader takes the block-style subset catalogs are written in and writes it as
    // JSON text (no value is built), which the sink decodes as it decodes a JSON file:
    // property values are slices of that text, copied once. Whenever the text does not
    // settle a document at once, and for every error, the document is read into a JSON value
    // first (from the same text, or by serde-saphyr outside the subset) and decoded from the
    // value, as before: that fixes the reading of every scalar (YAML 1.2 core schema).
    let fast = if FAST_YAML.load(std::sync::atomic::Ordering::Relaxed) {
        JSON_TEXT.with_borrow_mut(|json| {
            super::fastyaml::to_json(text, json)?;
            let decoded = if json.first() == Some(&b'{') {
                sink.decode_yaml_json(path, line, json)
            } else {
                None
            };
            let read = match decoded {
                Some(item) => Some(Ok(item)),
                None => serde_json::from_slice::<serde_json::Value>(json)
                    .ok()
                    .map(Err),
            };
            if json.capacity() > YAML_BATCH {
                *json = Vec::new();
            }
            read
        })
    } else {
        None
    };
    let fast = match fast {
        Some(Ok(item)) => return Ok(Some(item)),
        Some(Err(value)) => Some(value),
        None => None,
    };
    let value: serde_json::Value = match fast {
        Some(v) => v,
        None => serde_saphyr::from_str_with_options(text, yaml_options()).map_err(|source| {
            Error::Yaml {
                origin: origin(),
                source: Box::new(source),
            }
        })?,
    };
    match &value {
        serde_json::Value::Null => return Ok(None),
        serde_json::Value::Object(_) => {}
        other => {
            return Err(Error::NotAnObject {
                origin: origin(),
                found: match other {
                    serde_json::Value::Array(_) => "an array",
                    serde_json::Value::String(_) => "a string",
                    serde_json::Value::Number(_) => "a number",
                    _ => "a boolean",
                },
            });
        }
    }
    sink.decode_yaml(path, line, value).map(Some)
}

thread_local! {
    /// The JSON text of the YAML document being read on this thread (kept between
    /// documents, so that its allocation is reused).
    static JSON_TEXT: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Whether YAML documents go through [`super::fastyaml`] first (on unless a benchmark
/// turns it off).
static FAST_YAML: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Turn the fast YAML reader ([`super::fastyaml`]) on or off for this process, so a benchmark
/// can time serde-saphyr alone on the same catalog. Results are the same either way.
#[doc(hidden)]
pub fn set_fast_yaml(enabled: bool) {
    FAST_YAML.store(enabled, std::sync::atomic::Ordering::Relaxed);
}

/// Walk a catalog one document at a time, in the loader's order, calling `f` for every
/// document the filter keeps. Returns the content digest.
pub fn walk(
    path: &Path,
    filter: &PackageFilter,
    mut f: impl FnMut(Meta) -> Result<(), Error>,
) -> Result<String, Error> {
    let files = catalog_files(path)?;
    let mut digests = Vec::with_capacity(files.files.len());
    for (file, rel) in &files.files {
        let docs = read_file(file, filter)?;
        digests.push((rel.as_str(), docs.sha256));
        for m in docs.metas {
            f(m)?;
        }
    }
    Ok(combine_digest(files.single_file, &digests))
}

/// A typed object with the place it was read from.
#[derive(Debug, Clone)]
pub struct Located<T> {
    /// The object.
    pub item: T,
    /// File and line of its document.
    pub origin: Origin,
}

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
    /// The catalog path given to [`load_with`].
    pub root: Option<PathBuf>,
    /// With [`LoadOptions::lazy_documents`], the `olm.channel` and `olm.bundle` blobs (and
    /// [`DeclarativeConfig::channels`] and [`DeclarativeConfig::bundles`] are empty).
    pub lazy: LazyDocs,
}

/// Largest `olm.channel` or `olm.bundle` document that a load with
/// [`LoadOptions::lazy_documents`] leaves in its file. Small documents cost several times
/// their size once decoded (a 216-byte bundle took 488 bytes, its channel entry 160 more);
/// larger ones are mostly embedded manifests, which stay in the file anyway
/// ([`LoadOptions::lazy_bundle_objects`]) and are not worth decoding twice.
pub const LAZY_DOCUMENT_BYTES: usize = 64 << 10;

/// Where a document left in its JSON file is (see [`LoadOptions::lazy_documents`]).
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
}

/// A channel or bundle as a load with [`LoadOptions::lazy_documents`] keeps it.
#[derive(Debug)]
pub enum Kept<T> {
    /// Decoded: a large document, or one from a YAML file.
    Decoded(Box<Located<T>>),
    /// Left in its file.
    InFile(DocRef),
}

/// The channels and bundles of a load with [`LoadOptions::lazy_documents`], each list in load
/// order: small ones of JSON files as their place only, the others decoded.
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
    /// ([`LoadOptions::lazy_bundle_objects`]).
    pub lazy_bundle_objects: bool,
    /// Whether csv metadata values are kept when bundles are decoded again
    /// ([`LoadOptions::keep_csv_metadata`]); without it they are checked as they are read.
    pub keep_csv_metadata: bool,
}

/// What [`LazyDocs`] keeps: a channel or a bundle.
pub(crate) trait LazyDoc: for<'a> Deserialize<'a> + Compact {
    /// Its `package`.
    fn package(&self) -> &str;
    /// Whether its bundle object values may stay in the file.
    const BUNDLE: bool;
    /// Its list in a load without [`LoadOptions::lazy_documents`].
    fn eager(dc: &mut DeclarativeConfig) -> &mut Vec<Located<Self>>;
    /// Its list in [`LazyDocs`].
    fn lazy(docs: &mut LazyDocs) -> &mut Vec<Kept<Self>>;
}

impl LazyDoc for Channel {
    fn package(&self) -> &str {
        &self.package
    }
    const BUNDLE: bool = false;
    fn eager(dc: &mut DeclarativeConfig) -> &mut Vec<Located<Self>> {
        &mut dc.channels
    }
    fn lazy(docs: &mut LazyDocs) -> &mut Vec<Kept<Self>> {
        &mut docs.channels
    }
}

impl LazyDoc for Bundle {
    fn package(&self) -> &str {
        &self.package
    }
    const BUNDLE: bool = true;
    fn eager(dc: &mut DeclarativeConfig) -> &mut Vec<Located<Self>> {
        &mut dc.bundles
    }
    fn lazy(docs: &mut LazyDocs) -> &mut Vec<Kept<Self>> {
        &mut docs.bundles
    }
}

impl LazyDocs {
    /// Documents left in a file further apart than this are read separately.
    const GAP: u64 = 64 << 10;
    /// The most read back at once.
    const SPAN: u64 = 4 << 20;

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
        let start = first.offset;
        let len = usize::try_from(last.offset + u64::from(last.len) - start)
            .map_err(|_| changed(file))?;
        let mut bytes = vec![0u8; len];
        {
            use std::io::{Seek, SeekFrom};
            let mut f = crate::fsread::open(file, None).map_err(io_err)?;
            f.seek(SeekFrom::Start(start)).map_err(io_err)?;
            f.read_exact(&mut bytes).map_err(io_err)?;
        }
        for r in run.drain(..) {
            let at = (r.offset - start) as usize;
            let Some(doc) = bytes.get(at..at + r.len as usize) else {
                return Err(changed(file));
            };
            let place = (T::BUNDLE && self.lazy_bundle_objects).then_some(DocPlace {
                start: doc.as_ptr() as usize,
                len: doc.len(),
                offset: r.offset,
            });
            DOC_PLACE.set(place);
            if T::BUNDLE && !self.keep_csv_metadata {
                // Checked now, as a bundle read once is: the first read only kept its place.
                CSV_CHECK.set(CsvCheck::Check);
            }
            let item = serde_json::from_slice::<T>(doc);
            DOC_PLACE.set(None);
            CSV_CHECK.set(CsvCheck::Keep);
            match item {
                Ok(item)
                    if Some(item.package())
                        == self.packages.get(r.package as usize).map(String::as_str) =>
                {
                    out.push(kept(
                        item,
                        Origin {
                            file: file.clone(),
                            line: r.line as usize,
                        },
                    ))
                }
                _ => return Err(changed(file)),
            }
        }
        Ok(())
    }

    /// Append another file's documents (its indexes renumbered).
    fn append(&mut self, other: LazyDocs, names: &mut std::collections::HashMap<String, u32>) {
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

/// The index of `name` in `names` (added when new), through the lookup `index`.
fn intern(
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

#[derive(Default)]
struct FileConfig {
    dc: DeclarativeConfig,
    sha256: [u8; 32],
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
        }
    }

    /// Whether a document of `len` bytes read at `offset` (a JSON file's own bytes) is left
    /// in its file once decoded ([`LoadOptions::lazy_documents`]): decided before it is
    /// decoded, so that its csv metadata is not checked twice ([`CsvCheck::Later`]).
    fn stays_in_file(&self, offset: Option<u64>, len: usize) -> bool {
        self.lazy_docs && offset.is_some() && len <= LAZY_DOCUMENT_BYTES
    }

    /// Keep a decoded channel or bundle. With [`LoadOptions::lazy_documents`], a small one of
    /// a JSON file (`place`: its offset and length) is left there: only its place is kept.
    fn keep<T: LazyDoc>(&mut self, doc: Located<T>, place: Option<(u64, usize)>) {
        if !self.lazy_docs {
            T::eager(&mut self.out).push(doc);
            return;
        }
        let in_file = place
            .filter(|&(offset, len)| self.stays_in_file(Some(offset), len))
            .map(|(offset, len)| DocRef {
                file: 0,
                package: 0,
                // A file is at most 1 GiB, so its lines and a small document's length fit.
                line: u32::try_from(doc.origin.line).unwrap_or(u32::MAX),
                len: u32::try_from(len).unwrap_or(u32::MAX),
                offset,
            });
        let kept = match in_file {
            Some(r) => Kept::InFile(DocRef {
                package: intern(
                    &mut self.out.lazy.packages,
                    &mut self.names,
                    doc.item.package(),
                ),
                ..r
            }),
            None => Kept::Decoded(Box::new(doc)),
        };
        T::lazy(&mut self.out.lazy).push(kept);
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

/// A decoded item, compacted, with its origin.
fn kept<T: Compact>(mut item: T, origin: Origin) -> Located<T> {
    item.compact();
    Located { item, origin }
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
            self.take(item, offset.map(|offset| (offset, doc.len())));
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
        let in_file = offset.map(|offset| (offset, doc.len()));
        match schema.as_str() {
            SCHEMA_PACKAGE => {
                let package = decode(path, line, doc, &schema, &r)?;
                self.out.packages.push(package)
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
    fn take_yaml(&mut self, item: YamlItem) {
        self.take(item, None);
    }
}

impl TypedSink<'_> {
    /// Keep one decoded document; `in_file` is its place when it is a JSON file's own bytes.
    fn take(&mut self, item: YamlItem, in_file: Option<(u64, usize)>) {
        if let YamlItem::Channel(_) | YamlItem::Bundle(_) = item {
            self.out.documents_read += 1;
            match item {
                YamlItem::Channel(c) => self.keep(c, in_file),
                YamlItem::Bundle(b) => self.keep(b, in_file),
                _ => {}
            }
            return;
        }
        let dc = &mut self.out;
        dc.documents_read += 1;
        match item {
            YamlItem::Package(p) => dc.packages.push(p),
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
    /// values in place ([`DOC_PLACE`], [`CSV_CHECK`]). `offset` is `None` exactly for text the
    /// fast YAML reader wrote.
    fn in_bundle<R>(&self, offset: Option<u64>, doc: &[u8], decode: impl FnOnce() -> R) -> R {
        /// Clears the settings however `decode` ends.
        struct Reset;
        impl Drop for Reset {
            fn drop(&mut self) {
                DOC_PLACE.set(None);
                CSV_CHECK.set(CsvCheck::Keep);
            }
        }
        let place = offset.filter(|_| self.lazy).map(|offset| DocPlace {
            start: doc.as_ptr() as usize,
            len: doc.len(),
            offset,
        });
        DOC_PLACE.set(place);
        CSV_CHECK.set(match (self.keep_csv, offset) {
            (true, _) => CsvCheck::Keep,
            (false, Some(_)) if self.stays_in_file(offset, doc.len()) => CsvCheck::Later,
            (false, Some(_)) => CsvCheck::Check,
            (false, None) => CsvCheck::Written,
        });
        let _reset = Reset;
        decode()
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

fn is_known_schema(schema: &str) -> bool {
    matches!(
        schema,
        SCHEMA_PACKAGE | SCHEMA_CHANNEL | SCHEMA_BUNDLE | SCHEMA_DEPRECATIONS
    )
}

fn decode_file(
    path: &Path,
    filter: &PackageFilter,
    options: &LoadOptions,
) -> Result<FileConfig, Error> {
    // Only a regular file can be read again later (not a pipe or a device).
    let lazy = options.lazy_bundle_objects
        && std::fs::metadata(path).is_ok_and(|m| m.file_type().is_file());
    let mut sink = TypedSink::new(
        filter,
        lazy,
        options.lazy_documents,
        options.keep_csv_metadata,
    );
    let file: Arc<Path> = Arc::from(path);
    let sha256 = read_with(&file, &mut sink, options.digest, Caps::DEFAULT)?;
    if options.lazy_documents {
        sink.out.lazy.files = vec![file];
        sink.out.lazy.lazy_bundle_objects = lazy;
        sink.out.lazy.keep_csv_metadata = options.keep_csv_metadata;
    }
    Ok(FileConfig {
        dc: sink.out,
        sha256,
    })
}

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
    /// [`PropertyValue::InFile`], its byte range, instead of the value (`model::Bundle` reads it back
    /// when asked for its objects). Values from YAML files, and values that do not have
    /// the `{"data": …}` shape, stay in memory.
    pub lazy_bundle_objects: bool,
    /// Keep `olm.csv.metadata` values. Without it (a load for validation alone), a value is
    /// checked as it is read (rule 5) and only the outcome is kept
    /// ([`PropertyValue::Checked`]): the values are most of a catalog of small bundles, and
    /// validation needs nothing else of them. Values read from a YAML document that only
    /// serde-saphyr reads are kept either way.
    pub keep_csv_metadata: bool,
    /// Leave small (at most [`LAZY_DOCUMENT_BYTES`]) `olm.channel` and `olm.bundle` documents
    /// of JSON files in the file, once decoded and checked: only their place is kept, and
    /// [`super::link::build_with`] decodes them again package by package, so `catalog
    /// validate` never holds every document decoded. The channels and bundles then go to
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
    let files = catalog_files(path)?;
    let parts: Vec<Result<FileConfig, Error>> = files
        .files
        .par_iter()
        .map(|(file, _)| decode_file(file, filter, options))
        .collect();
    let mut parts = parts
        .into_iter()
        .collect::<Result<Vec<FileConfig>, Error>>()?;
    let digests: Vec<(&str, [u8; 32])> = parts
        .iter()
        .zip(&files.files)
        .map(|(part, (_, rel))| (rel.as_str(), part.sha256))
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
    }
    dc.root = Some(files.root.clone());
    Ok(dc)
}

/// The content digest of a catalog path without parsing it (see [`super::content_digest`]).
pub fn digest_only(path: &Path) -> Result<String, Error> {
    let files = catalog_files(path)?;
    let mut digests = Vec::with_capacity(files.files.len());
    for (file, rel) in &files.files {
        let mut f =
            crate::fsread::open_capped(file, MAX_CATALOG_FILE_BYTES, None).map_err(|source| {
                Error::Io {
                    path: file.clone(),
                    source,
                }
            })?;
        let mut h = Sha256::new();
        let mut buf = vec![0u8; CHUNK];
        loop {
            let n = match f.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    return Err(Error::Io {
                        path: file.clone(),
                        source,
                    });
                }
            };
            h.update(&buf[..n]);
        }
        digests.push((rel.as_str(), h.finalize().into()));
    }
    Ok(combine_digest(files.single_file, &digests))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::property::{PROPERTY_MAX_OPENSHIFT_VERSION, PROPERTY_PACKAGE};

    fn write(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn names(dc: &DeclarativeConfig) -> Vec<(String, usize)> {
        let mut v: Vec<(String, usize)> = dc
            .packages
            .iter()
            .map(|p| (p.item.name.clone(), p.origin.line))
            .chain(
                dc.channels
                    .iter()
                    .map(|c| (c.item.name.clone(), c.origin.line)),
            )
            .chain(
                dc.bundles
                    .iter()
                    .map(|b| (b.item.name.clone(), b.origin.line)),
            )
            .collect();
        v.sort();
        v
    }

    fn load_text(name: &str, text: &str) -> Result<DeclarativeConfig, Error> {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), name, text);
        load(&dir.path().join(name), &PackageFilter::All)
    }

    const P: &str = r#"{"schema":"olm.package","name":"a","defaultChannel":"s"}"#;
    const C: &str =
        r#"{"schema":"olm.channel","package":"a","name":"s","entries":[{"name":"a.v1"}]}"#;

    mod json {
        use super::*;

        #[test]
        fn lines() {
            let dc = load_text("c.json", &format!("{P}\n{C}\n")).unwrap();
            assert_eq!(names(&dc), [("a".into(), 1), ("s".into(), 2)]);
        }
        #[test]
        fn stream_without_newlines() {
            let dc = load_text("c.json", &format!("{P}{C}")).unwrap();
            assert_eq!(names(&dc), [("a".into(), 1), ("s".into(), 1)]);
        }
        #[test]
        fn stream_indented_like_opm_render() {
            let p: serde_json::Value = serde_json::from_str(P).unwrap();
            let c: serde_json::Value = serde_json::from_str(C).unwrap();
            let text = format!(
                "{}\n{}\n",
                serde_json::to_string_pretty(&p).unwrap(),
                serde_json::to_string_pretty(&c).unwrap()
            );
            let dc = load_text("c.json", &text).unwrap();
            assert_eq!(names(&dc), [("a".into(), 1), ("s".into(), 6)]);
        }
        #[test]
        fn braces_and_escapes_inside_strings() {
            let text = r#"{"schema":"olm.package","name":"a","description":"} \" { \\"}  {"schema":"olm.package","name":"b"}"#;
            let dc = load_text("c.json", text).unwrap();
            assert_eq!(dc.packages.len(), 2);
            assert_eq!(dc.packages[0].item.description, r#"} " { \"#);
        }
        #[test]
        fn objects_larger_than_a_read_chunk() {
            // Escapes and braces straddle the 1 MiB chunk boundaries.
            let desc = "\\\"{}".repeat(CHUNK / 2);
            let text = format!(
                "{P}\n{{\"schema\":\"olm.package\",\"name\":\"b\",\"description\":\"{desc}\"}}\n{C}\n"
            );
            let dc = load_text("c.json", &text).unwrap();
            assert_eq!(dc.packages.len(), 2);
            assert_eq!(dc.packages[1].item.description, "\"{}".repeat(CHUNK / 2));
            assert_eq!(dc.channels[0].origin.line, 3);
        }
        #[test]
        fn first_object_not_json_falls_back_to_yaml() {
            let text = "{schema: olm.package, name: a, defaultChannel: s}\n";
            let dc = load_text("c.json", text).unwrap();
            assert_eq!(dc.packages[0].item.default_channel, "s");
        }
        #[test]
        fn later_object_not_json_is_an_error() {
            let text = format!("{P}\n{C}\n{{schema: olm.package}}\n");
            let e = load_text("c.json", &text).unwrap_err();
            assert!(
                matches!(e, Error::Json { ref origin, .. } if origin.line == 3),
                "{e}"
            );
        }
        #[test]
        fn top_level_array_is_an_error() {
            let e = load_text("c.json", &format!("[{P}]")).unwrap_err();
            assert!(
                matches!(
                    e,
                    Error::NotAnObject {
                        found: "an array",
                        ..
                    }
                ),
                "{e}"
            );
        }
        #[test]
        fn missing_schema_names_file_and_line() {
            let e = load_text("c.json", &format!("{P}\n\n{{\"name\":\"x\"}}\n")).unwrap_err();
            assert!(
                matches!(e, Error::MissingSchema { ref origin } if origin.line == 3),
                "{e}"
            );
            assert!(
                e.to_string()
                    .ends_with("c.json:3: object is missing root schema field"),
                "{e}"
            );
        }
        #[test]
        fn keys_match_case_insensitively() {
            let dc = load_text(
                "c.json",
                r#"{"Schema":"olm.package","NAME":"a","DefaultChannel":"s"}"#,
            )
            .unwrap();
            assert_eq!(dc.packages[0].item.name, "a");
            assert_eq!(dc.packages[0].item.default_channel, "s");
        }
        #[test]
        fn routing_keys_differing_by_case_are_an_error() {
            let e = load_text(
                "c.json",
                r#"{"schema":"olm.package","name":"a","Name":"b"}"#,
            )
            .unwrap_err();
            assert!(matches!(e, Error::Json { .. }), "{e}");
        }
        #[test]
        fn routing_rules_hold_after_the_sniffed_members() {
            // The routing keys are sniffed from the first members; what follows them still
            // obeys the routing pass: the last duplicate wins, case variants and non-string
            // values are errors.
            let dc = load_text(
                "c.json",
                r#"{"schema":"olm.bundle","package":"a","name":"a.v1","name":"a.v2"}"#,
            )
            .unwrap();
            assert_eq!(dc.bundles[0].item.name, "a.v2");
            for text in [
                r#"{"schema":"olm.bundle","package":"a","name":"x","Name":"y"}"#,
                r#"{"schema":"olm.package","name":"a","package":"x","package":5}"#,
                r#"{"schema":"olm.deprecations","package":"a","name":"x","NAME":"y","entries":[]}"#,
            ] {
                let e = load_text("c.json", text).unwrap_err();
                assert!(matches!(e, Error::Json { .. }), "{text}: {e}");
            }
            // Nested objects keep plain last-wins semantics.
            let dc = load_text(
                "c.json",
                r#"{"schema":"olm.bundle","package":"a","name":"a.v1","relatedImages":[{"name":"x","Name":"y","image":"i"}]}"#,
            )
            .unwrap();
            assert_eq!(dc.bundles[0].item.related_images[0].name, "y");
        }
        #[test]
        fn unknown_schemas_are_counted_and_kept_aside() {
            let dc = load_text(
                "c.json",
                &format!("{P}\n{{\"schema\":\"olm.template.basic\",\"package\":\"a\"}}\n"),
            )
            .unwrap();
            assert_eq!(dc.others_count, 1);
            assert_eq!(dc.others[0].schema, "olm.template.basic");
        }
        #[test]
        fn property_values_stay_raw() {
            let b = r#"{"schema":"olm.bundle","package":"a","name":"a.v1","properties":[{"type":"olm.maxOpenShiftVersion","value":4.10}]}"#;
            let dc = load_text("c.json", b).unwrap();
            assert_eq!(dc.bundles[0].item.properties[0].value.text(), Some("4.10"));
        }
    }

    mod yaml {
        use super::*;

        /// A YAML stream of `n` bundles of about 1 KB each after a package and a channel.
        fn many_bundles(n: usize) -> String {
            let mut text = String::from(
                "schema: olm.package\nname: a\ndefaultChannel: s\n---\nschema: olm.channel\npackage: a\nname: s\nentries: []\n",
            );
            let filler = "x".repeat(900);
            for i in 0..n {
                text += &format!(
                    "---\nschema: olm.bundle\npackage: a\nname: a.v{i}\nimage: quay.io/a:{i}\nproperties:\n- type: olm.package\n  value:\n    packageName: a\n    version: 1.0.{i}\n- type: olm.csv.metadata\n  value:\n    description: |\n      {filler}\n"
                );
            }
            text
        }

        #[test]
        fn many_documents_across_batches_keep_order_and_lines() {
            // More than one parsing batch (YAML_BATCH), read in several chunks.
            let n = YAML_BATCH / 800;
            let text = many_bundles(n);
            assert!(text.len() > YAML_BATCH + CHUNK);
            let dc = load_text("c.yaml", &text).unwrap();
            assert_eq!(dc.bundles.len(), n);
            // Each bundle's line: the one after its `---`.
            let lines: Vec<usize> = text
                .lines()
                .enumerate()
                .filter(|(_, l)| *l == "schema: olm.bundle")
                .map(|(i, _)| i + 1)
                .collect();
            for (i, b) in dc.bundles.iter().enumerate() {
                assert_eq!(b.item.name, format!("a.v{i}"));
                assert_eq!(b.origin.line, lines[i], "{}", b.item.name);
            }
            let v = b_prop(&dc.bundles[n - 1].item, PROPERTY_PACKAGE);
            assert_eq!(
                v,
                format!(r#"{{"packageName":"a","version":"1.0.{}"}}"#, n - 1)
            );
        }

        fn b_prop(b: &Bundle, ty: &str) -> String {
            b.properties
                .iter()
                .find(|p| p.ty == ty)
                .and_then(|p| p.value.text())
                .unwrap()
                .to_owned()
        }

        #[test]
        fn first_error_in_file_order_is_reported_after_a_batch() {
            let n = YAML_BATCH / 1000 + 10;
            let mut text = many_bundles(n);
            // A document without a schema far into the file, then a broken one after it.
            text += "---\nname: nameless\n---\nschema: [\n";
            let lines = text.lines().count();
            let e = load_text("c.yaml", &text).unwrap_err();
            assert!(matches!(e, Error::MissingSchema { .. }), "{e}");
            assert!(
                e.to_string().contains(&format!("c.yaml:{}", lines - 2)),
                "{e}"
            );
        }

        #[test]
        fn separator_error_comes_after_the_documents_before_it() {
            // The document just before the bad separator is not parsed (as apimachinery's
            // reader stops there); earlier ones are, in order.
            let e = load_text("c.yaml", "name: nameless\n--- x\n").unwrap_err();
            assert!(matches!(e, Error::YamlSeparator { .. }), "{e}");
            let text = "name: nameless\n---\nschema: olm.package\n--- x\n";
            let e = load_text("c.yaml", text).unwrap_err();
            assert!(matches!(e, Error::MissingSchema { .. }), "{e}");
            let e = load_text("c.yaml", &format!("{}--- x\n", many_bundles(3))).unwrap_err();
            assert!(matches!(e, Error::YamlSeparator { .. }), "{e}");
            assert!(e.to_string().contains("c.yaml:51"), "{e}");
        }

        #[test]
        fn scalars_read_as_before() {
            // Plain scalars follow the YAML 1.2 core schema: `1.10` is a number (so JSON
            // 1.1), `"4.10"` stays a string, `null` and `~` mean unset; a number where a
            // string is expected is a decode error naming the document.
            let text = "schema: olm.package\nname: a\ndefaultChannel: s\n---\nschema: olm.channel\npackage: a\nname: s\nentries: [{name: a.v1, replaces: ~}]\n---\nschema: olm.bundle\npackage: a\nname: a.v1\nimage: null\nproperties:\n- {type: olm.maxOpenShiftVersion, value: 4.10}\n- {type: x, value: \"4.10\"}\n- {type: zz, value: [true, 0x1F, 1e3]}\n";
            let dc = load_text("c.yaml", text).unwrap();
            let b = &dc.bundles[0].item;
            assert_eq!(b.image, "");
            assert_eq!(b_prop(b, PROPERTY_MAX_OPENSHIFT_VERSION), "4.1");
            assert_eq!(b_prop(b, "x"), r#""4.10""#);
            assert_eq!(b_prop(b, "zz"), "[true,31,1000.0]");
            assert_eq!(dc.channels[0].item.entries[0].replaces, "");
            let e = load_text("c.yaml", "schema: olm.package\nname: 1.0\n").unwrap_err();
            assert!(matches!(e, Error::Json { .. }), "{e}");
            let text = "schema: olm.package\nname: a\ndefaultChannel: 1.0\n";
            let e = load_text("c.yaml", text).unwrap_err();
            assert!(matches!(e, Error::Decode { .. }), "{e}");
            assert!(e.to_string().contains("c.yaml:1"), "{e}");
        }

        #[test]
        fn multi_doc_with_separators_and_comments() {
            let text = "---\n# a package\nschema: olm.package\nname: a\ndefaultChannel: s\n---\n---\n# only a comment\n--- # sep with comment\nschema: olm.channel\npackage: a\nname: s\nentries:\n  - name: a.v1\n";
            let dc = load_text("c.yaml", text).unwrap();
            assert_eq!(names(&dc), [("a".into(), 3), ("s".into(), 10)]);
        }
        #[test]
        fn separator_with_content_is_an_error() {
            let e = load_text("c.yaml", "schema: olm.package\nname: a\n--- x\n").unwrap_err();
            assert!(
                matches!(e, Error::YamlSeparator { ref origin, .. } if origin.line == 3),
                "{e}"
            );
        }
        #[test]
        fn missing_schema_names_file_and_line() {
            let e =
                load_text("c.yaml", "schema: olm.package\nname: a\n---\nname: b\n").unwrap_err();
            assert!(
                matches!(e, Error::MissingSchema { ref origin } if origin.line == 4),
                "{e}"
            );
        }
        #[test]
        fn scalar_document_is_an_error() {
            let e = load_text("README", "This is a catalog.\n").unwrap_err();
            assert!(matches!(e, Error::NotAnObject { .. }), "{e}");
        }
        #[test]
        fn duplicate_keys_keep_the_last_value() {
            let dc = load_text("c.yaml", "schema: olm.package\nname: a\nname: b\n").unwrap();
            assert_eq!(dc.packages[0].item.name, "b");
        }
    }

    mod lazy {
        //! [`LoadOptions::lazy_documents`]: small channels and bundles of JSON files are left
        //! there and decode again to what an eager load gives.
        use super::*;

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
                assert_eq!(a.item.properties, b.item.properties);
            }
            assert_eq!(lazy.packages.len(), eager.packages.len());
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

    /// The fast YAML road answers for the documents catalogs are made of, so that a change
    /// which sends them all back to the value's road fails here, not only in a benchmark.
    mod fast_road {
        use super::*;

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

    mod caps {
        //! The size caps: a document over the cap is refused while its end is looked for
        //! (small caps here, so no test writes GiBs), and a file reporting more than the
        //! file cap is refused before it is read.
        use super::*;

        /// Read `text` as file `name` with `caps`.
        fn load_capped(name: &str, text: &str, caps: Caps) -> Result<DeclarativeConfig, Error> {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            let filter = PackageFilter::All;
            let mut sink = TypedSink::new(&filter, false, false, true);
            read_with(&Arc::from(path.as_path()), &mut sink, false, caps).map(|_| sink.out)
        }

        fn doc_caps(document: usize) -> Caps {
            Caps {
                file: MAX_CATALOG_FILE_BYTES,
                document,
            }
        }

        /// A reader that counts the bytes it gives.
        struct Counting<R> {
            inner: R,
            read: usize,
        }

        impl<R: Read> Read for Counting<R> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = self.inner.read(buf)?;
                self.read += n;
                Ok(n)
            }
        }

        /// `head` followed by `x`s for `total` bytes in all.
        fn endless(head: &'static [u8], total: u64) -> Counting<impl Read> {
            Counting {
                inner: head.chain(std::io::repeat(b'x')).take(total),
                read: 0,
            }
        }

        fn sink(filter: &PackageFilter) -> TypedSink<'_> {
            TypedSink::new(filter, false, false, true)
        }

        /// A JSON package document of exactly `len` bytes.
        fn json_doc(name: &str, len: usize) -> String {
            let head = format!(r#"{{"schema":"olm.package","name":"{name}","description":""#);
            format!("{head}{}\"}}", "x".repeat(len - head.len() - 2))
        }

        #[test]
        fn a_json_document_over_the_cap_is_refused_naming_its_line() {
            let caps = doc_caps(100);
            let dc =
                load_capped("c.json", &format!("{P}\n{}\n", json_doc("b", 100)), caps).unwrap();
            assert_eq!(dc.packages.len(), 2);
            let e = load_capped("c.json", &format!("{P}\n\n{}\n", json_doc("b", 101)), caps)
                .unwrap_err();
            assert!(
                matches!(e, Error::DocumentTooLarge { ref origin, limit: 100 } if origin.line == 3),
                "{e}"
            );
            assert!(
                e.to_string()
                    .ends_with("c.json:3: the document starting here is larger than 100 bytes, the most one catalog document may hold (real ones, bundles with their manifests embedded, are at most a few MB); check that this file is a catalog"),
                "{e}"
            );
            // Later in the file (no YAML fallback) it is refused just the same.
            let text = format!("{P}\n{C}\n{}\n", json_doc("b", 101));
            let e = load_capped("c.json", &text, caps).unwrap_err();
            assert!(
                matches!(e, Error::DocumentTooLarge { ref origin, .. } if origin.line == 3),
                "{e}"
            );
        }

        #[test]
        fn an_endless_json_document_is_refused_after_the_cap_and_one_chunk() {
            // 64 chunks of one unterminated string: without the cap all of it is read and
            // held, and the error is a truncated object.
            let mut reader = endless(
                br#"{"schema":"olm.package","description":""#,
                64 * CHUNK as u64,
            );
            let filter = PackageFilter::All;
            let mut sink = sink(&filter);
            let e = match read_json(
                &Arc::from(Path::new("c.json")),
                &mut reader,
                Vec::new(),
                &mut sink,
                doc_caps(CHUNK),
            ) {
                Err(JsonFailure::Fallback(e)) => *e,
                Err(JsonFailure::Fatal(e)) => e,
                Ok(()) => panic!("read"),
            };
            assert!(
                matches!(e, Error::DocumentTooLarge { ref origin, .. } if origin.line == 1),
                "{e}"
            );
            assert!(reader.read <= 2 * CHUNK, "{} bytes read", reader.read);
        }

        #[test]
        fn a_yaml_document_over_the_cap_is_refused_after_the_ones_before_it() {
            let caps = doc_caps(200);
            let small = "schema: olm.package\nname: a\n";
            // A document of exactly `len` bytes, its content starting on its second line.
            let doc = |len: usize| {
                let head = "# big\nschema: olm.package\nname: b\ndescription: ";
                format!("{head}{}\n", "x".repeat(len - head.len() - 1))
            };
            let dc = load_capped(
                "c.yaml",
                &format!("{small}---\n{}---\n{small}", doc(200)),
                caps,
            )
            .unwrap();
            assert_eq!(dc.packages.len(), 3);
            let e = load_capped(
                "c.yaml",
                &format!("{small}---\n{}---\n{small}", doc(201)),
                caps,
            )
            .unwrap_err();
            assert!(
                matches!(e, Error::DocumentTooLarge { ref origin, limit: 200 } if origin.line == 5),
                "{e}"
            );
            assert!(
                e.to_string()
                    .contains("c.yaml:5: the document starting here is larger than 200 bytes"),
                "{e}"
            );
            // The last document, and one that is the whole file.
            let e = load_capped("c.yaml", &format!("{small}---\n{}", doc(201)), caps).unwrap_err();
            assert!(
                matches!(e, Error::DocumentTooLarge { ref origin, .. } if origin.line == 5),
                "{e}"
            );
            let e = load_capped("c.yaml", &doc(201), caps).unwrap_err();
            assert!(
                matches!(e, Error::DocumentTooLarge { ref origin, .. } if origin.line == 2),
                "{e}"
            );
            // An error in a document before it is reported first.
            let e = load_capped(
                "c.yaml",
                &format!("name: nameless\n---\n{}", doc(201)),
                caps,
            )
            .unwrap_err();
            assert!(matches!(e, Error::MissingSchema { .. }), "{e}");
        }

        #[test]
        fn a_yaml_document_at_the_cap_is_read_when_its_separator_straddles_a_read() {
            // The document ends two bytes before the first read chunk does; its `---` line is
            // cut by the end of the chunk, so the unfinished line must not count as the
            // document's.
            let head = "schema: olm.package\nname: a\ndescription: ";
            let first = format!("{head}{}\n", "x".repeat(CHUNK - 2 - head.len() - 1));
            assert_eq!(first.len(), CHUNK - 2);
            let text = format!("{first}---\nschema: olm.package\nname: b\n");
            let filter = PackageFilter::All;
            let read = |cap: usize| {
                let mut sink = sink(&filter);
                let path = &Arc::from(Path::new("c.yaml"));
                read_yaml(
                    path,
                    &mut text.as_bytes(),
                    Vec::new(),
                    &mut sink,
                    doc_caps(cap),
                )
                .map(|()| sink.out.packages.len())
            };
            assert_eq!(read(CHUNK - 2).unwrap(), 2);
            let e = read(CHUNK - 3).unwrap_err();
            assert!(
                matches!(e, Error::DocumentTooLarge { ref origin, .. } if origin.line == 1),
                "{e}"
            );
        }

        /// An endless YAML stream starting with `head`, read with a one-chunk document cap:
        /// the line of the refused document, and how much was read.
        fn endless_yaml_refusal(head: &'static [u8]) -> (usize, usize) {
            let mut reader = endless(head, 64 * CHUNK as u64);
            let filter = PackageFilter::All;
            let e = read_yaml(
                &Arc::from(Path::new("c.yaml")),
                &mut reader,
                Vec::new(),
                &mut sink(&filter),
                doc_caps(CHUNK),
            )
            .unwrap_err();
            match e {
                Error::DocumentTooLarge { origin, .. } => (origin.line, reader.read),
                other => panic!("not refused for its size: {other}"),
            }
        }

        #[test]
        fn an_endless_yaml_line_is_refused_after_the_cap_and_one_chunk() {
            let (line, read) = endless_yaml_refusal(b"schema: olm.package\ndescription: ");
            assert_eq!(line, 1);
            assert!(read <= 2 * CHUNK, "{read} bytes read");
            // A separator line as long: refused too, at its line.
            let (line, read) = endless_yaml_refusal(b"schema: olm.package\nname: a\n---");
            assert_eq!(line, 3);
            assert!(read <= 2 * CHUNK, "{read} bytes read");
        }

        #[test]
        fn a_json_file_falling_back_to_yaml_is_refused_by_the_yaml_cap_too() {
            // The first object is over the cap, so the file is read again as YAML, where the
            // same bytes are one document over the cap: the JSON error is reported.
            let text = format!("{}\n{P}\n", json_doc("b", 300));
            let e = load_capped("c.json", &text, doc_caps(200)).unwrap_err();
            assert!(
                matches!(e, Error::DocumentTooLarge { ref origin, .. } if origin.line == 1),
                "{e}"
            );
        }

        #[test]
        fn leading_whitespace_over_the_cap_is_refused() {
            let text = format!("{}{P}\n", " ".repeat(300 * 1024));
            let e = load_capped("c.json", &text, doc_caps(100 * 1024)).unwrap_err();
            assert!(
                matches!(e, Error::DocumentTooLarge { ref origin, .. } if origin.line == 1),
                "{e}"
            );
            load_capped("c.json", &text, doc_caps(400 * 1024)).unwrap();
        }

        #[test]
        fn a_file_reporting_more_than_the_file_cap_is_refused_before_reading() {
            // A sparse file one byte over the 1 GiB cap. Read, it would be a line of NUL bytes
            // refused by the document cap instead.
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("c.json");
            std::fs::File::create(&path)
                .unwrap()
                .set_len(MAX_CATALOG_FILE_BYTES + 1)
                .unwrap();
            let e = load(&path, &PackageFilter::All).unwrap_err();
            assert!(
                matches!(e, Error::Io { ref source, .. } if source.kind() == std::io::ErrorKind::FileTooLarge),
                "{e}"
            );
            let e = digest_only(&path).unwrap_err();
            assert!(matches!(e, Error::Io { .. }), "{e}");
        }
    }

    mod dir {
        use super::*;

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
}
