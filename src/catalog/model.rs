//! The linked, checked catalog model: packages own their channels and bundles, versions are
//! parsed, deprecations are attached. Built from [`super::fbc`] metas by [`super::load`].
//!
//! Property values stay raw JSON ([`serde_json::value::RawValue`]) until a step needs them:
//! `olm.bundle.object` blobs are only decoded for the bundles that resolution chose.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::value::RawValue;

/// Where a catalog object came from: the file and the 1-based line its document starts on.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
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
    /// Content digest, `sha256:<hex>`.
    pub digest: String,
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
    /// `value`, raw.
    pub value: Box<RawValue>,
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
