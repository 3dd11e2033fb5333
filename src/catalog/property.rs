//! Bundle and package properties: their `type` names, the typed values of the known ones, and
//! how a value is held ([`PropertyValue`]: raw JSON in memory, or its place in the catalog
//! file). Our copy of operator-registry's `alpha/property`. The model ([`super::model`]) and
//! the file format ([`super::fbc`]) both read this; it imports only [`super::decode`].

use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::decode::{Key, RoutingKeys, fbc_struct};

/// Property type `olm.package`.
pub const PROPERTY_PACKAGE: &str = "olm.package";
/// Property type `olm.package.required`.
pub const PROPERTY_PACKAGE_REQUIRED: &str = "olm.package.required";
/// Property type `olm.gvk`.
pub const PROPERTY_GVK: &str = "olm.gvk";
/// Property type `olm.gvk.required`.
pub const PROPERTY_GVK_REQUIRED: &str = "olm.gvk.required";
/// Property type `olm.constraint`.
pub const PROPERTY_CONSTRAINT: &str = "olm.constraint";
/// Property type `olm.bundle.object`.
pub const PROPERTY_BUNDLE_OBJECT: &str = "olm.bundle.object";
/// Property type `olm.csv.metadata`.
pub const PROPERTY_CSV_METADATA: &str = "olm.csv.metadata";
/// Property type `olm.channel` (internal).
pub const PROPERTY_CHANNEL: &str = "olm.channel";
/// Property type `olm.maxOpenShiftVersion`.
pub const PROPERTY_MAX_OPENSHIFT_VERSION: &str = "olm.maxOpenShiftVersion";

fbc_struct! {
    /// Value of an `olm.package` property.
    pub struct PackageProperty {
        /// Package name.
        "packageName" => pub package_name: String,
        /// Bundle version.
        "version" => pub version: String,
        /// Optional release (§1.4).
        "release" => pub release: String,
    }
}

fbc_struct! {
    /// Value of an `olm.package.required` property.
    pub struct PackageRequired {
        /// Required package.
        "packageName" => pub package_name: String,
        /// blang range of acceptable versions.
        "versionRange" => pub version_range: String,
    }
}

fbc_struct! {
    /// Value of an `olm.gvk` or `olm.gvk.required` property.
    pub struct Gvk {
        /// API group.
        "group" => pub group: String,
        /// Kind.
        "kind" => pub kind: String,
        /// API version.
        "version" => pub version: String,
    }
}

fbc_struct! {
    /// Value of an `olm.label` property (OLM v0 `olm.label.required` dependencies match it).
    pub struct LabelProperty {
        /// The label.
        "label" => pub label: String,
    }
}

fbc_struct! {
    /// Value of an `olm.channel` property.
    pub struct ChannelProperty {
        /// Channel name.
        "channelName" => pub channel_name: String,
        /// Replaced bundle.
        "replaces" => pub replaces: String,
    }
}

fbc_struct! {
    /// Value of an `olm.bundle.object` property: `data` (standard base64) or the defunct
    /// `ref` form, which we do not support.
    pub struct BundleObject {
        /// Base64 of one manifest.
        "data" => pub data: String,
        /// Defunct alpha form: a path relative to the FBC file.
        "ref" => pub reference: String,
    }
}

/// A property's value. The loader keeps `olm.bundle.object` values of JSON files where they
/// are and only remembers their place ([`PropertyValue::InFile`]), so a catalog of hundreds of MB
/// costs memory for its index, not its manifests; a load for validation alone keeps of an
/// `olm.csv.metadata` value, and of an `olm.bundle.object` value it cannot leave in its file
/// (a YAML document's), only its check ([`PropertyValue::Checked`]); everything else is raw
/// JSON in memory.
#[derive(Debug, Clone)]
pub enum PropertyValue {
    /// Raw JSON, held in memory.
    Json(Box<RawValue>),
    /// Left in its catalog file (only `olm.bundle.object` values); read back on demand.
    InFile(LazyValue),
    /// Not kept (only `olm.csv.metadata` and `olm.bundle.object` values, in a load that keeps
    /// only what validation needs: [`super::loader::LoadOptions::keep_csv_metadata`]): the
    /// outcome of its check ([`check_csv_metadata`], or the base64 check of a bundle object),
    /// made when it was read.
    Checked(Result<(), String>),
}

