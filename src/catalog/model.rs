//! The linked catalog model: packages own their channels and bundles, versions are parsed,
//! deprecations are attached. Upstream: operator-registry `alpha/model/model.go`.
//!
//! The model is the bottom of `catalog`: it imports neither the loader nor the validator.
//! [`super::link`] builds it from [`super::fbc`]'s blobs (called by [`super::load`]); model
//! rules (heads, stranded bundles, …) live in [`super::validate`], which reads it, as
//! [`super::graph`] does. Property types and values are [`super::property`]'s.
//!
//! Property values stay raw JSON ([`serde_json::value::RawValue`]) until a step needs them:
//! `olm.bundle.object` blobs are only decoded for the bundles that resolution chose.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine as _;
use serde_json::value::RawValue;

use super::Error;
use super::decode::yaml_options;
use super::property::{self, PropertyValue};

/// Where a catalog object came from: the file and the 1-based line its document starts on.
///
/// The file's path is shared by every object read from it (one allocation per file, not one
/// per document: a catalog of a million small bundles held a million copies).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Origin {
    /// The file the object was read from.
    #[serde(serialize_with = "serialize_path")]
    pub file: Arc<Path>,
    /// 1-based line of the start of the object's document (0 when unknown).
    pub line: usize,
}

impl Default for Origin {
    fn default() -> Self {
        Origin {
            file: Arc::from(Path::new("")),
            line: 0,
        }
    }
}

fn serialize_path<S: serde::Serializer>(path: &Arc<Path>, s: S) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&**path, s)
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
    /// while loading; else computed on first use by [`Catalog::digest`] (held while it is
    /// computed, so a second caller waits for the first instead of hashing again).
    pub(crate) digest: std::sync::Mutex<Option<String>>,
    /// The path the catalog was loaded from (for a digest computed later).
    pub(crate) source: Option<PathBuf>,
    /// The files that held a document the load kept (see [`Catalog::read_digest`]).
    pub(crate) held_files: Vec<(PathBuf, String)>,
    /// Whether the catalog path is a single file.
    pub(crate) single_file: bool,
    /// The packages the load was asked for (its package filter), or `None` when every
    /// package was read.
    pub(crate) read_packages: Option<Vec<String>>,
    /// [`Catalog::read_digest`], once computed (held like [`Catalog::digest`]).
    pub(crate) read_digest: std::sync::Mutex<Option<String>>,
    /// Documents with schemas other than the four known ones (ignored).
    pub others_count: usize,
    /// Names of packages in the catalog that the load filter left out, sorted.
    pub skipped_packages: Vec<String>,
}

impl Catalog {
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
    /// [`Bundle::csv_bundle_object`]'s answer, kept after the first search that succeeds: a
    /// chosen bundle is asked for its CSV by resolution, the cluster checks and the plan,
    /// and each search reads and decodes every embedded object.
    pub(crate) csv: std::sync::OnceLock<Option<std::sync::Arc<serde_json::Value>>>,
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
    pub value: PropertyValue,
}

