//! The `platformOperators` extension: read, type and validate it, keeping the source location
//! of every value so errors point at a line and column.
//!
//! Input: `platform-operators.yaml` (top-level `platformOperators:`), or the same key inside
//! `install-config.yaml`. Output: a [`Config`]. Install-config facts (`featureSet`, mirror rules,
//! trust bundle) live in [`install`]; the release type ([`ClusterVersion`]) and install-config
//! `capabilities` are [`crate::openshift`]'s. Every scalar is read as the text the user wrote
//! (`4.10` stays `4.10`), unknown keys are errors, and every problem found is reported at once.

pub mod install;
mod span;
mod strict;
pub mod subscription;
pub mod upgrade;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_saphyr::Spanned;

pub use span::{SourceFile, Span};
pub use subscription::{Approval, InstallMode, OperatorProfile, SubscriptionSettings};
pub use upgrade::{InstalledBundle, UpgradeConstraintPolicy, UpgradePolicy};

use crate::openshift::ClusterVersion;
use crate::rules::{self, Role};
use crate::version::masterminds;

/// Longest operator name: the PlatformOperator name becomes a BundleDeployment name and then a
/// Bundle name with a hash suffix, which must still fit in 63 characters.
pub const MAX_OPERATOR_NAME: usize = 45;
/// Longest package name (PlatformOperator CRD `spec.package.name` `maxLength`).
pub const MAX_PACKAGE_NAME: usize = 56;
/// Longest `version` range (OLM v1 ClusterExtension API limit).
pub const MAX_VERSION_RANGE: usize = 64;

/// A validated `platformOperators` configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// The file it was read from, with its text (for diagnostics).
    pub source: Arc<SourceFile>,
    /// Target cluster version, when the config gives one.
    pub cluster_version: Option<Located<ClusterVersion>>,
    /// Catalog snapshots, in the order written.
    pub catalogs: Vec<CatalogSource>,
    /// Operators to install, in the order written.
    pub operators: Vec<Operator>,
    /// The installer that reads the install directory (`installer:`), when the config says:
    /// where `create` writes and how `check` reads.
    pub installer: Option<Located<rules::Installer>>,
    /// The profile every non-bootstrap operator asks for (`profile:`), unless it names its own.
    pub profile: Option<Located<OperatorProfile>>,
}

/// A value with the span of the YAML node it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located<T> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub span: Span,
}

/// One `catalogs[]` entry.
#[derive(Debug, Clone)]
pub struct CatalogSource {
    /// Catalog name (referenced by `operators[].catalog`, and the ClusterCatalog name).
    pub name: Located<String>,
    /// Where the FBC is: a path resolved against the config file's directory, or a URL.
    pub source: Located<CatalogLocation>,
    /// Pinned content digest, lowercase hex without prefix.
    pub sha256: Option<Located<String>>,
    /// The catalog's image, for in-cluster objects.
    pub image: Option<Located<String>>,
    /// Priority across catalogs (higher wins), default 0.
    pub priority: i32,
}

/// Where a catalog's content is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogLocation {
    /// A directory or file on disk (absolute, or relative to the working directory).
    Path(PathBuf),
    /// An `https://` URL.
    Url(String),
}

impl std::fmt::Display for CatalogLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CatalogLocation::Path(p) => write!(f, "{}", p.display()),
            CatalogLocation::Url(u) => f.write_str(u),
        }
    }
}