impl PropertyValue {
    /// A value held in memory.
    pub fn json(text: &str) -> Result<PropertyValue, serde_json::Error> {
        RawValue::from_string(text.to_owned()).map(PropertyValue::Json)
    }

    /// The raw JSON of a value held in memory; `None` for one left in its file or not kept.
    pub fn raw(&self) -> Option<&RawValue> {
        match self {
            PropertyValue::Json(raw) => Some(raw),
            PropertyValue::InFile(_) | PropertyValue::Checked(_) => None,
        }
    }

    /// The JSON text of a value held in memory; `None` for one left in its file or not kept.
    pub fn text(&self) -> Option<&str> {
        self.raw().map(RawValue::get)
    }

    /// The place of a value left in its file.
    pub fn in_file(&self) -> Option<LazyValue> {
        match self {
            PropertyValue::InFile(place) => Some(*place),
            PropertyValue::Json(_) | PropertyValue::Checked(_) => None,
        }
    }
}

impl PartialEq for PropertyValue {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (PropertyValue::Json(a), PropertyValue::Json(b)) => a.get() == b.get(),
            (PropertyValue::InFile(a), PropertyValue::InFile(b)) => a == b,
            (PropertyValue::Checked(a), PropertyValue::Checked(b)) => a == b,
            _ => false,
        }
    }
}

impl Serialize for PropertyValue {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            PropertyValue::Json(raw) => raw.serialize(serializer),
            PropertyValue::InFile(_) => Err(serde::ser::Error::custom(
                "a property value left in its catalog file cannot be serialized; read it first",
            )),
            PropertyValue::Checked(_) => Err(serde::ser::Error::custom(
                "a property value not kept by a load for validation cannot be serialized",
            )),
        }
    }
}

/// A property value that stayed in its file (see [`super::loader::LoadOptions::lazy_bundle_objects`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LazyValue {
    /// File offset of the value.
    pub offset: u64,
    /// Its length in bytes.
    pub length: usize,
    /// Whether its `data` was non-empty, valid standard base64 when it was read.
    pub base64_ok: bool,
}

/// Rule 5 for an `olm.csv.metadata` value (JSON text): it must decode as a JSON object, as
/// operator-registry's typed property parsing requires. The reason is `serde_json`'s message.
pub fn check_csv_metadata(text: &str) -> Result<(), String> {
    serde_json::from_str::<AnyObject>(text)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Any JSON object, checked without keeping it: read through the same deserializer calls
/// as a `serde_json::Map<String, Value>` (so it decodes exactly when that does, with the same
/// error), but nothing is built.
struct AnyObject;

/// Any JSON value, read as `serde_json::Value` reads it (`deserialize_any`), nothing kept.
struct AnyValue;

impl<'de> Deserialize<'de> for AnyValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(AnyVisitor)
    }
}

impl<'de> Deserialize<'de> for AnyObject {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(AnyVisitor).map(|_| AnyObject)
    }
}

struct AnyVisitor;

impl<'de> Visitor<'de> for AnyVisitor {
    type Value = AnyValue;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<AnyValue, D::Error> {
        AnyValue::deserialize(d)
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut s: A) -> Result<AnyValue, A::Error> {
        while s.next_element::<AnyValue>()?.is_some() {}
        Ok(AnyValue)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<AnyValue, A::Error> {
        while m.next_entry::<AnyValue, AnyValue>()?.is_some() {}
        Ok(AnyValue)
    }
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
            let got = check_csv_metadata(text);
            assert_eq!(got, want, "{text}");
        }
    }
}
