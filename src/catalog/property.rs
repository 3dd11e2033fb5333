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
/// costs memory for its index, not its manifests; everything else is raw JSON in memory.
#[derive(Debug, Clone)]
pub enum PropertyValue {
    /// Raw JSON, held in memory.
    Json(Box<RawValue>),
    /// Left in its catalog file (only `olm.bundle.object` values); read back on demand.
    InFile(LazyValue),
}

impl PropertyValue {
    /// A value held in memory.
    pub fn json(text: &str) -> Result<PropertyValue, serde_json::Error> {
        RawValue::from_string(text.to_owned()).map(PropertyValue::Json)
    }

    /// The raw JSON of a value held in memory; `None` for one left in its file.
    pub fn raw(&self) -> Option<&RawValue> {
        match self {
            PropertyValue::Json(raw) => Some(raw),
            PropertyValue::InFile(_) => None,
        }
    }

    /// The JSON text of a value held in memory; `None` for one left in its file.
    pub fn text(&self) -> Option<&str> {
        self.raw().map(RawValue::get)
    }

    /// The place of a value left in its file.
    pub fn in_file(&self) -> Option<LazyValue> {
        match self {
            PropertyValue::InFile(place) => Some(*place),
            PropertyValue::Json(_) => None,
        }
    }
}

impl PartialEq for PropertyValue {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (PropertyValue::Json(a), PropertyValue::Json(b)) => a.get() == b.get(),
            (PropertyValue::InFile(a), PropertyValue::InFile(b)) => a == b,
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
        }
    }
}

/// A property value that stayed in its file (see [`super::fbc::LoadOptions::lazy_bundle_objects`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LazyValue {
    /// File offset of the value.
    pub offset: u64,
    /// Its length in bytes.
    pub length: usize,
    /// Whether its `data` was non-empty, valid standard base64 when it was read.
    pub base64_ok: bool,
}
