//! The linked, checked catalog model: packages own their channels and bundles, versions are
//! parsed, deprecations are attached. Built from [`super::fbc`] metas by [`super::load`].
//!
//! Upstream: operator-registry `alpha/model/model.go` and `alpha/declcfg/declcfg_to_model.go`
//! (`ConvertToModel`). Unlike upstream, [`build`] collects every linking problem instead of
//! stopping at the first; model rules (heads, stranded bundles, …) live in
//! [`super::validate`].
//!
//! Property values stay raw JSON ([`serde_json::value::RawValue`]) until a step needs them:
//! `olm.bundle.object` blobs are only decoded for the bundles that resolution chose.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use base64::Engine as _;
use rayon::prelude::*;
use serde_json::value::RawValue;

use super::fbc;
use super::validate::{Problem, ProblemKind};
use super::{Error, image};

/// Where a catalog object came from: the file and the 1-based line its document starts on.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize)]
pub struct Origin {
    /// The file the object was read from.
    pub file: PathBuf,
    /// 1-based line of the start of the object's document (0 when unknown).
    pub line: usize,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}", self.file.display(), self.line)
        } else {
            write!(f, "{}", self.file.display())
        }
    }
}

/// A whole catalog snapshot (or the part of it that a package filter kept).
#[derive(Debug, Default)]
pub struct Catalog {
    /// Packages sorted by name.
    pub packages: Vec<Package>,
    /// `sha256:<hex>` of the content read (see [`super::content_digest`]), when computed
    /// while loading; else computed on first use by [`Catalog::digest`].
    pub(crate) digest: std::sync::OnceLock<String>,
    /// The path the catalog was loaded from (for a digest computed later).
    pub(crate) source: Option<PathBuf>,
    /// Documents with schemas other than the four known ones (ignored).
    pub others_count: usize,
    /// Names of packages in the catalog that the load filter left out, sorted.
    pub skipped_packages: Vec<String>,
}

impl Catalog {
    /// The content digest, `sha256:<hex>` (see [`super::content_digest`]). Computed only
    /// when first asked for (a pin, the lock file), not while loading: hashing every byte is
    /// about a third of loading a large catalog, and most commands never need it. Like the
    /// bundle objects left in the file, this reads the catalog again, so the catalog must not
    /// change while it is in use.
    pub fn digest(&self) -> Result<String, super::Error> {
        if let Some(d) = self.digest.get() {
            return Ok(d.clone());
        }
        let d = match &self.source {
            Some(path) => super::fbc::digest_only(path)?,
            None => String::new(),
        };
        Ok(self.digest.get_or_init(|| d).clone())
    }

    /// The package with this name.
    pub fn package(&self, name: &str) -> Option<&Package> {
        self.packages
            .binary_search_by(|p| p.name.as_str().cmp(name))
            .ok()
            .map(|i| &self.packages[i])
    }
}

/// An `olm.package` with its channels and bundles.
#[derive(Debug, Default)]
pub struct Package {
    /// Package name.
    pub name: String,
    /// `defaultChannel` (may be empty in an invalid catalog).
    pub default_channel: String,
    /// One-line description, if any.
    pub description: Option<String>,
    /// Channels sorted by name.
    pub channels: Vec<Channel>,
    /// Bundles sorted by name.
    pub bundles: Vec<Bundle>,
    /// Deprecation message from an `olm.deprecations` entry for the package itself.
    pub deprecation: Option<String>,
    /// Where the `olm.package` blob was.
    pub origin: Origin,
}

impl Package {
    /// The channel with this name.
    pub fn channel(&self, name: &str) -> Option<&Channel> {
        self.channels.iter().find(|c| c.name == name)
    }
    /// The bundle with this name.
    pub fn bundle(&self, name: &str) -> Option<&Bundle> {
        self.bundles
            .binary_search_by(|b| b.name.as_str().cmp(name))
            .ok()
            .map(|i| &self.bundles[i])
    }
}

/// An `olm.channel`.
#[derive(Debug, Default)]
pub struct Channel {
    /// Channel name.
    pub name: String,
    /// Entries in file order.
    pub entries: Vec<ChannelEntry>,
    /// Deprecation message from an `olm.deprecations` entry for this channel.
    pub deprecation: Option<String>,
    /// Where the `olm.channel` blob was.
    pub origin: Origin,
}

/// One entry of a channel: a bundle name and its upgrade edges.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ChannelEntry {
    /// Bundle name.
    pub name: String,
    /// The bundle this one replaces.
    pub replaces: Option<String>,
    /// Bundles this one skips.
    pub skips: Vec<String>,
    /// blang range of versions this one can upgrade from.
    pub skip_range: Option<String>,
}

/// An `olm.bundle`.
#[derive(Debug)]
pub struct Bundle {
    /// Bundle name (usually the CSV name).
    pub name: String,
    /// Owning package.
    pub package: String,
    /// Bundle image reference (may be empty when objects are embedded).
    pub image: String,
    /// The `olm.package` property's version string, as written.
    pub version_text: String,
    /// The parsed version, `None` when the text is not strict semver.
    pub version: Option<semver::Version>,
    /// The `olm.package` property's optional `release` (§1.4), as written.
    pub release: Option<String>,
    /// Every property, in file order, values raw.
    pub properties: Vec<Property>,
    /// `relatedImages`.
    pub related_images: Vec<RelatedImage>,
    /// Names of the channels that list this bundle, sorted.
    pub channels: Vec<String>,
    /// Deprecation message from an `olm.deprecations` entry for this bundle.
    pub deprecation: Option<String>,
    /// Where the `olm.bundle` blob was.
    pub origin: Origin,
}

