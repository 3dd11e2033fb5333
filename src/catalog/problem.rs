//! A catalog problem: what is wrong ([`ProblemKind`], in opm's words), how bad it is
//! ([`Severity`]), and where it is in the tree (package, channel, bundle, file). Both the
//! linker ([`super::link`], rules 1–12) and the validator ([`super::validate`], rules 13–16)
//! report these; this file reads only the model's [`Origin`].

use std::fmt;

use serde::Serialize;

use super::model::Origin;

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Reported, but the catalog is usable.
    Warning,
    /// `opm validate` rejects the catalog.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// What is wrong. The wording follows opm's messages where it has one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "rule", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ProblemKind {
    /// Rule 2: empty or not a DNS-1123 label.
    #[error("package name {name:?} is not a valid DNS-1123 label")]
    PackageNameInvalid {
        /// The name.
        name: String,
    },
    /// A bundle name that is not a DNS-1123 subdomain ([`crate::kubenames`]): opm accepts it,
    /// but it becomes the ClusterServiceVersion's `metadata.name`, so `resolve` and `create`
    /// refuse to choose it. A warning.
    #[error(
        "bundle name is not a valid Kubernetes object name: it {why} (opm accepts it; `resolve` and `create` refuse to install it)"
    )]
    BundleNameInvalid {
        /// Why, from [`crate::kubenames::check_name`].
        why: String,
    },
    /// Rule 2: two `olm.package` blobs with one name.
    #[error("duplicate package (first defined at {first})")]
    DuplicatePackage {
        /// Where the first one is.
        first: Origin,
    },
    /// Rules 3, 4, 12: the blob names a package that has no `olm.package`.
    #[error("{schema} blob refers to unknown package")]
    UnknownPackage {
        /// Schema of the blob.
        schema: &'static str,
    },
    /// Rule 3.
    #[error("channel has no package")]
    ChannelPackageEmpty,
    /// Rule 3.
    #[error("channel name must be set")]
    ChannelNameEmpty,
    /// Rule 3.
    #[error("duplicate channel (first defined at {first})")]
    DuplicateChannel {
        /// Where the first one is.
        first: Origin,
    },
    /// Rule 3.
    #[error("duplicate channel entry {entry:?}")]
    DuplicateEntry {
        /// The repeated name.
        entry: String,
    },
    /// Rule 4.
    #[error("bundle has no package")]
    BundlePackageEmpty,
    /// Rule 4.
    #[error("duplicate bundle (first defined at {first})")]
    DuplicateBundle {
        /// Where the first one is.
        first: Origin,
    },
    /// Rule 5.
    #[error("property #{index} ({ty}) is invalid: {reason}")]
    PropertyInvalid {
        /// Index in `properties`.
        index: usize,
        /// Property type.
        ty: String,
        /// Decoder message.
        reason: String,
    },
    /// Rules 6 and 15.
    #[error("must have exactly 1 \"olm.package\" property, found {count}")]
    PackagePropertyCount {
        /// How many there are.
        count: usize,
    },
    /// Rule 6.
    #[error("olm.package property names package {found:?}")]
    PackagePropertyMismatch {
        /// The package it names.
        found: String,
    },
    /// Rule 7.
    #[error("invalid image reference {image:?}: {reason}")]
    InvalidImage {
        /// The reference.
        image: String,
        /// Why.
        reason: String,
    },
    /// Rule 8.
    #[error("invalid version {version:?}: {reason}")]
    InvalidVersion {
        /// The text.
        version: String,
        /// Why.
        reason: String,
    },
    /// Rule 8, §1.4.
    #[error("invalid release {release:?}: {reason}")]
    InvalidRelease {
        /// The text.
        release: String,
        /// Why.
        reason: String,
    },
    /// Rule 9.
    #[error("bundle not found in any channel entries")]
    BundleNotInChannel,
    /// Rule 10.
    #[error("no olm.bundle blob found for channel entry {entry:?}")]
    EntryWithoutBundle {
        /// The entry.
        entry: String,
    },
    /// Rule 11.
    #[error("default channel must be set")]
    DefaultChannelEmpty,
    /// Rules 11, 13.
    #[error("default channel {channel:?} not found in channels list")]
    DefaultChannelMissing {
        /// The name.
        channel: String,
    },
    /// Rule 12.
    #[error("olm.deprecations blob has no package")]
    DeprecationPackageEmpty,
    /// Rule 12.
    #[error("more than one olm.deprecations blob for the package (first at {first})")]
    DuplicateDeprecations {
        /// Where the first one is.
        first: Origin,
    },
    /// Rule 12.
    #[error("deprecation entry #{index} has no reference schema")]
    DeprecationSchemaEmpty {
        /// Index in `entries`.
        index: usize,
    },
    /// Rule 12.
    #[error("duplicate deprecation entry for {schema} {name:?}")]
    DeprecationDuplicateEntry {
        /// Referenced schema.
        schema: String,
        /// Referenced name.
        name: String,
    },
    /// Rule 12.
    #[error("deprecation refers to unknown {schema} {name:?}")]
    DeprecationUnknownReference {
        /// Referenced schema.
        schema: String,
        /// Referenced name.
        name: String,
    },
    /// Rule 12.
    #[error("package deprecation reference must have an empty name, found {name:?}")]
    DeprecationPackageNameSet {
        /// The name given.
        name: String,
    },
    /// Rule 12.
    #[error("deprecation reference has unknown schema {schema:?}")]
    DeprecationUnknownSchema {
        /// The schema.
        schema: String,
    },
    /// Rule 13.
    #[error("package must contain at least one channel")]
    PackageNoChannels,
    /// Rule 13.
    #[error("duplicate versions found in bundles: {version:?}: {}", bundles.join(", "))]
    DuplicateVersion {
        /// The version (and `-release`).
        version: String,
        /// Bundles sharing it, sorted.
        bundles: Vec<String>,
    },
    /// Rule 13.
    #[error("deprecation message must be set")]
    DeprecationMessageEmpty,
    /// Rule 14.
    #[error("channel must contain at least one bundle")]
    ChannelNoBundles,
    /// Rule 14.
    #[error("no channel head found in graph")]
    NoHead,
    /// Rule 14 (OLM v1 accepts this; see [`super::validate::Options::multiple_heads`]).
    #[error("multiple channel heads found in graph: {}", heads.join(", "))]
    MultipleHeads {
        /// The heads, sorted.
        heads: Vec<String>,
    },
    /// Rule 14.
    #[error("detected cycle in replaces chain of upgrade graph: {}", chain.join(" -> "))]
    Cycle {
        /// The loop, first name repeated at the end.
        chain: Vec<String>,
    },
    /// Rule 14.
    #[error("channel contains one or more stranded bundles: {}", bundles.join(", "))]
    Stranded {
        /// Stranded entries, sorted.
        bundles: Vec<String>,
    },
    /// Rule 15.
    #[error("bundle name must be set")]
    BundleNameEmpty,
    /// Rule 15, §1.4.
    #[error("bundle name must be {expected:?} when a release is set")]
    BundleNameRelease {
        /// The required name.
        expected: String,
    },
    /// Rule 15.
    #[error("skip #{index} must not be empty")]
    SkipEmpty {
        /// Index in `skips`.
        index: usize,
    },
    /// Rule 15.
    #[error("invalid skipRange {skip_range:?}: {reason}")]
    SkipRangeInvalid {
        /// The range.
        #[serde(rename = "skipRange")]
        skip_range: String,
        /// Why.
        reason: String,
    },
    /// Rule 15.
    #[error("bundle image must be set when it has no olm.bundle.object properties")]
    ImageEmpty,
    /// Rule 15.
    #[error("cannot use build metadata in version {version:?} together with a release")]
    BuildAndRelease {
        /// The version.
        version: String,
    },
}

