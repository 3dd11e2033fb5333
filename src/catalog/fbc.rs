//! The File-Based Catalog format as written in files: our copy of operator-registry's
//! `alpha/declcfg/declcfg.go`. Nothing here reads a file, links or checks: a file's documents
//! are found by [`super::read`] (JSON streams: [`super::jsonstream`]; YAML: [`super::yamlstream`]),
//! a catalog is loaded into typed lists by [`super::loader`], linked by [`super::link`] into
//! [`super::model`] and checked by [`super::validate`]. Property types and values are
//! [`super::property`]'s; the decoding rules, [`super::decode`]'s.
//!
//! * [`Package`], [`Channel`], [`Bundle`], [`Deprecation`] and [`Property`] are serde structs
//!   named as in the file, their schemas the `SCHEMA_*` constants. Field names match
//!   case-insensitively (ASCII), like Go's `encoding/json`; unknown fields are ignored; a
//!   `null` value means "not set".
//! * [`Meta`] is a document's routing keys (`schema`, `package`, `name`) plus its raw blob
//!   (`declcfg.Meta`). The routing keys of a document are read here: sniffed from its first
//!   members when that is certain (the typed decoding then checks the whole document), parsed
//!   in full otherwise; a [`PackageFilter`] decides from them whether a document is kept.
//! * [`Located`] is a typed object with the file and line it was read from.
//! * An `olm.bundle` is decoded under settings its loader gives (`decoding_bundle`): a
//!   property's bundle object value may stay in its file (only its byte range kept, its base64
//!   checked while the bytes are at hand), and a csv metadata value may be checked and dropped
//!   (a load for validation alone).

use std::borrow::Cow;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use base64::Engine as _;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::decode::{Key, RoutingKeys, fbc_struct};
use super::model::{BundleObjectError, Origin};
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
                // A bundle object of a document that is not a file's own bytes (YAML), read
                // for validation alone: checked now, and only the verdict kept (the manifests
                // are most of such a catalog, and validation needs nothing else of them).
                if let (Some(b), None) = (borrowed, place)
                    && check_only
                    && ty == PROPERTY_BUNDLE_OBJECT
                    && b.get() != "null"
                {
                    borrowed = None;
                    // The common `{"data":"<base64>"}` needs no parsing (see below).
                    value = Some(PropertyValue::Checked(if plain_base64_data(b.get()) {
                        Ok(())
                    } else {
                        check_bundle_object(b).map_err(|e| e.to_string())
                    }));
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
/// while a loader decodes one for a load that leaves bundle object values in the file
/// ([`super::loader::LoadOptions::lazy_bundle_objects`]); see [`decoding_bundle`].
#[derive(Debug, Clone, Copy)]
pub(super) struct DocPlace {
    /// Address of the document's first byte in the read buffer.
    start: usize,
    /// Length of the document.
    len: usize,
    /// File offset of the document's first byte.
    offset: u64,
}

impl DocPlace {
    /// The place of `doc`, the document's bytes as read, which start at file offset `offset`.
    pub(super) fn of(doc: &[u8], offset: u64) -> DocPlace {
        DocPlace {
            start: doc.as_ptr() as usize,
            len: doc.len(),
            offset,
        }
    }

    /// File offset and length of a value borrowed from the document.
    fn range_of(&self, value: &RawValue) -> Option<(u64, usize)> {
        let text = value.get();
        let at = (text.as_ptr() as usize).checked_sub(self.start)?;
        (at + text.len() <= self.len).then(|| (self.offset + at as u64, text.len()))
    }
}

thread_local! {
    static DOC_PLACE: std::cell::Cell<Option<DocPlace>> = const { std::cell::Cell::new(None) };
    /// Other than `Keep` only while a loader decodes an `olm.bundle` from JSON text for a load
    /// that does not keep csv metadata ([`super::loader::LoadOptions::keep_csv_metadata`]).
    static CSV_CHECK: std::cell::Cell<CsvCheck> = const { std::cell::Cell::new(CsvCheck::Keep) };
}

/// What the `olm.bundle` being decoded on this thread does with its csv metadata values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CsvCheck {
    /// Keep them.
    Keep,
    /// Check them (rule 5) and keep the outcome only.
    Check,
    /// Neither kept nor checked: the document stays in its file
    /// ([`super::loader::LoadOptions::lazy_documents`]) and is decoded again with its package, when its
    /// values are checked; what is decoded now is dropped but for its place.
    Later,
    /// The same as `Check`, for text the fast YAML reader wrote ([`super::fastyaml::to_json`]): that is
    /// `serde_json`'s own writing of a value (finite numbers, valid strings, at most 48
    /// levels deep), so an object there decodes as a map by construction and is not walked
    /// again. Debug builds (every test) walk it anyway and compare.
    Written,
}