impl Bundle {
    /// Properties of one type, in file order.
    pub fn properties_of<'a>(&'a self, ty: &'a str) -> impl Iterator<Item = &'a Property> + 'a {
        self.properties.iter().filter(move |p| p.ty == ty)
    }
}

/// A bundle property: its type and its raw JSON value.
#[derive(Debug)]
pub struct Property {
    /// `type`.
    pub ty: String,
    /// `value`: raw JSON, or for an `olm.bundle.object` that [`super::load`] left in its JSON
    /// file, its place there; read objects with [`Bundle::bundle_objects`].
    pub value: fbc::PropertyValue,
}

/// One `relatedImages` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelatedImage {
    /// Optional name.
    pub name: String,
    /// Image reference.
    pub image: String,
}

/// Packages keyed by name, used while building.
pub type PackageMap = BTreeMap<String, Package>;

/// Why an `olm.bundle.object` cannot be turned into a manifest.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BundleObjectError {
    /// The property value is not `{"data": …}` or `{"ref": …}`.
    #[error("value is not an object with `data`")]
    Shape(#[source] serde_json::Error),
    /// The defunct `{"ref": path}` form (removed from operator-registry in 5e3fa99b).
    #[error(
        "the `ref` form ({reference:?}) is not supported; re-render the catalog with a current opm"
    )]
    RefUnsupported {
        /// The path it names.
        reference: String,
    },
    /// Neither `data` nor `ref` is set.
    #[error("`data` is empty")]
    Empty,
    /// `data` is not standard base64 with padding.
    #[error("`data` is not valid base64")]
    Base64(#[source] base64::DecodeError),
    /// The decoded bytes are neither JSON nor YAML.
    #[error("the decoded manifest is neither JSON nor YAML")]
    Manifest(#[source] Box<serde_saphyr::Error>),
    /// The decoded bytes are not UTF-8.
    #[error("the decoded manifest is not UTF-8")]
    NotUtf8,
    /// The value was left in the catalog file at load time and cannot be read back (the
    /// file was removed or changed since).
    #[error("cannot read the value back from {}", path.display())]
    Unreadable {
        /// The catalog file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// Why `olm.maxOpenShiftVersion` cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MaxOpenShiftVersionError {
    /// More than one property (OLM refuses this).
    #[error("{count} olm.maxOpenShiftVersion properties, expected at most one")]
    MoreThanOne {
        /// How many there are.
        count: usize,
    },
    /// The value is neither a JSON string nor a number.
    #[error("olm.maxOpenShiftVersion value {raw} is neither a string nor a number")]
    NotStringOrNumber {
        /// The raw JSON value.
        raw: String,
    },
}

impl Bundle {
    /// The raw text of `olm.maxOpenShiftVersion`: a string value unquoted (escapes left as
    /// written), a number exactly as written (`4.10` stays `4.10`). `None` without the
    /// property.
    pub fn max_openshift_version_raw(&self) -> Option<Result<&str, MaxOpenShiftVersionError>> {
        let mut props = self.properties_of(fbc::PROPERTY_MAX_OPENSHIFT_VERSION);
        let first = props.next()?;
        let more = props.count();
        if more > 0 {
            return Some(Err(MaxOpenShiftVersionError::MoreThanOne {
                count: more + 1,
            }));
        }
        let raw = first.value.text().unwrap_or("null").trim();
        Some(match raw.as_bytes().first() {
            Some(b'"') if raw.len() >= 2 && raw.ends_with('"') => Ok(&raw[1..raw.len() - 1]),
            Some(b'-' | b'0'..=b'9') => Ok(raw),
            _ => Err(MaxOpenShiftVersionError::NotStringOrNumber {
                raw: raw.to_owned(),
            }),
        })
    }

    /// The first `olm.csv.metadata` value, parsed; `None` when absent or not valid JSON.
    pub fn csv_metadata(&self) -> Option<serde_json::Value> {
        self.properties_of(fbc::PROPERTY_CSV_METADATA)
            .next()
            .and_then(|p| p.value.text().and_then(|t| serde_json::from_str(t).ok()))
    }

    /// Whether the bundle embeds manifests (`olm.bundle.object` properties).
    pub fn has_bundle_objects(&self) -> bool {
        self.properties_of(fbc::PROPERTY_BUNDLE_OBJECT)
            .next()
            .is_some()
    }

    /// Decode every `olm.bundle.object` (`{"data": standard base64}`) and parse each manifest
    /// as JSON, or as YAML when it is not JSON (opm runs them through `yaml.ToJSON`).
    pub fn bundle_objects(&self) -> Result<Vec<serde_json::Value>, Error> {
        let mut out = Vec::new();
        for (index, p) in self.properties.iter().enumerate() {
            if p.ty != fbc::PROPERTY_BUNDLE_OBJECT {
                continue;
            }
            let err = |kind| Error::BundleObject {
                package: self.package.clone(),
                bundle: self.name.clone(),
                index,
                kind,
            };
            let raw = self.object_value(p).map_err(err)?;
            let bytes = decode_bundle_object(&raw).map_err(err)?;
            let value = match serde_json::from_slice(&bytes) {
                Ok(v) => v,
                Err(_) => {
                    let text =
                        std::str::from_utf8(&bytes).map_err(|_| err(BundleObjectError::NotUtf8))?;
                    serde_saphyr::from_str_with_options(text, fbc::yaml_options())
                        .map_err(|e| err(BundleObjectError::Manifest(Box::new(e))))?
                }
            };
            out.push(value);
        }
        Ok(out)
    }

    /// The first embedded object of kind `ClusterServiceVersion`, if every object decodes.
    pub fn csv_object(&self) -> Option<serde_json::Value> {
        self.csv_bundle_object().ok().flatten()
    }

    /// The first embedded object of kind `ClusterServiceVersion`: the same answer as
    /// [`Bundle::bundle_objects`] followed by a search, including its errors (every object is
    /// decoded and checked), but only the CSV becomes a [`serde_json::Value`]; the others,
    /// CRDs with large schemas mostly, are only checked as JSON.
    pub fn csv_bundle_object(&self) -> Result<Option<serde_json::Value>, Error> {
        let mut found = None;
        for (index, p) in self.properties.iter().enumerate() {
            if p.ty != fbc::PROPERTY_BUNDLE_OBJECT {
                continue;
            }
            let err = |kind| Error::BundleObject {
                package: self.package.clone(),
                bundle: self.name.clone(),
                index,
                kind,
            };
            let raw = self.object_value(p).map_err(err)?;
            let bytes = decode_bundle_object(&raw).map_err(err)?;
            match serde_json::from_slice::<TopLevelKind>(&bytes) {
                Ok(TopLevelKind(kind)) => {
                    if found.is_none() && kind.as_deref() == Some(CSV_KIND) {
                        found = Some(serde_json::from_slice(&bytes).map_err(|e| {
                            err(BundleObjectError::Manifest(Box::new(
                                <serde_saphyr::Error as serde::de::Error>::custom(e),
                            )))
                        })?);
                    }
                }
                Err(_) => {
                    // Not JSON: YAML, exactly as `bundle_objects` reads it.
                    let text =
                        std::str::from_utf8(&bytes).map_err(|_| err(BundleObjectError::NotUtf8))?;
                    let value: serde_json::Value =
                        serde_saphyr::from_str_with_options(text, fbc::yaml_options())
                            .map_err(|e| err(BundleObjectError::Manifest(Box::new(e))))?;
                    if found.is_none()
                        && value.get("kind").and_then(|k| k.as_str()) == Some(CSV_KIND)
                    {
                        found = Some(value);
                    }
                }
            }
        }
        Ok(found)
    }

    /// A property's raw value, read back from the catalog file when the loader left it
    /// there (see [`super::fbc::LoadOptions::lazy_bundle_objects`]).
    fn object_value<'a>(
        &'a self,
        p: &'a Property,
    ) -> Result<std::borrow::Cow<'a, RawValue>, BundleObjectError> {
        match &p.value {
            fbc::PropertyValue::Json(raw) => Ok(std::borrow::Cow::Borrowed(raw)),
            fbc::PropertyValue::InFile(place) => {
                read_lazy_value(&self.origin.file, *place).map(std::borrow::Cow::Owned)
            }
        }
    }

    fn decode_all<T: for<'a> serde::Deserialize<'a>>(&self, ty: &str) -> Result<Vec<T>, Error> {
        self.properties
            .iter()
            .enumerate()
            .filter(|(_, p)| p.ty == ty)
            .map(|(index, p)| {
                serde_json::from_str(p.value.text().unwrap_or("null")).map_err(|source| {
                    Error::Property {
                        package: self.package.clone(),
                        bundle: self.name.clone(),
                        index,
                        ty: ty.to_owned(),
                        source,
                    }
                })
            })
            .collect()
    }

    /// `olm.package.required` dependencies.
    pub fn required_packages(&self) -> Result<Vec<fbc::PackageRequired>, Error> {
        self.decode_all(fbc::PROPERTY_PACKAGE_REQUIRED)
    }

    /// `olm.gvk.required` dependencies.
    pub fn required_gvks(&self) -> Result<Vec<fbc::Gvk>, Error> {
        self.decode_all(fbc::PROPERTY_GVK_REQUIRED)
    }

    /// `olm.gvk` provided APIs.
    pub fn provided_gvks(&self) -> Result<Vec<fbc::Gvk>, Error> {
        self.decode_all(fbc::PROPERTY_GVK)
    }

    /// `olm.constraint` values, parsed as generic JSON.
    pub fn constraints(&self) -> Result<Vec<serde_json::Value>, Error> {
        self.decode_all(fbc::PROPERTY_CONSTRAINT)
    }

    /// Whether the bundle declares any dependency (`olm.package.required`,
    /// `olm.gvk.required`, `olm.constraint`).
    pub fn has_dependencies(&self) -> bool {
        self.properties.iter().any(|p| {
            matches!(
                p.ty.as_str(),
                fbc::PROPERTY_PACKAGE_REQUIRED
                    | fbc::PROPERTY_GVK_REQUIRED
                    | fbc::PROPERTY_CONSTRAINT
            )
        })
    }
}