/// One `relatedImages` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelatedImage {
    /// Optional name.
    pub name: String,
    /// Image reference.
    pub image: String,
}

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
    /// The value was not kept by a load for validation alone (see
    /// [`super::loader::LoadOptions::keep_csv_metadata`]).
    #[error("the value was not kept: the catalog was loaded for validation only")]
    NotKept,
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
        let mut props = self.properties_of(property::PROPERTY_MAX_OPENSHIFT_VERSION);
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
        self.properties_of(property::PROPERTY_CSV_METADATA)
            .next()
            .and_then(|p| p.value.text().and_then(|t| serde_json::from_str(t).ok()))
    }

    /// Whether the bundle embeds manifests (`olm.bundle.object` properties).
    pub fn has_bundle_objects(&self) -> bool {
        self.properties_of(property::PROPERTY_BUNDLE_OBJECT)
            .next()
            .is_some()
    }

    /// Decode every `olm.bundle.object` (`{"data": standard base64}`) and parse each manifest
    /// as JSON, or as YAML when it is not JSON (opm runs them through `yaml.ToJSON`).
    pub fn bundle_objects(&self) -> Result<Vec<serde_json::Value>, Error> {
        let mut out = Vec::new();
        for (index, p) in self.properties.iter().enumerate() {
            if p.ty != property::PROPERTY_BUNDLE_OBJECT {
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
                    serde_saphyr::from_str_with_options(text, yaml_options())
                        .map_err(|e| err(BundleObjectError::Manifest(Box::new(e))))?
                }
            };
            out.push(value);
        }
        Ok(out)
    }

    /// The first embedded object of kind `ClusterServiceVersion`, if every object decodes.
    pub fn csv_object(&self) -> Option<std::sync::Arc<serde_json::Value>> {
        self.csv_bundle_object().ok().flatten()
    }

    /// The first embedded object of kind `ClusterServiceVersion`: the same answer as
    /// [`Bundle::bundle_objects`] followed by a search, including its errors (every object is
    /// decoded and checked), but only the CSV becomes a [`serde_json::Value`]; the others,
    /// CRDs with large schemas mostly, are only checked as JSON. The answer is kept once
    /// found (errors are not: the next call reports them again).
    pub fn csv_bundle_object(&self) -> Result<Option<std::sync::Arc<serde_json::Value>>, Error> {
        if let Some(csv) = self.csv.get() {
            return Ok(csv.clone());
        }
        let found = self.search_csv()?.map(std::sync::Arc::new);
        Ok(self.csv.get_or_init(|| found).clone())
    }

    /// [`Bundle::csv_bundle_object`]'s search.
    fn search_csv(&self) -> Result<Option<serde_json::Value>, Error> {
        let mut found = None;
        for (index, p) in self.properties.iter().enumerate() {
            if p.ty != property::PROPERTY_BUNDLE_OBJECT {
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
                        serde_saphyr::from_str_with_options(text, yaml_options())
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
    /// there (see [`super::loader::LoadOptions::lazy_bundle_objects`]).
    fn object_value<'a>(
        &'a self,
        p: &'a Property,
    ) -> Result<std::borrow::Cow<'a, RawValue>, BundleObjectError> {
        match &p.value {
            PropertyValue::Json(raw) => Ok(std::borrow::Cow::Borrowed(raw)),
            PropertyValue::InFile(place) => {
                read_lazy_value(&self.origin.file, *place).map(std::borrow::Cow::Owned)
            }
            // Only `olm.csv.metadata` values are left out, never a bundle object.
            PropertyValue::Checked(_) => Err(BundleObjectError::NotKept),
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
    pub fn required_packages(&self) -> Result<Vec<property::PackageRequired>, Error> {
        self.decode_all(property::PROPERTY_PACKAGE_REQUIRED)
    }

    /// `olm.gvk.required` dependencies.
    pub fn required_gvks(&self) -> Result<Vec<property::Gvk>, Error> {
        self.decode_all(property::PROPERTY_GVK_REQUIRED)
    }

    /// `olm.gvk` provided APIs.
    pub fn provided_gvks(&self) -> Result<Vec<property::Gvk>, Error> {
        self.decode_all(property::PROPERTY_GVK)
    }

    /// `olm.constraint` values, parsed as generic JSON.
    pub fn constraints(&self) -> Result<Vec<serde_json::Value>, Error> {
        self.decode_all(property::PROPERTY_CONSTRAINT)
    }

    /// Whether the bundle declares any dependency (`olm.package.required`,
    /// `olm.gvk.required`, `olm.constraint`).
    pub fn has_dependencies(&self) -> bool {
        self.properties.iter().any(|p| {
            matches!(
                p.ty.as_str(),
                property::PROPERTY_PACKAGE_REQUIRED
                    | property::PROPERTY_GVK_REQUIRED
                    | property::PROPERTY_CONSTRAINT
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
    let obj: property::BundleObject =
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

/// Read a value the loader left in `file` (see [`super::loader::LoadOptions::lazy_bundle_objects`]).
pub(crate) fn read_lazy_value(
    file: &std::path::Path,
    property::LazyValue { offset, length, .. }: property::LazyValue,
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

/// Whether the standard, padded base64 decoder ([`base64::engine::general_purpose::STANDARD`]:
/// canonical padding, no trailing bits) accepts `data`, without decoding it. Written to
/// vectorise: a byte-class check over the whole input, then the last quantum.
pub fn is_standard_base64(data: &[u8]) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

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
                    value: PropertyValue::json(v).unwrap(),
                })
                .collect(),
            related_images: Vec::new(),
            channels: Vec::new(),
            deprecation: None,
            origin: Origin::default(),
            csv: Default::default(),
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
        /// The CSV is searched for once: later callers (resolution, cluster checks, the plan)
        /// share the first answer; an error is not kept, so each caller reports it.
        #[test]
        fn the_csv_is_searched_once_and_errors_are_not_kept() {
            let json =
                STANDARD.encode(r#"{"kind":"ClusterServiceVersion","spec":{"displayName":"A"}}"#);
            let b = bundle(&[("olm.bundle.object", &format!(r#"{{"data":"{json}"}}"#))]);
            let first = b.csv_bundle_object().unwrap().unwrap();
            let again = b.csv_bundle_object().unwrap().unwrap();
            assert!(std::sync::Arc::ptr_eq(&first, &again));
            assert_eq!(again["spec"]["displayName"], "A");
            let none = bundle(&[]);
            assert!(none.csv_bundle_object().unwrap().is_none());
            assert_eq!(none.csv.get(), Some(&None));
            let broken = bundle(&[("olm.bundle.object", r#"{"data":"e30"}"#)]);
            assert!(broken.csv_bundle_object().is_err());
            assert!(broken.csv.get().is_none());
            assert!(broken.csv_bundle_object().is_err());
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