/// One `operators[]` entry.
#[derive(Debug, Clone)]
pub struct Operator {
    /// Object name.
    pub name: Located<String>,
    /// Package name.
    pub package: Located<String>,
    /// Channels (any of them); empty means all channels.
    pub channels: Vec<Located<String>>,
    /// OLM v1 (Masterminds) version range.
    pub version: Option<Located<VersionRange>>,
    /// The catalog to resolve from; `None` means every catalog.
    pub catalog: Option<Located<String>>,
    /// Install namespace.
    pub namespace: Option<Located<String>>,
    /// Write the operator's own objects (CCM/MAPI-style operators).
    pub bootstrap: bool,
    /// How it follows cluster upgrades (`upgrade:`, default `follow-cluster`).
    pub upgrade: UpgradePolicy,
    /// How OLM v1 may move it from its installed bundle (default `CatalogProvided`).
    pub upgrade_constraint_policy: UpgradeConstraintPolicy,
    /// The bundle installed now, when the configuration says (else the lock file may).
    pub installed: Option<InstalledBundle>,
    // Bootstrap readiness (issue 15): the operator's role and the readiness rules it waives.
    /// What a bootstrap operator is (`role:`): picks the readiness rules. `None` when not
    /// given: the operator is then what its workloads show, as `check` recognises them.
    pub role: Option<Role>,
    /// Readiness rules waived for this operator (`waive: [{rule, reason}]`).
    pub waive: Vec<Waive>,
    /// The namespace the operator watches (`watchNamespace:`), for bundles installed in
    /// OwnNamespace (equal to `namespace`) or SingleNamespace (another) mode; `None`: all
    /// namespaces. Whether the target release honours it is checked against the release table.
    pub watch_namespace: Option<Located<String>>,
    /// The profile it asks for: its own `profile:`, else the configuration's (for an operator
    /// that is not a bootstrap one); `None` for the target release's default.
    pub profile: Option<Located<OperatorProfile>>,
    /// Its subscription-profile settings (`startingCSV`, `installMode`, `targetNamespaces`,
    /// `installPlanApproval`).
    pub subscription: SubscriptionSettings,
    /// Span of the whole entry.
    pub span: Span,
}

/// One `waive:` entry: a check rule not applied to this operator's objects, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waive {
    /// The rule id (see [`crate::rules::RULES`]).
    pub rule: Located<String>,
    /// Why it is waived (recorded in the lock file).
    pub reason: String,
}

/// A parsed version range with the text written.
#[derive(Debug, Clone)]
pub struct VersionRange {
    /// The text as written.
    pub text: String,
    /// The parsed range.
    pub range: masterminds::Range,
}

impl PartialEq for VersionRange {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}
impl Eq for VersionRange {}

/// Errors reading the configuration.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// No configuration was found in the install directory.
    #[error("no platformOperators configuration found: looked for {} (a `platformOperators:` key in {} is not read: `openshift-install create manifests` drops it; write the list into platform-operators.yaml)", standalone.display(), install_config.display())]
    NotFound {
        /// The standalone file looked for.
        standalone: PathBuf,
        /// The install-config looked into.
        install_config: PathBuf,
    },
    /// The YAML is malformed or does not have the expected shape.
    #[error("{}: {message}", file.path.display())]
    Syntax {
        /// The file, with its text.
        file: Arc<SourceFile>,
        /// What the YAML reader said.
        message: String,
        /// Where.
        span: Option<Span>,
    },
    /// The YAML is well-formed but some values are invalid. Every problem found is listed.
    #[error("{}: {} invalid value{} in the platformOperators configuration", file.path.display(), problems.len(), if problems.len() == 1 { "" } else { "s" })]
    Invalid {
        /// The file, with its text.
        file: Arc<SourceFile>,
        /// Each problem with its location.
        problems: Vec<Problem>,
    },
}

impl Error {
    /// Whether the error comes from reading a file (exit status 3) rather than its content.
    pub fn is_io(&self) -> bool {
        matches!(self, Error::Io { .. })
    }
}

/// One invalid value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Where.
    pub span: Span,
    /// The field path, like `operators[1].version`.
    pub field: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it, when obvious.
    pub help: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// Raw shapes, as written.

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawFile {
    platform_operators: Spanned<RawSpec>,
}