const CSV_KIND: &str = "ClusterServiceVersion";

/// Any JSON document, checked in full, keeping only a top-level object's `kind` when it is a
/// string (the last one wins, as in [`serde_json::Value`]).
struct TopLevelKind(Option<String>);

impl<'de> serde::Deserialize<'de> for TopLevelKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = TopLevelKind;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TopLevelKind, A::Error> {
                let mut kind = None;
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    if key == "kind" {
                        kind = match map.next_value::<serde_json::Value>()? {
                            serde_json::Value::String(s) => Some(s),
                            _ => None,
                        };
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(TopLevelKind(kind))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TopLevelKind, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(TopLevelKind(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<TopLevelKind, E> {
                Ok(TopLevelKind(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<TopLevelKind, E> {
                Ok(TopLevelKind(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<TopLevelKind, E> {
                Ok(TopLevelKind(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<TopLevelKind, E> {
                Ok(TopLevelKind(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<TopLevelKind, E> {
                Ok(TopLevelKind(None))
            }
            fn visit_unit<E>(self) -> Result<TopLevelKind, E> {
                Ok(TopLevelKind(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// Decode one `olm.bundle.object` value to the manifest bytes.
pub(crate) fn decode_bundle_object(value: &RawValue) -> Result<Vec<u8>, BundleObjectError> {
    let obj: fbc::BundleObject =
        serde_json::from_str(value.get()).map_err(BundleObjectError::Shape)?;
    if obj.data.is_empty() {
        if !obj.reference.is_empty() {
            return Err(BundleObjectError::RefUnsupported {
                reference: obj.reference,
            });
        }
        return Err(BundleObjectError::Empty);
    }
    base64::engine::general_purpose::STANDARD
        .decode(obj.data.as_bytes())
        .map_err(BundleObjectError::Base64)
}

/// Read a value the loader left in `file` (see [`fbc::LoadOptions::lazy_bundle_objects`]).
fn read_lazy_value(
    file: &std::path::Path,
    fbc::LazyValue { offset, length, .. }: fbc::LazyValue,
) -> Result<Box<RawValue>, BundleObjectError> {
    use std::io::{Read, Seek, SeekFrom};
    let unreadable = |source| BundleObjectError::Unreadable {
        path: file.to_path_buf(),
        source,
    };
    let mut f = std::fs::File::open(file).map_err(unreadable)?;
    f.seek(SeekFrom::Start(offset)).map_err(unreadable)?;
    let mut bytes = vec![0u8; length];
    f.read_exact(&mut bytes).map_err(unreadable)?;
    let changed = || {
        unreadable(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the catalog file changed since it was loaded",
        ))
    };
    let text = String::from_utf8(bytes).map_err(|_| changed())?;
    RawValue::from_string(text).map_err(|_| changed())
}

/// [`decode_bundle_object`]'s verdict without decoding: the value is read without copying
/// `data` (when it has no escapes), and `data` is checked with [`is_standard_base64`]; only
/// a failure runs the real decoder, for its error.
fn check_bundle_object(value: &RawValue) -> Result<(), BundleObjectError> {
    let obj: fbc::BundleObjectRef<'_> =
        serde_json::from_str(value.get()).map_err(BundleObjectError::Shape)?;
    if obj.data.is_empty() {
        if !obj.reference.is_empty() {
            return Err(BundleObjectError::RefUnsupported {
                reference: obj.reference.into_owned(),
            });
        }
        return Err(BundleObjectError::Empty);
    }
    if is_standard_base64(obj.data.as_bytes()) {
        return Ok(());
    }
    base64::engine::general_purpose::STANDARD
        .decode(obj.data.as_bytes())
        .map(|_| ())
        .map_err(BundleObjectError::Base64)
}

/// Whether the standard, padded base64 decoder ([`base64::engine::general_purpose::STANDARD`]:
/// canonical padding, no trailing bits) accepts `data`, without decoding it. Written to
/// vectorise: a byte-class check over the whole input, then the last quantum.
pub(crate) fn is_standard_base64(data: &[u8]) -> bool {
    fn sextet(b: u8) -> bool {
        b.is_ascii_alphanumeric() | (b == b'+') | (b == b'/')
    }
    if !data.len().is_multiple_of(4) {
        return false;
    }
    let Some(last) = data.len().checked_sub(4) else {
        return true;
    };
    let (body, tail) = data.split_at(last);
    let mut ok = true;
    for chunk in body.chunks(64) {
        ok &= chunk.iter().fold(true, |acc, &b| acc & sextet(b));
        if !ok {
            return false;
        }
    }
    let value = |b: u8| -> u8 {
        match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            _ => 63,
        }
    };
    match tail {
        [a, b, b'=', b'='] => sextet(*a) && sextet(*b) && value(*b) & 0x0f == 0,
        [a, b, c, b'='] => sextet(*a) && sextet(*b) && sextet(*c) && value(*c) & 0x03 == 0,
        [a, b, c, d] => sextet(*a) && sextet(*b) && sextet(*c) && sextet(*d),
        _ => false,
    }
}

/// Options for [`build`].
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// Also base64-decode every `olm.bundle.object` to check it (as opm's property parsing
    /// does). Costs a pass over the embedded manifests; [`super::validate`] turns it on.
    pub check_bundle_objects: bool,
}

/// Parse a bundle version strictly (blang `Parse`: `X.Y.Z[-pre][+build]`, no leading `v`,
/// no leading zeros). `semver::Version::parse` implements the same grammar.
pub fn parse_version(text: &str) -> Result<semver::Version, String> {
    crate::version::parse_bundle_version(text).map_err(|e| e.to_string())
}

/// Check a §1.4 release: dot-separated prerelease-style identifiers (`[0-9A-Za-z-]+`, no
/// leading zeros in numeric ones), at most 20 characters.
pub fn check_release(release: &str) -> Result<(), String> {
    if release.len() > 20 {
        return Err(format!("longer than 20 characters ({})", release.len()));
    }
    for part in release.split('.') {
        if part.is_empty() {
            return Err("empty identifier".to_owned());
        }
        if !part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            return Err(format!("invalid character in identifier {part:?}"));
        }
        if part.len() > 1 && part.starts_with('0') && part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("numeric identifier {part:?} has a leading zero"));
        }
    }
    Ok(())
}

/// Any JSON object, checked without keeping it: read through the same deserializer calls
/// as a `serde_json::Map<String, Value>` (so it decodes exactly when that does, with the same
/// error), but nothing is built.
struct AnyObject;

/// Any JSON value, read as `serde_json::Value` reads it (`deserialize_any`), nothing kept.
struct AnyValue;

impl<'de> serde::Deserialize<'de> for AnyValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(AnyVisitor)
    }
}

impl<'de> serde::Deserialize<'de> for AnyObject {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(AnyVisitor).map(|_| AnyObject)
    }
}

struct AnyVisitor;

impl<'de> serde::de::Visitor<'de> for AnyVisitor {
    type Value = AnyValue;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // What serde_json's `Map` says (the only caller that can fail here).
        f.write_str("a map")
    }
    fn visit_bool<E>(self, _: bool) -> Result<AnyValue, E> {
        Ok(AnyValue)
    }
    fn visit_i64<E>(self, _: i64) -> Result<AnyValue, E> {
        Ok(AnyValue)
    }
    fn visit_u64<E>(self, _: u64) -> Result<AnyValue, E> {
        Ok(AnyValue)
    }
    fn visit_f64<E>(self, _: f64) -> Result<AnyValue, E> {
        Ok(AnyValue)
    }
    fn visit_str<E>(self, _: &str) -> Result<AnyValue, E> {
        Ok(AnyValue)
    }
    fn visit_unit<E>(self) -> Result<AnyValue, E> {
        Ok(AnyValue)
    }
    fn visit_none<E>(self) -> Result<AnyValue, E> {
        Ok(AnyValue)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<AnyValue, D::Error> {
        <AnyValue as serde::Deserialize>::deserialize(d)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut s: A) -> Result<AnyValue, A::Error> {
        while s.next_element::<AnyValue>()?.is_some() {}
        Ok(AnyValue)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<AnyValue, A::Error> {
        while m.next_entry::<AnyValue, AnyValue>()?.is_some() {}
        Ok(AnyValue)
    }
}

/// Known property types that must decode into their struct (rule 5).
fn check_property(
    p: &fbc::Property,
    file: &std::path::Path,
    opts: &BuildOptions,
) -> Result<(), String> {
    fn shape<T: for<'a> serde::Deserialize<'a>>(v: &fbc::PropertyValue) -> Result<(), String> {
        serde_json::from_str::<T>(v.text().unwrap_or("null"))
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
    match p.ty.as_str() {
        fbc::PROPERTY_PACKAGE => shape::<fbc::PackageProperty>(&p.value),
        fbc::PROPERTY_PACKAGE_REQUIRED => shape::<fbc::PackageRequired>(&p.value),
        fbc::PROPERTY_GVK | fbc::PROPERTY_GVK_REQUIRED => shape::<fbc::Gvk>(&p.value),
        fbc::PROPERTY_CHANNEL => shape::<fbc::ChannelProperty>(&p.value),
        fbc::PROPERTY_CSV_METADATA => shape::<AnyObject>(&p.value),
        fbc::PROPERTY_BUNDLE_OBJECT if opts.check_bundle_objects => {
            match &p.value {
                fbc::PropertyValue::Json(raw) => check_bundle_object(raw),
                // Checked when it was read.
                fbc::PropertyValue::InFile(place) if place.base64_ok => Ok(()),
                // Read it back for the decoder's own error.
                fbc::PropertyValue::InFile(place) => {
                    read_lazy_value(file, *place).and_then(|v| check_bundle_object(&v))
                }
            }
            .map_err(|e| e.to_string())
        }
        // A value left in its file had this shape when it was read.
        fbc::PROPERTY_BUNDLE_OBJECT if p.value.in_file().is_some() => Ok(()),
        fbc::PROPERTY_BUNDLE_OBJECT => shape::<fbc::BundleObject>(&p.value),
        _ => Ok(()),
    }
}

/// Link typed blobs into a [`Catalog`], collecting every problem `opm`'s `ConvertToModel`
/// stops on (rules 1–12 of §1.3, except a `defaultChannel` naming a missing channel, which
/// upstream reports in model validation). Objects with problems are kept where possible (a
/// bundle with a bad version gets `version: None`); objects that cannot be placed (unknown
/// package, duplicates) are dropped.
pub fn build(dc: fbc::DeclarativeConfig, opts: &BuildOptions) -> (Catalog, Vec<Problem>) {
    let mut problems = Vec::new();
    let mut packages: PackageMap = BTreeMap::new();

    for fbc::Located { item: p, origin } in dc.packages {
        if !crate::text::is_dns1123_label(&p.name) {
            problems.push(
                Problem::error(ProblemKind::PackageNameInvalid {
                    name: p.name.clone(),
                })
                .package(&p.name)
                .at(&origin),
            );
            if p.name.is_empty() {
                continue;
            }
        }
        if let Some(first) = packages.get(&p.name) {
            problems.push(
                Problem::error(ProblemKind::DuplicatePackage {
                    first: first.origin.clone(),
                })
                .package(&p.name)
                .at(&origin),
            );
            continue;
        }
        if p.default_channel.is_empty() {
            problems.push(
                Problem::error(ProblemKind::DefaultChannelEmpty)
                    .package(&p.name)
                    .at(&origin),
            );
        }
        packages.insert(
            p.name.clone(),
            Package {
                name: p.name,
                default_channel: p.default_channel,
                description: Some(p.description).filter(|d| !d.is_empty()),
                channels: Vec::new(),
                bundles: Vec::new(),
                deprecation: None,
                origin,
            },
        );
    }

    for fbc::Located { item: c, origin } in dc.channels {
        if c.package.is_empty() {
            problems.push(
                Problem::error(ProblemKind::ChannelPackageEmpty)
                    .channel(&c.name)
                    .at(&origin),
            );
            continue;
        }
        let Some(pkg) = packages.get_mut(&c.package) else {
            problems.push(
                Problem::error(ProblemKind::UnknownPackage {
                    schema: fbc::SCHEMA_CHANNEL,
                })
                .package(&c.package)
                .channel(&c.name)
                .at(&origin),
            );
            continue;
        };
        if c.name.is_empty() {
            problems.push(
                Problem::error(ProblemKind::ChannelNameEmpty)
                    .package(&c.package)
                    .at(&origin),
            );
            continue;
        }
        if let Some(first) = pkg.channels.iter().find(|x| x.name == c.name) {
            problems.push(
                Problem::error(ProblemKind::DuplicateChannel {
                    first: first.origin.clone(),
                })
                .package(&c.package)
                .channel(&c.name)
                .at(&origin),
            );
            continue;
        }
        let mut seen = std::collections::HashSet::new();
        let mut entries = Vec::with_capacity(c.entries.len());
        for e in c.entries {
            if !seen.insert(e.name.clone()) {
                problems.push(
                    Problem::error(ProblemKind::DuplicateEntry {
                        entry: e.name.clone(),
                    })
                    .package(&c.package)
                    .channel(&c.name)
                    .at(&origin),
                );
                continue;
            }
            entries.push(ChannelEntry {
                name: e.name,
                replaces: Some(e.replaces).filter(|r| !r.is_empty()),
                skips: e.skips,
                skip_range: Some(e.skip_range).filter(|r| !r.is_empty()),
            });
        }
        pkg.channels.push(Channel {
            name: c.name,
            entries,
            deprecation: None,
            origin,
        });
    }

    // Rule 5 (properties parse) is the costly one (it base64-decodes every embedded object
    // when asked to): run it on every core first, report it in order below.
    let property_problems: Vec<Vec<(usize, String)>> = dc
        .bundles
        .par_iter()
        .map(|b| {
            b.item
                .properties
                .iter()
                .enumerate()
                .filter_map(|(index, p)| {
                    check_property(p, &b.origin.file, opts)
                        .err()
                        .map(|r| (index, r))
                })
                .collect()
        })
        .collect();
    let mut bundle_origins: HashMap<(String, String), Origin> = HashMap::new();
    for (fbc::Located { item: b, origin }, property_problems) in
        dc.bundles.into_iter().zip(property_problems)
    {
        if b.package.is_empty() {
            problems.push(
                Problem::error(ProblemKind::BundlePackageEmpty)
                    .bundle(&b.name)
                    .at(&origin),
            );
            continue;
        }
        let Some(pkg) = packages.get_mut(&b.package) else {
            problems.push(
                Problem::error(ProblemKind::UnknownPackage {
                    schema: fbc::SCHEMA_BUNDLE,
                })
                .package(&b.package)
                .bundle(&b.name)
                .at(&origin),
            );
            continue;
        };
        let key = (b.package.clone(), b.name.clone());
        if let Some(first) = bundle_origins.get(&key) {
            problems.push(
                Problem::error(ProblemKind::DuplicateBundle {
                    first: first.clone(),
                })
                .package(&b.package)
                .bundle(&b.name)
                .at(&origin),
            );
            continue;
        }
        bundle_origins.insert(key, origin.clone());
        let here = |kind| {
            Problem::error(kind)
                .package(&b.package)
                .bundle(&b.name)
                .at(&origin)
        };
        // Rule 5: properties parse.
        for (index, reason) in property_problems {
            problems.push(here(ProblemKind::PropertyInvalid {
                index,
                ty: b.properties[index].ty.clone(),
                reason,
            }));
        }
        // Rule 6: exactly one olm.package property naming this package.
        let pkg_props: Vec<fbc::PackageProperty> = b
            .properties
            .iter()
            .filter(|p| p.ty == fbc::PROPERTY_PACKAGE)
            .filter_map(|p| p.value.text().and_then(|t| serde_json::from_str(t).ok()))
            .collect();
        let (version_text, release) = match pkg_props.as_slice() {
            [one] => {
                if one.package_name != b.package {
                    problems.push(here(ProblemKind::PackagePropertyMismatch {
                        found: one.package_name.clone(),
                    }));
                }
                (
                    one.version.clone(),
                    Some(one.release.clone()).filter(|r| !r.is_empty()),
                )
            }
            many => {
                problems.push(here(ProblemKind::PackagePropertyCount {
                    count: many.len(),
                }));
                (
                    many.first().map(|p| p.version.clone()).unwrap_or_default(),
                    None,
                )
            }
        };
        // Rule 7: image references.
        if !b.image.is_empty()
            && let Err(e) = image::check_reference(&b.image)
        {
            problems.push(here(ProblemKind::InvalidImage {
                image: b.image.clone(),
                reason: e.to_string(),
            }));
        }
        for ri in &b.related_images {
            if !ri.image.is_empty()
                && let Err(e) = image::check_reference(&ri.image)
            {
                problems.push(here(ProblemKind::InvalidImage {
                    image: ri.image.clone(),
                    reason: e.to_string(),
                }));
            }
        }
        // Rule 8: strict version, valid release.
        let version = if pkg_props.len() == 1 {
            match parse_version(&version_text) {
                Ok(v) => Some(v),
                Err(reason) => {
                    problems.push(here(ProblemKind::InvalidVersion {
                        version: version_text.clone(),
                        reason,
                    }));
                    None
                }
            }
        } else {
            parse_version(&version_text).ok()
        };
        if let Some(r) = &release
            && let Err(reason) = check_release(r)
        {
            problems.push(here(ProblemKind::InvalidRelease {
                release: r.clone(),
                reason,
            }));
        }
        pkg.bundles.push(Bundle {
            name: b.name,
            package: b.package,
            image: b.image,
            version_text,
            version,
            release,
            properties: b
                .properties
                .into_iter()
                .map(|p| Property {
                    ty: p.ty,
                    value: p.value,
                })
                .collect(),
            related_images: b
                .related_images
                .into_iter()
                .map(|r| RelatedImage {
                    name: r.name,
                    image: r.image,
                })
                .collect(),
            channels: Vec::new(),
            deprecation: None,
            origin,
        });
    }

    // Rules 9 and 10: bundles and channel entries meet.
    for pkg in packages.values_mut() {
        pkg.channels.sort_by(|a, b| a.name.cmp(&b.name));
        pkg.bundles.sort_by(|a, b| a.name.cmp(&b.name));
        for ch in &pkg.channels {
            for e in &ch.entries {
                match pkg
                    .bundles
                    .binary_search_by(|b| b.name.as_str().cmp(&e.name))
                {
                    Ok(i) => pkg.bundles[i].channels.push(ch.name.clone()),
                    Err(_) => problems.push(
                        Problem::error(ProblemKind::EntryWithoutBundle {
                            entry: e.name.clone(),
                        })
                        .package(&pkg.name)
                        .channel(&ch.name)
                        .at(&ch.origin),
                    ),
                }
            }
        }
        for b in &mut pkg.bundles {
            b.channels.sort();
            if b.channels.is_empty() {
                problems.push(
                    Problem::error(ProblemKind::BundleNotInChannel)
                        .package(&pkg.name)
                        .bundle(&b.name)
                        .at(&b.origin),
                );
            }
        }
    }

    // Rule 12: deprecations.
    let mut deprecation_seen: HashMap<String, Origin> = HashMap::new();
    for fbc::Located { item: d, origin } in dc.deprecations {
        if d.package.is_empty() {
            problems.push(Problem::error(ProblemKind::DeprecationPackageEmpty).at(&origin));
            continue;
        }
        let Some(pkg) = packages.get_mut(&d.package) else {
            problems.push(
                Problem::error(ProblemKind::UnknownPackage {
                    schema: fbc::SCHEMA_DEPRECATIONS,
                })
                .package(&d.package)
                .at(&origin),
            );
            continue;
        };
        if let Some(first) = deprecation_seen.get(&d.package) {
            problems.push(
                Problem::error(ProblemKind::DuplicateDeprecations {
                    first: first.clone(),
                })
                .package(&d.package)
                .at(&origin),
            );
            continue;
        }
        deprecation_seen.insert(d.package.clone(), origin.clone());
        let mut refs = std::collections::HashSet::new();
        for (index, e) in d.entries.into_iter().enumerate() {
            let r = &e.reference;
            let here = |kind| Problem::error(kind).package(&d.package).at(&origin);
            if r.schema.is_empty() {
                problems.push(here(ProblemKind::DeprecationSchemaEmpty { index }));
                continue;
            }
            if !refs.insert((r.schema.clone(), r.name.clone())) {
                problems.push(here(ProblemKind::DeprecationDuplicateEntry {
                    schema: r.schema.clone(),
                    name: r.name.clone(),
                }));
                continue;
            }
            let unknown = || ProblemKind::DeprecationUnknownReference {
                schema: r.schema.clone(),
                name: r.name.clone(),
            };
            match r.schema.as_str() {
                fbc::SCHEMA_PACKAGE => {
                    if !r.name.is_empty() {
                        problems.push(here(ProblemKind::DeprecationPackageNameSet {
                            name: r.name.clone(),
                        }));
                    } else {
                        pkg.deprecation = Some(e.message);
                    }
                }
                fbc::SCHEMA_CHANNEL => match pkg.channels.iter_mut().find(|c| c.name == r.name) {
                    Some(c) => c.deprecation = Some(e.message),
                    None => problems.push(here(unknown()).channel(&r.name)),
                },
                fbc::SCHEMA_BUNDLE => match pkg.bundles.iter_mut().find(|b| b.name == r.name) {
                    Some(b) => b.deprecation = Some(e.message),
                    None => problems.push(here(unknown()).bundle(&r.name)),
                },
                other => problems.push(here(ProblemKind::DeprecationUnknownSchema {
                    schema: other.to_owned(),
                })),
            }
        }
    }

    super::validate::sort_problems(&mut problems);
    let catalog = Catalog {
        packages: packages.into_values().collect(),
        digest: if dc.digest.is_empty() {
            std::sync::OnceLock::new()
        } else {
            std::sync::OnceLock::from(dc.digest)
        },
        source: dc.root,
        others_count: dc.others_count,
        skipped_packages: {
            let mut names = dc.skipped_packages;
            names.sort();
            names.dedup();
            names
        },
    };
    (catalog, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The allocation-free object check accepts and refuses exactly what a map of values does,
    /// with the same message.
    #[test]
    fn any_object_agrees_with_a_map_of_values() {
        let deep = "[".repeat(200) + &"]".repeat(200);
        let deep = format!("{{\"a\":{deep}}}");
        for text in [
            "{}",
            "{\"a\":1,\"b\":[1,2.5,-3,{\"c\":null}],\"a\":\"dup\"}",
            "{\"big\":1e400}",
            "{\"n\":123456789012345678901234567890}",
            "{\"s\":\"\\u00e9\\ud83d\\ude00\"}",
            "{\"bad\":\"\\q\"}",
            "{\"lone\":\"\\ud800\"}",
            "null",
            "[]",
            "\"x\"",
            "1",
            "{\"a\":1,}",
            "{\"a\"}",
            &deep,
        ] {
            let want = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(text)
                .map(|_| ())
                .map_err(|e| e.to_string());
            let got = serde_json::from_str::<AnyObject>(text)
                .map(|_| ())
                .map_err(|e| e.to_string());
            assert_eq!(got, want, "{text}");
        }
    }

    fn bundle(props: &[(&str, &str)]) -> Bundle {
        Bundle {
            name: "a.v1".into(),
            package: "a".into(),
            image: String::new(),
            version_text: "1.0.0".into(),
            version: None,
            release: None,
            properties: props
                .iter()
                .map(|(ty, v)| Property {
                    ty: ty.to_string(),
                    value: crate::catalog::fbc::PropertyValue::json(v).unwrap(),
                })
                .collect(),
            related_images: Vec::new(),
            channels: Vec::new(),
            deprecation: None,
            origin: Origin::default(),
        }
    }

    mod max_openshift_version {
        use super::*;

        #[test]
        fn string_is_unquoted() {
            let b = bundle(&[("olm.maxOpenShiftVersion", r#""4.14""#)]);
            assert_eq!(b.max_openshift_version_raw(), Some(Ok("4.14")));
        }
        #[test]
        fn number_keeps_raw_text() {
            let b = bundle(&[("olm.maxOpenShiftVersion", "4.10")]);
            assert_eq!(b.max_openshift_version_raw(), Some(Ok("4.10")));
        }
        #[test]
        fn absent_more_than_one_or_object() {
            assert_eq!(bundle(&[]).max_openshift_version_raw(), None);
            let two = bundle(&[
                ("olm.maxOpenShiftVersion", "4.10"),
                ("olm.maxOpenShiftVersion", "4.11"),
            ]);
            assert!(matches!(
                two.max_openshift_version_raw(),
                Some(Err(MaxOpenShiftVersionError::MoreThanOne { count: 2 }))
            ));
            let obj = bundle(&[("olm.maxOpenShiftVersion", "{}")]);
            assert!(matches!(obj.max_openshift_version_raw(), Some(Err(_))));
        }
    }

    mod bundle_objects {
        use super::*;
        use base64::engine::general_purpose::STANDARD;

        #[test]
        fn json_and_yaml_manifests() {
            let json =
                STANDARD.encode(r#"{"kind":"ClusterServiceVersion","spec":{"displayName":"A"}}"#);
            let yaml = STANDARD.encode("kind: CustomResourceDefinition\nmetadata:\n  name: x\n");
            let b = bundle(&[
                ("olm.bundle.object", &format!(r#"{{"data":"{json}"}}"#)),
                ("olm.bundle.object", &format!(r#"{{"data":"{yaml}"}}"#)),
            ]);
            assert!(b.has_bundle_objects());
            let objs = b.bundle_objects().unwrap();
            assert_eq!(objs[1]["metadata"]["name"], "x");
            assert_eq!(b.csv_object().unwrap()["spec"]["displayName"], "A");
        }
        #[test]
        fn ref_form_is_unsupported() {
            let b = bundle(&[("olm.bundle.object", r#"{"ref":"objects/csv.yaml"}"#)]);
            let e = b.bundle_objects().unwrap_err();
            assert!(matches!(
                e,
                Error::BundleObject {
                    kind: BundleObjectError::RefUnsupported { .. },
                    index: 0,
                    ..
                }
            ));
            assert!(e.to_string().contains("not supported"), "{e}");
        }
        #[test]
        fn bad_base64() {
            let b = bundle(&[("olm.bundle.object", r#"{"data":"e30"}"#)]);
            assert!(matches!(
                b.bundle_objects(),
                Err(Error::BundleObject {
                    kind: BundleObjectError::Base64(_),
                    ..
                })
            ));
        }
    }

    mod base64_check {
        use super::*;
        use base64::engine::general_purpose::STANDARD;
        use proptest::prelude::*;

        #[test]
        fn edge_cases_agree_with_the_decoder() {
            for s in [
                "", "QQ==", "QR==", "QUI=", "QUJ=", "QUJD", "=", "==", "Q===", "====", "QQ=", "QQ",
                "QUJD\n", "QU=D", "QUJDQQ==", "QUJD====", "QUJD-_==", "QQ==QUJD",
            ] {
                assert_eq!(
                    is_standard_base64(s.as_bytes()),
                    STANDARD.decode(s).is_ok(),
                    "{s:?}"
                );
            }
        }

        proptest! {
            #[test]
            fn agrees_with_the_decoder(bytes in proptest::collection::vec(any::<u8>(), 0..200), noise in proptest::collection::vec((any::<usize>(), prop::sample::select(vec![b'=', b'-', b'_', b' ', b'\n', 0xc3, b'A', b'B', b'Q'])), 0..3), cut in 0usize..4) {
                let mut text = STANDARD.encode(&bytes).into_bytes();
                for (at, b) in noise {
                    if !text.is_empty() {
                        let i = at % text.len();
                        text[i] = b;
                    }
                }
                text.truncate(text.len().saturating_sub(cut % 2 * cut));
                prop_assert_eq!(is_standard_base64(&text), STANDARD.decode(&text).is_ok(), "{:?}", String::from_utf8_lossy(&text));
            }
        }
    }

    mod dependencies {
        use super::*;

        #[test]
        fn typed_accessors() {
            let b = bundle(&[
                (
                    "olm.package.required",
                    r#"{"packageName":"b","versionRange":">=1.0.0"}"#,
                ),
                (
                    "olm.gvk.required",
                    r#"{"group":"g","kind":"K","version":"v1"}"#,
                ),
                ("olm.constraint", r#"{"cel":{"rule":"true"}}"#),
                ("olm.csv.metadata", r#"{"displayName":"A"}"#),
            ]);
            assert!(b.has_dependencies());
            assert_eq!(b.required_packages().unwrap()[0].package_name, "b");
            assert_eq!(b.required_gvks().unwrap()[0].kind, "K");
            assert_eq!(b.constraints().unwrap().len(), 1);
            assert_eq!(b.csv_metadata().unwrap()["displayName"], "A");
            let bad = bundle(&[("olm.package.required", r#"{"packageName":1}"#)]);
            assert!(matches!(
                bad.required_packages(),
                Err(Error::Property { index: 0, .. })
            ));
        }
    }

    mod versions {
        use super::*;

        #[test]
        fn strict_semver() {
            assert!(parse_version("1.2.3-alpha.1+build.5").is_ok());
            for bad in ["v1.2.3", "1.2", "1.02.3", "1.2.3-01", ""] {
                assert!(parse_version(bad).is_err(), "{bad}");
            }
            assert!(check_release("1.alpha-2").is_ok());
            assert!(check_release("01").is_err());
            assert!(check_release("a..b").is_err());
            assert!(check_release("123456789012345678901").is_err());
        }
    }
}