/// One problem, placed in the tree by package, channel and bundle (empty when not
/// applicable) and pointing at the file it came from. In JSON it also carries `message`, the
/// rule's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Error or warning.
    pub severity: Severity,
    /// Package name (empty: catalog level).
    pub package: String,
    /// Channel name (empty: not about a channel).
    pub channel: String,
    /// Bundle name (empty: not about a bundle).
    pub bundle: String,
    /// Where the object is defined.
    pub origin: Option<Origin>,
    /// What is wrong.
    pub kind: ProblemKind,
}

impl Serialize for Problem {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Json<'a> {
            severity: Severity,
            package: &'a str,
            channel: &'a str,
            bundle: &'a str,
            origin: Option<&'a Origin>,
            message: String,
            #[serde(flatten)]
            kind: &'a ProblemKind,
        }
        Json {
            severity: self.severity,
            package: &self.package,
            channel: &self.channel,
            bundle: &self.bundle,
            origin: self.origin.as_ref(),
            message: self.kind.to_string(),
            kind: &self.kind,
        }
        .serialize(serializer)
    }
}

impl Problem {
    /// A new error-level problem.
    pub fn error(kind: ProblemKind) -> Self {
        Problem {
            severity: Severity::Error,
            package: String::new(),
            channel: String::new(),
            bundle: String::new(),
            origin: None,
            kind,
        }
    }
    /// Set the package.
    pub fn package(mut self, name: &str) -> Self {
        self.package = name.to_owned();
        self
    }
    /// Set the channel.
    pub fn channel(mut self, name: &str) -> Self {
        self.channel = name.to_owned();
        self
    }
    /// Set the bundle.
    pub fn bundle(mut self, name: &str) -> Self {
        self.bundle = name.to_owned();
        self
    }
    /// Set the origin.
    pub fn at(mut self, origin: &Origin) -> Self {
        self.origin = Some(origin.clone());
        self
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.severity)?;
        let mut parts = Vec::new();
        if !self.package.is_empty() {
            parts.push(format!("package {:?}", self.package));
        }
        if !self.channel.is_empty() {
            parts.push(format!("channel {:?}", self.channel));
        }
        if !self.bundle.is_empty() {
            parts.push(format!("bundle {:?}", self.bundle));
        }
        if !parts.is_empty() {
            write!(f, "{}: ", parts.join(", "))?;
        }
        write!(f, "{}", self.kind)?;
        if let Some(o) = &self.origin {
            write!(f, " ({o})")?;
        }
        Ok(())
    }
}

/// Sort problems catalog → package → channel → bundle, then by rule and text; stable bytes.
pub fn sort_problems(problems: &mut [Problem]) {
    problems.sort_by_cached_key(|p| {
        // Package-level problems, then channels (with their entries), then bundles.
        let tier = match (p.channel.is_empty(), p.bundle.is_empty()) {
            (true, true) => 0,
            (false, _) => 1,
            (true, false) => 2,
        };
        (
            p.package.clone(),
            tier,
            p.channel.clone(),
            p.bundle.clone(),
            p.kind.to_string(),
            p.origin.clone(),
            p.severity,
        )
    });
}
