//! Every rule `opm validate` enforces (reference/catalogs-and-conversion.md §1.3 rules 1–16
//! and the release field of §1.4), collected into one sorted, byte-stable list of
//! [`Problem`]s: catalog → package → channel → bundle.
//!
//! Upstream: operator-registry `alpha/declcfg/declcfg_to_model.go` (linking, rules 1–12, fail
//! fast upstream; collected here by [`super::model::build`]) and `alpha/model/model.go`
//! (`Validate`, rules 13–16). Multi-head channels are an error like in opm; OLM v1 accepts
//! them, so [`Options::multiple_heads`] can make them warnings.

use std::fmt;
use std::path::Path;

use serde::Serialize;

use super::graph::{self, ChainError};
use super::model::{self, Bundle, Catalog, Channel, Origin, Package};
use super::{Error, PackageFilter, fbc};

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
    /// Rule 14 (OLM v1 accepts this; see [`Options::multiple_heads`]).
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
/// applicable) and pointing at the file it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
    #[serde(flatten)]
    pub kind: ProblemKind,
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
        (
            p.package.clone(),
            p.channel.clone(),
            p.bundle.clone(),
            p.kind.to_string(),
            p.origin.clone(),
            p.severity,
        )
    });
}

/// What to check and how strictly.
#[derive(Debug, Clone)]
pub struct Options {
    /// Severity of a channel with more than one head (opm: error; OLM v1 accepts it).
    pub multiple_heads: Severity,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            multiple_heads: Severity::Error,
        }
    }
}

impl Options {
    /// OLM v1 behaviour: multi-head channels are warnings.
    pub fn olm_v1() -> Self {
        Options {
            multiple_heads: Severity::Warning,
        }
    }
}

/// The outcome of validation: every problem, sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// Problems, sorted catalog → package → channel → bundle.
    pub problems: Vec<Problem>,
}

impl Report {
    /// Whether there is no error (warnings allowed).
    pub fn is_valid(&self) -> bool {
        !self.problems.iter().any(|p| p.severity == Severity::Error)
    }
    /// The error-level problems.
    pub fn errors(&self) -> impl Iterator<Item = &Problem> {
        self.problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
    }
    /// The warning-level problems.
    pub fn warnings(&self) -> impl Iterator<Item = &Problem> {
        self.problems
            .iter()
            .filter(|p| p.severity == Severity::Warning)
    }
    /// One line per problem.
    pub fn lines(problems: &[Problem]) -> String {
        let mut s = String::new();
        for p in problems {
            s.push_str(&p.to_string());
            s.push('\n');
        }
        s
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&Report::lines(&self.problems))
    }
}

/// `opm validate PATH`: load everything, link (collecting rules 1–12), then check the model
/// (rules 13–16). Only I/O and parse errors are `Err`; every rule violation is in the report.
pub fn validate_path(path: &Path, options: &Options) -> Result<Report, Error> {
    let dc = fbc::load(path, &PackageFilter::All)?;
    let (catalog, mut problems) = model::build(
        dc,
        &model::BuildOptions {
            check_bundle_objects: true,
        },
    );
    problems.extend(validate(&catalog, options).problems);
    sort_problems(&mut problems);
    Ok(Report { problems })
}

/// Model validation (rules 13–16) of a linked catalog.
pub fn validate(catalog: &Catalog, options: &Options) -> Report {
    let mut problems = Vec::new();
    for pkg in &catalog.packages {
        validate_package(pkg, options, &mut problems);
    }
    sort_problems(&mut problems);
    Report { problems }
}