/// Run `decode`, which reads one `olm.bundle` document on this thread, with its loader's
/// settings for property values: `place`, where the document lies in its file when bundle
/// object values stay there, and `csv`, what becomes of csv metadata values. The settings are
/// cleared however `decode` ends.
pub(super) fn decoding_bundle<R>(
    place: Option<DocPlace>,
    csv: CsvCheck,
    decode: impl FnOnce() -> R,
) -> R {
    /// Clears the settings however `decode` ends.
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            DOC_PLACE.set(None);
            CSV_CHECK.set(CsvCheck::Keep);
        }
    }
    DOC_PLACE.set(place);
    CSV_CHECK.set(csv);
    let _reset = Reset;
    decode()
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

/// [`super::model::decode_bundle_object`]'s verdict on an `olm.bundle.object` value without
/// decoding: the value is read without copying `data` (when it has no escapes), and `data`
/// is checked with [`super::model::is_standard_base64`]; only a failure runs the real
/// decoder, for its error.
pub(crate) fn check_bundle_object(value: &RawValue) -> Result<(), BundleObjectError> {
    let obj: BundleObjectRef<'_> =
        serde_json::from_str(value.get()).map_err(BundleObjectError::Shape)?;
    if obj.data.is_empty() {
        if !obj.reference.is_empty() {
            return Err(BundleObjectError::RefUnsupported {
                reference: obj.reference.into_owned(),
            });
        }
        return Err(BundleObjectError::Empty);
    }
    if super::model::is_standard_base64(obj.data.as_bytes()) {
        return Ok(());
    }
    base64::engine::general_purpose::STANDARD
        .decode(obj.data.as_bytes())
        .map(|_| ())
        .map_err(BundleObjectError::Base64)
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
pub(super) struct Routing {
    /// `schema` (`None` when absent).
    pub(super) schema: Option<String>,
    /// `package` (empty when absent).
    pub(super) package: String,
    /// `name` (empty when absent).
    pub(super) name: String,
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

    /// Whether a document with these routing keys is kept.
    pub(super) fn keeps_doc(&self, schema: &str, package: &str, name: &str) -> bool {
        match self {
            PackageFilter::All => true,
            PackageFilter::Only(_) if schema == SCHEMA_PACKAGE => self.keeps(name),
            PackageFilter::Only(_) => self.keeps(package),
        }
    }
}

/// [`routing`] for a document already read into a value (YAML).
pub(super) fn routing_of_value(
    path: &Arc<Path>,
    line: usize,
    value: &serde_json::Value,
    filter: &PackageFilter,
) -> Result<(String, Routing, bool), Error> {
    routed(path, line, filter, || Routing::deserialize(value))
}

/// [`meta_of`] for a document already read into a value (YAML): the blob is its JSON text.
pub(super) fn meta_of_value(
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
pub(super) fn sniff_routing(doc: &[u8]) -> Option<Routing> {
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
pub(super) fn routing(
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

/// A kept document as a [`Meta`]: its routing keys and its text as the blob.
pub(super) fn meta_of(
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

/// A typed object with the place it was read from.
#[derive(Debug, Clone)]
pub struct Located<T> {
    /// The object.
    pub item: T,
    /// File and line of its document.
    pub origin: Origin,
}

/// Whether `schema` is one of the four the typed structs decode.
pub(super) fn is_known_schema(schema: &str) -> bool {
    matches!(
        schema,
        SCHEMA_PACKAGE | SCHEMA_CHANNEL | SCHEMA_BUNDLE | SCHEMA_DEPRECATIONS
    )
}