/// install-config.yaml, only to see whether it has a `platformOperators:` key (its value is
/// never read: that placement is refused, see [`discover`]).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawInstallConfigKey {
    platform_operators: Option<Spanned<serde::de::IgnoredAny>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawSpec {
    cluster_version: Option<Spanned<String>>,
    installer: Option<Spanned<String>>,
    profile: Option<Spanned<String>>,
    #[serde(default)]
    catalogs: Vec<Spanned<RawCatalog>>,
    #[serde(default)]
    operators: Vec<Spanned<RawOperator>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawCatalog {
    name: Spanned<String>,
    source: Spanned<String>,
    sha256: Option<Spanned<String>>,
    image: Option<Spanned<String>>,
    priority: Option<Spanned<i32>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawOperator {
    name: Spanned<String>,
    package: Spanned<String>,
    channel: Option<Spanned<String>>,
    channels: Option<Spanned<Vec<Spanned<String>>>>,
    version: Option<Spanned<String>>,
    catalog: Option<Spanned<String>>,
    namespace: Option<Spanned<String>>,
    bootstrap: Option<Spanned<strict::StrictBool>>,
    upgrade: Option<Spanned<String>>,
    upgrade_constraint_policy: Option<Spanned<String>>,
    installed: Option<Spanned<RawInstalled>>,
    // Bootstrap readiness (issue 15).
    role: Option<Spanned<String>>,
    waive: Option<Vec<Spanned<RawWaive>>>,
    watch_namespace: Option<Spanned<String>>,
    // The subscription profile (OLM v0).
    profile: Option<Spanned<String>>,
    #[serde(rename = "startingCSV")]
    starting_csv: Option<Spanned<String>>,
    install_mode: Option<Spanned<String>>,
    target_namespaces: Option<Spanned<Vec<Spanned<String>>>>,
    install_plan_approval: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawWaive {
    rule: Spanned<String>,
    reason: Spanned<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawInstalled {
    bundle: Spanned<String>,
    version: Spanned<String>,
}

/// Largest configuration file read (a config is a few KB; this guards against mistakes).
const MAX_CONFIG_BYTES: u64 = 16 * 1024 * 1024;

/// Read a file's text, refusing huge or non-UTF-8 files; under a directory (`root`) a symbolic
/// link that leaves it is refused, naming the link, and its target is never read.
pub(crate) fn read_source_in(path: &Path, root: Option<&Path>) -> Result<Arc<SourceFile>, Error> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    // Capped by bytes read, regular files only (issue 14: `/dev/zero`, pipes, FIFOs).
    let text = crate::fsread::read_to_string(path, MAX_CONFIG_BYTES, root).map_err(io)?;
    Ok(Arc::new(SourceFile {
        path: path.to_path_buf(),
        text,
    }))
}

/// Parse YAML text into `T`, mapping errors to [`Error::Syntax`] with their location.
pub(crate) fn parse_yaml<T: for<'de> Deserialize<'de>>(file: &Arc<SourceFile>) -> Result<T, Error> {
    let options = serde_saphyr::options! { with_snippet: false };
    serde_saphyr::from_str_with_options(&file.text, options).map_err(|e| syntax(file, &e))
}

/// A reader error as [`Error::Syntax`], in our words ([`strict::describe`]), with its place.
fn syntax(file: &Arc<SourceFile>, e: &serde_saphyr::Error) -> Error {
    let span = e
        .location()
        .and_then(|l| Span::from_location(&file.text, &l));
    let message = strict::describe(e);
    let (message, span) = match span.and_then(|s| indentation_fault(&file.text, s.line)) {
        Some((why, at)) => (format!("{why} ({message})"), Some(at)),
        None => (message, span),
    };
    Error::Syntax {
        file: file.clone(),
        message,
        span,
    }
}

/// The indentation mistake behind a reader error reported at `line`, said at the line that
/// holds it: a tab in the indentation of that line or the one before or after (the reader
/// stops a token early, on the line before), or a key indented unlike the lines around it,
/// which agree with each other.
fn indentation_fault(text: &str, line: usize) -> Option<(String, Span)> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let start_of = |n: usize| lines[..n - 1].iter().map(|l| l.len()).sum::<usize>();
    let lead = |l: &str| l.len() - l.trim_start_matches([' ', '\t']).len();
    for n in line.saturating_sub(1).max(1)..=(line + 1).min(lines.len()) {
        let l = lines[n - 1];
        if let Some(tab) = l[..lead(l)].find('\t') {
            return Some((
                format!("line {n} is indented with a tab; YAML indents with spaces only"),
                Span::from_bytes(text, start_of(n) + tab, 1),
            ));
        }
    }
    let blank = |l: &str| l.trim().is_empty() || l.trim_start().starts_with('#');
    let here = *lines.get(line.checked_sub(1)?)?;
    if blank(here) {
        return None;
    }
    let before = lines[..line - 1].iter().rev().find(|l| !blank(l))?;
    let after = lines[line..].iter().find(|l| !blank(l))?;
    let key_like = |l: &str| !l.trim_start().starts_with('-');
    let (h, b, a) = (lead(here), lead(before), lead(after));
    if key_like(here) && key_like(before) && key_like(after) && b == a && h != b {
        return Some((
            format!(
                "line {line} is indented {h} space{} where the keys around it have {b}; indent it as they are",
                if h == 1 { "" } else { "s" }
            ),
            Span::from_bytes(text, start_of(line) + h, here.trim_end().len() - h),
        ));
    }
    None
}

/// [`parse_yaml`] for the platformOperators configuration: booleans only from unquoted
/// `true`/`false`, and no YAML tags but `!!str` ([`strict`]).
pub(crate) fn parse_yaml_strict<T: for<'de> Deserialize<'de>>(
    file: &Arc<SourceFile>,
) -> Result<T, Error> {
    strict::refuse_tags(file)?;
    let options = serde_saphyr::options! {
        with_snippet: false,
        strict_booleans: true,
        reject_unsupported_tags: true,
    };
    serde_saphyr::from_str_with_options(&file.text, options).map_err(|e| syntax(file, &e))
}

/// Read a standalone `platform-operators.yaml`.
pub fn read_file(path: &Path) -> Result<Config, Error> {
    read_file_in(path, None)
}

fn read_file_in(path: &Path, root: Option<&Path>) -> Result<Config, Error> {
    let file = read_source_in(path, root)?;
    let raw: RawFile = parse_yaml_strict(&file)?;
    build(file, raw.platform_operators)
}

/// Where `install-config.yaml` has a `platformOperators:` key; `Ok(None)` when it has none.
fn install_config_key_in(
    path: &Path,
    root: Option<&Path>,
) -> Result<Option<(Arc<SourceFile>, Span)>, Error> {
    let file = read_source_in(path, root)?;
    let raw: RawInstallConfigKey = parse_yaml_strict(&file)?;
    Ok(raw.platform_operators.map(|value| {
        // The key itself (a top-level key starts its line), else where its value starts.
        const KEY: &str = "platformOperators:";
        let key = file
            .text
            .match_indices(KEY)
            .map(|(i, _)| i)
            .find(|i| *i == 0 || file.text.as_bytes()[i - 1] == b'\n');
        let span = match key {
            Some(i) => Span::from_bytes(&file.text, i, KEY.len() - 1),
            None => span_of(&file, &value),
        };
        (file, span)
    }))
}

/// Why a `platformOperators:` key in install-config.yaml is refused, and the order that works.
///
/// openshift-install warns about the unknown key and goes on, but `create manifests` consumes
/// install-config.yaml and keeps only what its `InstallConfig` type holds: `AssetBase.RecordFile`
/// re-marshals the typed struct (openshift/installer `pkg/asset/installconfig/
/// installconfigbase.go`), and that is what `.openshift_install_state.json` and
/// `manifests/cluster-config.yaml` (ConfigMap `cluster-config-v1`) keep. So after the installer's
/// step, the order the README gives, the key is nowhere to be read (issue 33 item 3).
pub const INSTALL_CONFIG_KEY_REFUSED: &str = "platformOperators is not read from install-config.yaml: `openshift-install create manifests` consumes that file and keeps only the fields of its own InstallConfig type (re-marshalled into .openshift_install_state.json and manifests/cluster-config.yaml), so this list would be gone by the time po-manifests runs";

/// The order that works, for [`INSTALL_CONFIG_KEY_REFUSED`].
pub const INSTALL_CONFIG_KEY_HELP: &str = "move the platformOperators: block into platform-operators.yaml beside install-config.yaml, then run `openshift-install create manifests --dir D`, then `po-manifests create --dir D`";

/// Find and read the configuration for an install directory: `--config` if given, else
/// `D/platform-operators.yaml`. Without that file, a `platformOperators:` key in
/// `D/install-config.yaml` is refused with the order that works ([`INSTALL_CONFIG_KEY_REFUSED`]),
/// never read. A symbolic link there that leaves `D` is refused, never read.
pub fn discover(dir: &Path, explicit: Option<&Path>) -> Result<Config, Error> {
    if let Some(path) = explicit {
        return read_file(path);
    }
    let standalone = dir.join("platform-operators.yaml");
    // Whatever is there is read (and refused when it is not a regular file): a FIFO is not
    // "no configuration".
    if crate::fsread::is_there(&standalone) {
        return read_file_in(&standalone, Some(dir));
    }
    let install_config = dir.join("install-config.yaml");
    if crate::fsread::is_there(&install_config)
        && let Some((file, span)) = install_config_key_in(&install_config, Some(dir))?
    {
        return Err(Error::Invalid {
            file,
            problems: vec![Problem {
                span,
                field: "platformOperators".into(),
                message: INSTALL_CONFIG_KEY_REFUSED.into(),
                help: Some(INSTALL_CONFIG_KEY_HELP.into()),
            }],
        });
    }
    Err(Error::NotFound {
        standalone,
        install_config,
    })
}

fn span_of<T>(file: &SourceFile, s: &Spanned<T>) -> Span {
    Span::from_location(&file.text, &s.referenced).unwrap_or_default()
}

fn located(file: &SourceFile, s: &Spanned<String>) -> Located<String> {
    Located {
        value: s.value.clone(),
        span: span_of(file, s),
    }
}

/// Type and check the raw spec, collecting every problem.
fn build(file: Arc<SourceFile>, spec: Spanned<RawSpec>) -> Result<Config, Error> {
    let mut problems = Vec::new();
    let mut problem = |span: Span, field: String, message: String, help: Option<String>| {
        problems.push(Problem {
            span,
            field,
            message,
            help,
        })
    };
    let spec_span = span_of(&file, &spec);
    let spec = spec.value;

    let cluster_version = spec.cluster_version.as_ref().and_then(|cv| {
        let span = span_of(&file, cv);
        match ClusterVersion::parse(&cv.value) {
            Ok(value) => Some(Located { value, span }),
            Err(message) => {
                problem(span, "clusterVersion".into(), message, None);
                None
            }
        }
    });

    let installer = spec.installer.as_ref().and_then(|i| {
        let span = span_of(&file, i);
        match rules::Installer::parse(&i.value) {
            Ok(value) => Some(Located { value, span }),
            Err(message) => {
                problem(
                    span,
                    "installer".into(),
                    message,
                    Some("the installer that reads the install directory: openshift-install (the default), agent or assisted".into()),
                );
                None
            }
        }
    });

    let profile = spec.profile.as_ref().and_then(|p| {
        let span = span_of(&file, p);
        match OperatorProfile::parse(&p.value) {
            Ok(value) => Some(Located { value, span }),
            Err(message) => {
                problem(span, "profile".into(), message, None);
                None
            }
        }
    });

    let mut catalogs = Vec::new();
    let mut catalog_names = BTreeSet::new();
    let base = file.path.parent().unwrap_or(Path::new("")).to_path_buf();
    if spec.catalogs.is_empty() {
        problem(
            spec_span,
            "catalogs".into(),
            "no catalogs are configured".into(),
            Some("add a `catalogs:` list with at least one File-Based Catalog source".into()),
        );
    }
    for (i, c) in spec.catalogs.iter().enumerate() {
        let c = &c.value;
        let name = located(&file, &c.name);
        let field = |f: &str| format!("catalogs[{i}].{f}");
        if let Err(m) = check_dns_label(&name.value, 63) {
            problem(name.span, field("name"), m, None);
        }
        if !catalog_names.insert(name.value.clone()) {
            problem(
                name.span,
                field("name"),
                format!("catalog \"{}\" is defined twice", name.value),
                None,
            );
        }
        let src = located(&file, &c.source);
        let location = if src.value.starts_with("https://") {
            CatalogLocation::Url(src.value.clone())
        } else if src.value.contains("://") {
            problem(
                src.span,
                field("source"),
                format!("unsupported URL scheme in \"{}\"", src.value),
                Some("use a local directory or file, or an https:// URL".into()),
            );
            CatalogLocation::Url(src.value.clone())
        } else if src.value.trim().is_empty() {
            problem(src.span, field("source"), "source is empty".into(), None);
            CatalogLocation::Path(PathBuf::new())
        } else {
            CatalogLocation::Path(base.join(&src.value))
        };
        let sha256 = c.sha256.as_ref().map(|s| {
            let mut l = located(&file, s);
            let hex = l
                .value
                .strip_prefix("sha256:")
                .unwrap_or(&l.value)
                .to_ascii_lowercase();
            if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                problem(
                    l.span,
                    field("sha256"),
                    format!(
                        "\"{}\" is not a sha256 digest (64 hexadecimal digits)",
                        l.value
                    ),
                    None,
                );
            }
            l.value = hex;
            l
        });
        let image = c.image.as_ref().map(|s| located(&file, s));
        catalogs.push(CatalogSource {
            name,
            source: Located {
                value: location,
                span: src.span,
            },
            sha256,
            image,
            priority: c.priority.as_ref().map(|p| p.value).unwrap_or(0),
        });
    }

    let mut operators = Vec::new();
    let mut operator_names = BTreeSet::new();
    if spec.operators.is_empty() {
        problem(
            spec_span,
            "operators".into(),
            "no operators are configured".into(),
            Some("add an `operators:` list naming at least one package".into()),
        );
    }
    for (i, o) in spec.operators.iter().enumerate() {
        let span = span_of(&file, o);
        let o = &o.value;
        let field = |f: &str| format!("operators[{i}].{f}");
        let name = located(&file, &o.name);
        if let Err(m) = check_dns_label(&name.value, MAX_OPERATOR_NAME) {
            problem(name.span, field("name"), m, None);
        }
        if !operator_names.insert(name.value.clone()) {
            problem(
                name.span,
                field("name"),
                format!("operator \"{}\" is listed twice", name.value),
                None,
            );
        }
        let package = located(&file, &o.package);
        if let Err(m) = check_dns_label(&package.value, MAX_PACKAGE_NAME) {
            problem(package.span, field("package"), m, None);
        }
        let mut channels = Vec::new();
        match (&o.channel, &o.channels) {
            (Some(c), Some(cs)) => problem(
                span_of(&file, cs),
                field("channels"),
                "both `channel` and `channels` are set".into(),
                Some(format!(
                    "list \"{}\" under `channels` and remove `channel`",
                    c.value
                )),
            ),
            (Some(c), None) => channels.push(located(&file, c)),
            (None, Some(cs)) => channels.extend(cs.value.iter().map(|c| located(&file, c))),
            (None, None) => {}
        }
        for c in &channels {
            if c.value.trim().is_empty() {
                problem(
                    c.span,
                    field("channels"),
                    "channel name is empty".into(),
                    None,
                );
            }
        }
        let version = o.version.as_ref().and_then(|v| {
            let l = located(&file, v);
            if l.value.len() > MAX_VERSION_RANGE {
                problem(
                    l.span,
                    field("version"),
                    format!(
                        "version range is {} characters long; OLM accepts at most {MAX_VERSION_RANGE}",
                        l.value.len()
                    ),
                    None,
                );
                return None;
            }
            match masterminds::Range::parse(&l.value) {
                Ok(range) => Some(Located { value: VersionRange { text: l.value, range }, span: l.span }),
                Err(e) => {
                    let inner = l.span.inner(&file.text, e.span());
                    problem(inner, field("version"), e.to_string().lines().next().unwrap_or_default().to_string(), None);
                    None
                }
            }
        });
        let catalog = o.catalog.as_ref().map(|c| located(&file, c));
        if let Some(c) = &catalog
            && !catalog_names.contains(&c.value)
        {
            let known: Vec<&str> = catalog_names.iter().map(String::as_str).collect();
            problem(
                c.span,
                field("catalog"),
                format!("no catalog named \"{}\" is configured", c.value),
                Some(if known.is_empty() {
                    "add it under `catalogs:`".into()
                } else {
                    format!("configured catalogs: {}", known.join(", "))
                }),
            );
        }
        let namespace = o.namespace.as_ref().map(|n| located(&file, n));
        if let Some(n) = &namespace
            && let Err(m) = check_dns_label(&n.value, 63)
        {
            problem(n.span, field("namespace"), m, None);
        }
        let upgrade = o.upgrade.as_ref().and_then(|u| {
            let l = located(&file, u);
            UpgradePolicy::parse(&l.value)
                .map_err(|m| problem(l.span, field("upgrade"), m, None))
                .ok()
        });
        let upgrade_constraint_policy = o.upgrade_constraint_policy.as_ref().and_then(|u| {
            let l = located(&file, u);
            UpgradeConstraintPolicy::parse(&l.value)
                .map_err(|m| {
                    let help = UpgradeConstraintPolicy::suggestion(&l.value)
                        .map(|s| format!("did you mean `{s}`?"));
                    problem(l.span, field("upgradeConstraintPolicy"), m, help)
                })
                .ok()
        });
        let installed = o.installed.as_ref().and_then(|i| {
            let bundle = located(&file, &i.value.bundle);
            let version = located(&file, &i.value.version);
            if bundle.value.trim().is_empty() {
                problem(
                    bundle.span,
                    field("installed.bundle"),
                    "bundle name is empty".into(),
                    None,
                );
            }
            match crate::version::parse_bundle_version(&version.value).map_err(|e| e.to_string()) {
                Ok(parsed) => Some(InstalledBundle {
                    bundle,
                    version,
                    parsed,
                }),
                Err(m) => {
                    problem(version.span, field("installed.version"), m, None);
                    None
                }
            }
        });
        // Bootstrap readiness (issue 15): role and waivers.
        let bootstrap = o.bootstrap.as_ref().is_some_and(|b| b.value.0);
        let role = o.role.as_ref().and_then(|r| {
            let l = located(&file, r);
            match Role::parse(&l.value) {
                Ok(role) if role != Role::Other && !bootstrap => {
                    problem(
                        l.span,
                        field("role"),
                        format!("role {} applies only to a bootstrap operator", l.value),
                        Some("add `bootstrap: true`".into()),
                    );
                    None
                }
                Ok(role) => Some(role),
                Err(m) => {
                    problem(l.span, field("role"), m, None);
                    None
                }
            }
        });
        let mut waive = Vec::new();
        for (j, w) in o.waive.iter().flatten().enumerate() {
            let rule = located(&file, &w.value.rule);
            if rules::rule(&rule.value).is_none() {
                let known = rules::RULES.iter().map(|r| r.id);
                let near = known
                    .min_by_key(|id| strsim::levenshtein(id, &rule.value))
                    .map(|id| format!("did you mean `{id}`?"));
                problem(
                    rule.span,
                    field(&format!("waive[{j}].rule")),
                    format!("no check rule is named \"{}\"", rule.value),
                    near,
                );
            }
            if w.value.reason.value.trim().is_empty() {
                problem(
                    span_of(&file, &w.value.reason),
                    field(&format!("waive[{j}].reason")),
                    "a waiver needs a reason".into(),
                    None,
                );
            }
            waive.push(Waive {
                rule,
                reason: w.value.reason.value.trim().to_string(),
            });
        }
        // `watchNamespace`: a namespace name (OLM v1 reads it as a DNS-1123 label in its config
        // schema, and `applier/watchnamespace.go` refuses what is not a DNS-1123 subdomain).
        let watch_namespace = o.watch_namespace.as_ref().map(|n| located(&file, n));
        if let Some(n) = &watch_namespace
            && let Err(m) = check_dns_label(&n.value, 63)
        {
            problem(n.span, field("watchNamespace"), m, None);
        }
        // The subscription profile (OLM v0).
        let bootstrap_flag = o.bootstrap.as_ref().is_some_and(|b| b.value.0);
        let own_profile = o.profile.as_ref().and_then(|p| {
            let span = span_of(&file, p);
            OperatorProfile::parse(&p.value)
                .map(|value| Located { value, span })
                .map_err(|m| problem(span, field("profile"), m, None))
                .ok()
        });
        let op_profile = own_profile.or_else(|| profile.clone().filter(|_| !bootstrap_flag));
        let starting_csv = o.starting_csv.as_ref().map(|s| located(&file, s));
        if let Some(s) = &starting_csv
            && s.value.trim().is_empty()
        {
            problem(
                s.span,
                field("startingCSV"),
                "startingCSV is empty".into(),
                None,
            );
        }
        let install_mode = o.install_mode.as_ref().and_then(|m| {
            let span = span_of(&file, m);
            InstallMode::parse(&m.value)
                .map(|value| Located { value, span })
                .map_err(|msg| problem(span, field("installMode"), msg, None))
                .ok()
        });
        let target_namespaces: Vec<Located<String>> = o
            .target_namespaces
            .iter()
            .flat_map(|t| t.value.iter().map(|n| located(&file, n)))
            .collect();
        for n in &target_namespaces {
            if let Err(m) = check_dns_label(&n.value, 63) {
                problem(n.span, field("targetNamespaces"), m, None);
            }
        }
        let install_plan_approval = o.install_plan_approval.as_ref().and_then(|a| {
            let span = span_of(&file, a);
            Approval::parse(&a.value)
                .map(|value| Located { value, span })
                .map_err(|msg| problem(span, field("installPlanApproval"), msg, None))
                .ok()
        });
        let subscription_settings = SubscriptionSettings {
            starting_csv,
            install_mode,
            target_namespaces_span: o.target_namespaces.as_ref().map(|t| span_of(&file, t)),
            target_namespaces,
            install_plan_approval,
        };
        operators.push(Operator {
            profile: op_profile,
            subscription: subscription_settings,
            watch_namespace,
            role,
            waive,
            name,
            package,
            channels,
            version,
            catalog,
            namespace,
            bootstrap: match &o.bootstrap {
                Some(b) => {
                    if let Err(m) = strict::check_bool_spelling(&file, span_of(&file, b)) {
                        problem(span_of(&file, b), field("bootstrap"), m, None);
                    }
                    b.value.0
                }
                None => false,
            },
            upgrade: upgrade.unwrap_or_default(),
            upgrade_constraint_policy: upgrade_constraint_policy.unwrap_or_default(),
            installed,
            span,
        });
        // What the profile asked for cannot take, or settings of a profile not asked for.
        let op = operators.last().expect("just pushed");
        if op.profile.is_some() || op.bootstrap {
            let found = if op.bootstrap && op.profile.is_none() {
                subscription::misplaced(op).into_iter().collect()
            } else {
                subscription::problems(op)
            };
            for p in found {
                problem(p.span, field(p.field), p.message, p.help);
            }
        }
    }

    if !problems.is_empty() {
        problems.sort_by_key(|p| p.span.offset);
        return Err(Error::Invalid { file, problems });
    }
    Ok(Config {
        source: file,
        cluster_version,
        catalogs,
        operators,
        installer,
        profile,
    })
}

/// A configuration name checked as the API server checks a DNS-1123 label of at most `max`
/// bytes ([`crate::kubenames::check_label`]); the message names the value, escaped.
pub fn check_dns_label(value: &str, max: usize) -> Result<(), String> {
    crate::kubenames::check_label(value, max).map_err(|why| {
        if value.is_empty() {
            "must not be empty".to_string()
        } else {
            format!("{} {why}", crate::text::escape(value))
        }
    })
}

#[cfg(test)]
mod tests;