fn validate_package(pkg: &Package, options: &Options, out: &mut Vec<Problem>) {
    let here = |kind| Problem::error(kind).package(&pkg.name).at(&pkg.origin);
    if pkg.name.is_empty() {
        out.push(here(ProblemKind::PackageNameInvalid {
            name: String::new(),
        }));
    }
    if !pkg.default_channel.is_empty() && pkg.channel(&pkg.default_channel).is_none() {
        out.push(here(ProblemKind::DefaultChannelMissing {
            channel: pkg.default_channel.clone(),
        }));
    }
    if pkg.channels.is_empty() {
        out.push(here(ProblemKind::PackageNoChannels));
    }
    if pkg.deprecation.as_deref() == Some("") {
        out.push(here(ProblemKind::DeprecationMessageEmpty));
    }
    // Unique version strings (version, plus `-release`).
    let mut by_version: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for b in &pkg.bundles {
        let Some(v) = &b.version else { continue };
        let mut key = v.to_string();
        if let Some(r) = &b.release {
            key.push('-');
            key.push_str(r);
        }
        by_version.entry(key).or_default().push(b.name.clone());
    }
    for (version, mut bundles) in by_version {
        if bundles.len() > 1 {
            bundles.sort();
            out.push(here(ProblemKind::DuplicateVersion { version, bundles }));
        }
    }
    for ch in &pkg.channels {
        validate_channel(pkg, ch, options, out);
    }
    for b in &pkg.bundles {
        validate_bundle(pkg, b, out);
    }
}

fn validate_channel(pkg: &Package, ch: &Channel, options: &Options, out: &mut Vec<Problem>) {
    let here = |kind| {
        Problem::error(kind)
            .package(&pkg.name)
            .channel(&ch.name)
            .at(&ch.origin)
    };
    if ch.name.is_empty() {
        out.push(here(ProblemKind::ChannelNameEmpty));
    }
    if ch.deprecation.as_deref() == Some("") {
        out.push(here(ProblemKind::DeprecationMessageEmpty));
    }
    if ch.entries.is_empty() {
        out.push(here(ProblemKind::ChannelNoBundles));
        return;
    }
    match graph::replaces_chain(ch) {
        Ok(_) => {}
        Err(ChainError::NoHead) => out.push(here(ProblemKind::NoHead)),
        Err(ChainError::MultipleHeads { heads }) => {
            let mut p = here(ProblemKind::MultipleHeads { heads });
            p.severity = options.multiple_heads;
            out.push(p);
        }
        Err(ChainError::Cycle { chain }) => out.push(here(ProblemKind::Cycle { chain })),
        Err(ChainError::Stranded { bundles }) => {
            out.push(here(ProblemKind::Stranded { bundles }))
        }
    }
    for e in &ch.entries {
        let at_entry = |kind| here(kind).bundle(&e.name);
        for (index, s) in e.skips.iter().enumerate() {
            if s.is_empty() {
                out.push(at_entry(ProblemKind::SkipEmpty { index }));
            }
        }
        if let Some(r) = &e.skip_range
            && let Err(err) = crate::version::blang::Range::parse(r)
        {
            out.push(at_entry(ProblemKind::SkipRangeInvalid {
                skip_range: r.clone(),
                reason: err.to_string(),
            }));
        }
    }
}

fn validate_bundle(pkg: &Package, b: &Bundle, out: &mut Vec<Problem>) {
    let here = |kind| {
        Problem::error(kind)
            .package(&pkg.name)
            .bundle(&b.name)
            .at(&b.origin)
    };
    if b.name.is_empty() {
        out.push(here(ProblemKind::BundleNameEmpty));
    }
    if b.deprecation.as_deref() == Some("") {
        out.push(here(ProblemKind::DeprecationMessageEmpty));
    }
    if b.image.is_empty() && !b.has_bundle_objects() {
        out.push(here(ProblemKind::ImageEmpty));
    }
    if let Some(release) = &b.release {
        let expected = format!("{}-v{}-{}", pkg.name, b.version_text, release);
        if b.name != expected {
            out.push(here(ProblemKind::BundleNameRelease { expected }));
        }
        if let Some(v) = &b.version
            && !v.build.is_empty()
        {
            out.push(here(ProblemKind::BuildAndRelease {
                version: b.version_text.clone(),
            }));
        }
    }
}
