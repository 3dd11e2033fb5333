//! The command line as typed: clap derive structs, no I/O.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Resolve platform operators against a File-Based Catalog snapshot and write pinned install
/// manifests for openshift-install.
#[derive(Debug, Parser)]
#[command(name = "po-manifests", version, about, long_about = None, propagate_version = true)]
pub struct Flags {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Resolve every operator and write its manifests into DIR/manifests, with a lock file.
    Create(CreateArgs),
    /// Resolve every operator and print the choice, writing nothing.
    Resolve(ResolveArgs),
    /// Show which versions a range admits: one `VERSION<TAB>true|false|invalid` line each.
    Range(RangeArgs),
    /// Check and list File-Based Catalogs.
    #[command(subcommand)]
    Catalog(CatalogCommand),
    /// Work with registry+v1 bundles.
    #[command(subcommand)]
    Bundle(BundleCommand),
    /// List every image the resolved operators pull (bundle, relatedImages, bootstrap
    /// workloads), and check them against the install-config mirror rules.
    Images(ImagesArgs),
    /// Write an oc-mirror v2 ImageSetConfiguration that mirrors exactly the resolved bundles.
    MirrorConfig(MirrorConfigArgs),
    /// Plan the platform operators through a cluster upgrade: what moves before and after it,
    /// and what blocks it (exit 1 when blocked).
    UpgradePlan(UpgradePlanArgs),
    /// Check DIR/manifests and DIR/openshift as the installer and cluster-bootstrap will read
    /// them, with the readiness rules for bootstrap operators (exit 1 on any error).
    Check(CheckArgs),
    /// Print a shell completion script (e.g. `po-manifests completion bash >
    /// /etc/bash_completion.d/po-manifests`).
    Completion(CompletionArgs),
    /// Print the manual page po-manifests(1) in roff (`po-manifests man | man -l -`), or write
    /// it with one page per command into a folder.
    Man(ManArgs),
}

/// `check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The openshift-install directory (reads manifests/, openshift/, install-config.yaml or
    /// manifests/cluster-config.yaml, and the lock file's waivers).
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The role of a workload: NAME or NAMESPACE/NAME of a Deployment, DaemonSet, … and
    /// cloud-controller-manager, machine-api or other (repeatable; the
    /// po-manifests.openshift.io/role label is read too).
    #[arg(long, value_name = "NAME=ROLE")]
    pub role: Vec<String>,
    /// Target OpenShift release (default: the configuration's or the lock file's clusterVersion,
    /// else the newest release known).
    #[arg(long, value_name = "VERSION")]
    pub cluster_version: Option<String>,
    /// Output format: `table` is one line per problem (file:line, severity, rule, object);
    /// `json` and `yaml` are one document (`{"problems": [...], "waived": [...], "notes": [...]}`).
    #[arg(short = 'o', long, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,
    /// The installer that reads DIR: `openshift-install` (cluster-bootstrap creates the first
    /// document of each file), `agent` (openshift/*.yaml and *.yml, split into one object per
    /// document) or `assisted` (custom manifests, split likewise) (default: the configuration's
    /// `installer:`, else openshift-install).
    #[arg(long, value_name = "INSTALLER", value_parser = installer_parser())]
    pub installer: Option<crate::rules::Installer>,
    /// Follow DIR/manifests or DIR/openshift where it is a symbolic link that leaves DIR (a
    /// folder on another disk): without it such a link is refused, and nothing is read or
    /// written through it.
    #[arg(long)]
    pub follow_links: bool,
}

/// `completion`.
#[derive(Debug, Args)]
pub struct CompletionArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write po-manifests.1 and one page per command (po-manifests-create.1,
    /// po-manifests-catalog-validate.1, …) into DIR, creating it, and print the files written,
    /// instead of printing po-manifests(1).
    #[arg(long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
}

/// How catalogs over HTTPS are fetched.
#[derive(Debug, Args, Clone)]
pub struct NetworkArgs {
    /// Never open a network connection: `https://` catalogs and bundle images come from the
    /// cache (and `--oci-layout`, `--bundles`) only.
    #[arg(long)]
    pub offline: bool,
    /// Where downloaded catalogs and unpacked bundle images are cached (default: the user cache
    /// directory, po-manifests).
    #[arg(long, value_name = "DIR", env = "PO_MANIFESTS_CACHE_DIR")]
    pub cache_dir: Option<PathBuf>,
    /// A PEM file of CA certificates to trust for `https://` catalogs and registries, besides the
    /// system roots and install-config `additionalTrustBundle` (repeatable).
    #[arg(long, value_name = "FILE")]
    pub ca_file: Vec<PathBuf>,
    /// Timeout for connecting to a catalog server or registry (e.g. 500ms, 10s).
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = crate::fetch::parse_duration)]
    pub connect_timeout: std::time::Duration,
    /// Timeout for one whole download attempt.
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = crate::fetch::parse_duration)]
    pub timeout: std::time::Duration,
    /// Retries after a connection error, HTTP 429 or 5xx (with exponential backoff).
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(0..=10))]
    pub retries: u32,
    /// Wait before the first retry (doubled for each further one).
    #[arg(long, value_name = "DURATION", default_value = "250ms", value_parser = crate::fetch::parse_duration)]
    pub retry_backoff: std::time::Duration,
    /// The largest `https://` catalog accepted, in bytes, as downloaded and as decompressed (a
    /// larger one is refused and nothing is cached).
    #[arg(long, value_name = "BYTES", default_value_t = crate::fetch::DEFAULT_MAX_CATALOG_BYTES, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_catalog_size: u64,
}

/// Where bundle content comes from when the catalog does not embed it (`olm.csv.metadata`
/// only, as in catalogs from OpenShift 4.17 on).
#[derive(Debug, Args, Clone)]
pub struct BundleSourceArgs {
    /// A directory of unpacked bundles (`manifests/` and `metadata/`), the bundle itself or
    /// bundles up to two levels below it, matched by CSV name (repeatable).
    #[arg(long = "bundles", value_name = "DIR")]
    pub bundles: Vec<PathBuf>,
    /// An OCI image layout holding bundle images, as `skopeo copy` or oc-mirror write it
    /// (repeatable; searched before any registry).
    #[arg(long = "oci-layout", value_name = "DIR")]
    pub oci_layouts: Vec<PathBuf>,
    /// Registry credentials in containers-auth.json format, used before install-config
    /// `pullSecret`.
    #[arg(long, value_name = "FILE")]
    pub authfile: Option<PathBuf>,
    /// The largest bundle image accepted, in bytes: per blob, per decompressed layer and in
    /// all unpacked files.
    #[arg(long, value_name = "BYTES", default_value_t = 100 * 1024 * 1024)]
    pub max_bundle_size: u64,
    /// How many bundle images to pull at once, when several are needed (1 to 64). Each pull
    /// keeps its own --retries; what is reported does not depend on the order pulls finish in.
    #[arg(long, value_name = "N", default_value_t = crate::bundle::source::DEFAULT_JOBS as u16,
          value_parser = clap::value_parser!(u16).range(1..=crate::bundle::source::MAX_JOBS as i64))]
    pub jobs: u16,
}

/// `images`.
#[derive(Debug, Args)]
pub struct ImagesArgs {
    /// Inputs.
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format: `table`, one image per line; `json` or `yaml`, every image with who needs
    /// it, and the mirror findings.
    #[arg(short = 'o', long, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,
    /// Exit 1 unless every image is pinned by digest and covered by a mirror rule (the default
    /// when install-config has mirror rules).
    #[arg(long, conflicts_with = "no_mirror_check")]
    pub mirror_check: bool,
    /// Do not check images against mirror rules.
    #[arg(long)]
    pub no_mirror_check: bool,
    /// Where bootstrap operators' bundle content comes from when the catalog does not embed it.
    #[command(flatten)]
    pub bundle_sources: BundleSourceArgs,
    /// List a bundle image the catalog gives by tag only, and whose digest cannot be looked up,
    /// as the tag, marked as not a pin (otherwise a PlatformOperator's such image is refused).
    #[arg(long)]
    pub allow_tags: bool,
}

/// `mirror-config`.
#[derive(Debug, Args)]
pub struct MirrorConfigArgs {
    /// Inputs.
    #[command(flatten)]
    pub input: InputArgs,
    /// Write the ImageSetConfiguration here (atomically) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output_file: Option<PathBuf>,
    /// Output format: `yaml`, the ImageSetConfiguration as oc-mirror reads it (with comments);
    /// `json`, the same document as JSON (oc-mirror reads that too), without the comments.
    #[arg(short = 'o', long, value_enum, default_value_t = DocumentFormat::Yaml)]
    pub output: DocumentFormat,
    /// Where tag-only bundle images are looked up by digest (`--oci-layout`, the registry).
    #[command(flatten)]
    pub bundle_sources: BundleSourceArgs,
    /// Keep a bundle image the catalog gives by tag only, and whose digest cannot be looked up,
    /// as a tag, noted in the output as not a pin (otherwise a PlatformOperator's such image is
    /// refused).
    #[arg(long)]
    pub allow_tags: bool,
    /// With --update-graph: the release the cluster updates to; the platform release images
    /// of the path from the current release are added (`mirror.platform`).
    #[arg(long, value_name = "VERSION", requires = "update_graph")]
    pub to: Option<String>,
    /// The current release (default: the lock file's clusterVersion, else the
    /// configuration's).
    #[arg(long, value_name = "VERSION", requires = "to")]
    pub from: Option<String>,
    /// The update graph the path is found on (a file or an https:// URL; repeatable), as for
    /// upgrade-plan.
    #[arg(long = "update-graph", value_name = "FILE|URL", requires = "to")]
    pub update_graph: Vec<String>,
    /// Only releases of this channel on the path.
    #[arg(long, value_name = "NAME", requires = "to")]
    pub channel: Option<String>,
    /// Also take updates whose risks apply to every cluster.
    #[arg(long, requires = "to")]
    pub allow_not_recommended: bool,
}

/// `catalog …`.
#[derive(Debug, Subcommand)]
pub enum CatalogCommand {
    /// Check a catalog with every rule `opm validate` enforces. Exit 1 when it is invalid.
    Validate(CatalogValidateArgs),
    /// List packages, channels or bundles, like `opm alpha list`.
    List(CatalogListArgs),
    /// Print a catalog's content digest: the whole catalog's (what a `sha256:` pin names), or
    /// with `--package`, the digest of the files holding those packages' documents (what a
    /// lock file records for a run that reads them).
    Digest(CatalogDigestArgs),
}

/// `catalog digest`.
#[derive(Debug, Args)]
pub struct CatalogDigestArgs {
    /// The catalog: a directory or a file.
    pub path: PathBuf,
    /// Only the files holding this package's documents (repeatable).
    #[arg(long = "package")]
    pub packages: Vec<String>,
}

/// `catalog validate`.
#[derive(Debug, Args)]
pub struct CatalogValidateArgs {
    /// The catalog: a directory or a file.
    pub path: PathBuf,
    /// Output format: `table`, one line per problem on stderr; `json` or `yaml`, the problems
    /// as a document on stdout.
    #[arg(short = 'o', long, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,
    /// Treat channels with several heads as warnings, as OLM v1 resolution does (opm rejects them).
    #[arg(long)]
    pub allow_multiple_heads: bool,
}

/// What `catalog list` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListWhat {
    /// Packages with their default channel.
    Packages,
    /// Channels with their heads.
    Channels,
    /// Bundles with their edges.
    Bundles,
}

/// `catalog list`.
#[derive(Debug, Args)]
pub struct CatalogListArgs {
    /// What to list.
    #[arg(value_enum)]
    pub what: ListWhat,
    /// The catalog: a directory or a file.
    pub path: PathBuf,
    /// Only this package.
    #[arg(long)]
    pub package: Option<String>,
    /// Output format: `table`, aligned columns; `wide`, every column; `name`, one name a line
    /// (packages; `PACKAGE/CHANNEL`; bundles), as `kubectl get -o name`; `json` or `yaml`, one
    /// object per row with camelCase keys; for `channels`, `mermaid` or `dot` draw each
    /// package's upgrade graph (replaces, skips, skipRange; heads and deprecations marked), as
    /// `opm alpha render-graph` does.
    #[arg(short = 'o', long, value_enum, default_value_t = ListFormat::Table)]
    pub output: ListFormat,
    /// Print the table without its header line (as `kubectl get --no-headers`).
    #[arg(long)]
    pub no_headers: bool,
}

/// Output formats of `catalog list`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    /// Aligned columns fitted to the terminal (the default; `text` is accepted too).
    #[value(alias = "text")]
    Table,
    /// Every column.
    Wide,
    /// One name a line, for scripts.
    Name,
    /// JSON, camelCase keys.
    Json,
    /// YAML, the same document as JSON.
    Yaml,
    /// A Mermaid flowchart (`channels`).
    Mermaid,
    /// A Graphviz DOT digraph (`channels`).
    Dot,
}

impl ListFormat {
    /// Whether this is text for people or a line-per-name list (escaped like text), rather
    /// than a document or a picture.
    pub fn is_text(self) -> bool {
        matches!(
            self,
            ListFormat::Table | ListFormat::Wide | ListFormat::Name
        )
    }
}

/// `bundle …`.
#[derive(Debug, Subcommand)]
pub enum BundleCommand {
    /// Convert a registry+v1 bundle into the plain objects OLM v1 would create, one per file.
    Render(BundleRenderArgs),
    /// Unpack one bundle image (its `manifests/` and `metadata/`) into a directory.
    Pull(BundlePullArgs),
}

/// `bundle pull`.
#[derive(Debug, Args)]
pub struct BundlePullArgs {
    /// The bundle image (`registry/repository@sha256:…`, or a tag).
    pub image: String,
    /// Directory to write `manifests/` and `metadata/` into (created; must be empty or absent).
    #[arg(long)]
    pub output_dir: PathBuf,
    /// The openshift-install directory whose install-config gives `pullSecret`, mirror rules,
    /// `additionalTrustBundle` and `proxy`.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Where bundle images come from.
    #[command(flatten)]
    pub sources: BundleSourceArgs,
    /// Fetching.
    #[command(flatten)]
    pub network: NetworkArgs,
    /// No progress line on stderr (drawn only when stderr is a terminal).
    #[arg(short, long)]
    pub quiet: bool,
}

/// `bundle render`.
#[derive(Debug, Args)]
pub struct BundleRenderArgs {
    /// A bundle directory (`manifests/` and `metadata/`), or a bundle image reference
    /// (`registry/repository@sha256:…`) to pull.
    #[arg(required_unless_present = "catalog", conflicts_with = "catalog")]
    pub bundle_dir: Option<PathBuf>,
    /// A catalog holding the bundle (with `--bundle`, or every bundle with `--all`), instead
    /// of a bundle directory.
    #[arg(long)]
    pub catalog: Option<PathBuf>,
    /// The bundle's name in the catalog.
    #[arg(long, requires = "catalog", conflicts_with = "all")]
    pub bundle: Option<String>,
    /// Render every bundle of the catalog (or of the `--package`s), each into
    /// `OUTPUT_DIR/<bundle>/`; a bundle that cannot be rendered is listed with its reason and
    /// does not stop the others (exit code 1 when any was refused).
    #[arg(long, requires = "catalog")]
    pub all: bool,
    /// With `--all`: only the bundles of this package (repeatable).
    #[arg(long = "package", value_name = "PACKAGE", requires = "all")]
    pub packages: Vec<String>,
    /// Install namespace.
    #[arg(long)]
    pub namespace: String,
    /// Namespace to watch; empty or absent means all namespaces.
    #[arg(long)]
    pub watch_namespace: Option<String>,
    /// Render as this OpenShift release's OLM v1 does (4.18 or later; default: the newest
    /// release po-manifests knows).
    #[arg(long, value_name = "V")]
    pub cluster_version: Option<String>,
    /// The cluster's featureSet (`Default`, `TechPreviewNoUpgrade`, `DevPreviewNoUpgrade`).
    #[arg(long, value_name = "NAME")]
    pub feature_set: Option<String>,
    /// Directory to write the objects into (created; must be empty or absent).
    #[arg(long)]
    pub output_dir: PathBuf,
    /// The openshift-install directory whose install-config gives `pullSecret`, mirror rules,
    /// `additionalTrustBundle` and `proxy` (for an image reference).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Where bundle images come from.
    #[command(flatten)]
    pub sources: BundleSourceArgs,
    /// Fetching.
    #[command(flatten)]
    pub network: NetworkArgs,
}

/// Where the configuration and install directory are.
#[derive(Debug, Args, Clone)]
pub struct InputArgs {
    /// The openshift-install directory (reads platform-operators.yaml or install-config.yaml,
    /// writes manifests/).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The platformOperators configuration file (default: DIR/platform-operators.yaml; a
    /// `platformOperators` key in DIR/install-config.yaml is refused: the installer drops it).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Target OpenShift release (overrides the configuration's clusterVersion).
    #[arg(long, value_name = "VERSION")]
    pub cluster_version: Option<String>,
    /// Print every candidate and why it lost.
    #[arg(long)]
    pub explain: bool,
    /// No progress on stderr (it is only shown when stderr is a terminal).
    #[arg(short, long)]
    pub quiet: bool,
    /// Follow DIR/manifests or DIR/openshift where it is a symbolic link that leaves DIR (a
    /// folder on another disk): without it such a link is refused, and nothing is read or
    /// written through it.
    #[arg(long)]
    pub follow_links: bool,
    /// Fetching `https://` catalogs.
    #[command(flatten)]
    pub network: NetworkArgs,
}

/// `create`.
#[derive(Debug, Args)]
pub struct CreateArgs {
    /// Inputs.
    #[command(flatten)]
    pub input: InputArgs,
    /// Directory with template overrides (files named like the embedded ones).
    #[arg(long, value_name = "DIR")]
    pub templates: Option<PathBuf>,
    /// Fail unless everything is exactly as the lock file says (release, catalog content,
    /// resolution, files), and leave the lock file as it is.
    #[arg(long)]
    pub locked: bool,
    /// Overwrite (or remove) manifests an earlier run wrote that were edited since (their
    /// content no longer has the sha256 the lock records); without it `create` refuses them.
    #[arg(long)]
    pub force: bool,
    /// Do not check that every image is pinned by digest and covered by an install-config
    /// mirror rule (checked by default when install-config has mirror rules).
    #[arg(long)]
    pub no_mirror_check: bool,
    /// Write a bundle image that the catalog gives by tag only, when its digest cannot be
    /// looked up (offline), into a PlatformOperator's BundleDeployment; the lock records that
    /// it is not a pin.
    #[arg(long)]
    pub allow_tags: bool,
    /// Write although some checks could not run (no install-config: feature set, capabilities,
    /// mirror and platform rules), as `resolve --allow-unchecked` exits 0; they are still named.
    #[arg(long)]
    pub allow_unchecked: bool,
    /// Where bundle content comes from when the catalog does not embed it.
    #[command(flatten)]
    pub bundle_sources: BundleSourceArgs,
    /// Output format: `table`, one written path per line; `json` or `yaml`, the written and
    /// removed files and the lock summary.
    #[arg(short = 'o', long, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,
    /// Fail at once when another po-manifests run is writing the same install directory
    /// (default: wait for it).
    #[arg(long)]
    pub no_wait: bool,
    /// The installer that reads DIR: `openshift-install` writes DIR/manifests; `agent` writes
    /// DIR/openshift (the Agent-based installer's extra manifests); `assisted` writes
    /// DIR/manifests as custom manifests to upload, names unique across manifests/ and
    /// openshift/ (default: the configuration's `installer:`, else openshift-install).
    #[arg(long, value_name = "INSTALLER", value_parser = installer_parser())]
    pub installer: Option<crate::rules::Installer>,
}

/// `--installer`: one of [`crate::rules::Installer::NAMES`], listed in `--help` and completions.
fn installer_parser() -> impl clap::builder::TypedValueParser<Value = crate::rules::Installer> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(crate::rules::Installer::NAMES)
        .try_map(|s| crate::rules::Installer::parse(&s))
}

/// `resolve`.
#[derive(Debug, Args)]
pub struct ResolveArgs {
    /// Inputs.
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format: `table`, one row per operator (NAME PACKAGE CATALOG BUNDLE VERSION
    /// IMAGE); `json` or `yaml`, each operator with its problems, warnings and skipped checks.
    #[arg(short = 'o', long, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,
    /// Print the table without its header line (as `kubectl get --no-headers`).
    #[arg(long)]
    pub no_headers: bool,
    /// Directory with template overrides (files named like the embedded ones), as for create.
    #[arg(long, value_name = "DIR")]
    pub templates: Option<PathBuf>,
    /// Write a bundle image that the catalog gives by tag only, when its digest cannot be
    /// looked up (offline), into a PlatformOperator's BundleDeployment; the lock records that
    /// it is not a pin.
    #[arg(long)]
    pub allow_tags: bool,
    /// Exit 0 although some checks could not run (bundle content that is not available
    /// offline, no install-config); they are still named.
    #[arg(long)]
    pub allow_unchecked: bool,
    /// Do not check images against install-config mirror rules, as for create.
    #[arg(long)]
    pub no_mirror_check: bool,
    /// Where bundle content comes from when the catalog does not embed it.
    #[command(flatten)]
    pub bundle_sources: BundleSourceArgs,
}

/// Output formats, shared by every command that prints data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Human-readable text: aligned columns or lines, tables fitted to the terminal's width (80
    /// when stdout is not a terminal, or `COLUMNS`); the default; `text` is accepted too.
    #[value(alias = "text")]
    Table,
    /// The text, with every table column and cell whole (as kubectl's `-o wide`).
    Wide,
    /// JSON, camelCase keys.
    Json,
    /// YAML, the same document as JSON.
    Yaml,
}

/// Output formats of a command that can also draw what it prints (`upgrade-plan`, `catalog
/// list channels`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PictureFormat {
    /// Human-readable text, tables fitted to the terminal (the default; `text` is accepted
    /// too).
    #[value(alias = "text")]
    Table,
    /// The text, with every table column and cell whole.
    Wide,
    /// JSON, camelCase keys.
    Json,
    /// YAML, the same document as JSON.
    Yaml,
    /// A Mermaid flowchart.
    Mermaid,
    /// A Graphviz DOT digraph (`dot -Tsvg`).
    Dot,
}

impl PictureFormat {
    /// Whether this is text for people (`table` or `wide`), rather than a document or a
    /// picture for a program.
    pub fn is_text(self) -> bool {
        self.data().is_some_and(OutputFormat::is_text)
    }

    /// The data or text format, `None` for a picture.
    pub fn data(self) -> Option<OutputFormat> {
        match self {
            PictureFormat::Table => Some(OutputFormat::Table),
            PictureFormat::Wide => Some(OutputFormat::Wide),
            PictureFormat::Json => Some(OutputFormat::Json),
            PictureFormat::Yaml => Some(OutputFormat::Yaml),
            PictureFormat::Mermaid | PictureFormat::Dot => None,
        }
    }
}

/// Output formats of a command whose output is one document (`mirror-config`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DocumentFormat {
    /// YAML (the default).
    Yaml,
    /// JSON, the same document.
    Json,
}

/// `range`.
#[derive(Debug, Args)]
pub struct RangeArgs {
    /// Range grammar.
    #[arg(long, value_enum, default_value_t = Grammar::Masterminds)]
    pub grammar: Grammar,
    /// The range (it may begin with `-`; flags such as `-o` are still read as flags).
    #[arg(allow_hyphen_values = true)]
    pub range: String,
    /// Versions to test (strict `X.Y.Z[-pre][+build]`, as bundle versions are read; after
    /// `--`, one that begins with `-`).
    #[arg(required = true)]
    pub versions: Vec<String>,
    /// Output format: `table`, one `VERSION<TAB>true|false|invalid` line each; `wide`, the
    /// same with why an invalid version does not parse as a third field; `json` or
    /// `yaml`, `{"range", "grammar", "versions": [{"version", "matches", "invalid"}]}`.
    #[arg(short = 'o', long, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,
}

/// Range grammars.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Grammar {
    /// Masterminds/semver v3 (OLM v1 ClusterExtension `version`).
    Masterminds,
    /// blang/semver v4 (FBC `skipRange`, OLM v0 dependencies).
    Blang,
}

/// `upgrade-plan`.
#[derive(Debug, Args)]
pub struct UpgradePlanArgs {
    /// The openshift-install directory (reads platform-operators.yaml or install-config.yaml and
    /// the lock file).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The platformOperators configuration file.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Target OpenShift release.
    #[arg(long, value_name = "VERSION")]
    pub to: String,
    /// Current OpenShift release (default: the lock file's clusterVersion).
    #[arg(long, value_name = "VERSION")]
    pub from: Option<String>,
    /// The catalog snapshot for the target: replaces the source of the configured catalog NAME
    /// (a directory, a file, or an https:// URL). Repeatable.
    #[arg(long, value_name = "NAME=SOURCE")]
    pub catalog: Vec<String>,
    /// Output format: `table`, the plan as prose and a summary table; `json` or `yaml`, the
    /// plan as data (hops, steps, blockers, clusterBlockers, updateGraph); `mermaid` or `dot`,
    /// the path as a picture (releases, hops, operator moves, the blocking operator in red).
    /// All on stdout.
    #[arg(short = 'o', long, value_enum, default_value_t = PictureFormat::Table)]
    pub output: PictureFormat,
    /// Print each reconcile's candidates and the rule that chose or rejected each one, and
    /// why the update graph's path won.
    #[arg(long)]
    pub explain: bool,
    /// Follow OpenShift's update graph: a Cincinnati graph document (the JSON of
    /// `<update service>/api/upgrades_info/graph?channel=…`), a file or an https:// URL
    /// (repeatable: one graph of all of them).
    #[arg(long = "update-graph", value_name = "FILE|URL")]
    pub update_graph: Vec<String>,
    /// Only releases of this channel on the path (default: the channel every graph document
    /// was requested for, when they agree).
    #[arg(long, value_name = "NAME", requires = "update_graph")]
    pub channel: Option<String>,
    /// Also take updates whose risks apply to every cluster (an `Always` rule).
    #[arg(long, requires = "update_graph")]
    pub allow_not_recommended: bool,
    /// Plan an EUS-to-EUS update: the control plane passes the odd minor with the worker
    /// pools paused (automatic when both releases are EUS minors two apart).
    #[arg(long)]
    pub eus: bool,
    /// Update the lock file and re-render the manifests for the target, all or nothing.
    #[arg(long)]
    pub write: bool,
    /// Directory with template overrides (with --write).
    #[arg(long, value_name = "DIR", requires = "write")]
    pub templates: Option<PathBuf>,
    /// Write a bundle image that the catalog gives by tag only, when its digest cannot be
    /// looked up (offline), into a PlatformOperator's BundleDeployment; the lock records that
    /// it is not a pin.
    #[arg(long)]
    pub allow_tags: bool,
    /// Where bundle content comes from (with --write) when the catalog does not embed it.
    #[command(flatten)]
    pub bundle_sources: BundleSourceArgs,
    /// With --write: fail at once when another po-manifests run is writing the same install
    /// directory (default: wait for it).
    #[arg(long, requires = "write")]
    pub no_wait: bool,
    /// Follow DIR/manifests or DIR/openshift where it is a symbolic link that leaves DIR (a
    /// folder on another disk): without it such a link is refused, and nothing is read or
    /// written through it.
    #[arg(long)]
    pub follow_links: bool,
    /// Fetching `https://` catalogs.
    #[command(flatten)]
    pub network: NetworkArgs,
}

impl Command {
    /// Whether the command prints text for people on stdout (tables, lists, plans), rather
    /// than a document for programs.
    pub fn prints_text(&self) -> bool {
        match self {
            Command::Create(a) => a.output.is_text(),
            Command::Resolve(a) => a.output.is_text(),
            Command::Range(a) => a.output.is_text(),
            Command::Catalog(CatalogCommand::Validate(a)) => a.output.is_text(),
            Command::Catalog(CatalogCommand::List(a)) => a.output.is_text(),
            Command::Catalog(CatalogCommand::Digest(_)) => true,
            Command::Bundle(_) => true,
            Command::Images(a) => a.output.is_text(),
            Command::UpgradePlan(a) => a.output.is_text(),
            Command::Check(a) => a.output.is_text(),
            Command::MirrorConfig(_) | Command::Completion(_) | Command::Man(_) => false,
        }
    }
}

impl OutputFormat {
    /// Whether this is text (`table` or `wide`) rather than a structured document.
    pub fn is_text(self) -> bool {
        matches!(self, OutputFormat::Table | OutputFormat::Wide)
    }

    /// How wide text tables may be: the terminal's width for `table` (`COLUMNS` when set, 80
    /// when stdout is not a terminal), every cell whole for `wide`.
    pub fn width(self) -> crate::table::Width {
        match self {
            OutputFormat::Wide => crate::table::Width::Full,
            _ => crate::table::Width::Fit(terminal_width()),
        }
    }
}

/// The width tables are fitted to: `COLUMNS` when it is a positive number, else the width of
/// the terminal on stdout, else 80.
pub fn terminal_width() -> usize {
    if let Some(n) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
    {
        return n;
    }
    console::Term::stdout()
        .size_checked()
        .map(|(_, cols)| usize::from(cols))
        .filter(|&n| n > 0)
        .unwrap_or(80)
}

impl From<&InputArgs> for crate::install::Inputs {
    fn from(a: &InputArgs) -> Self {
        crate::install::Inputs {
            dir: a.dir.clone(),
            config: a.config.clone(),
            cluster_version: a.cluster_version.clone(),
            follow_links: a.follow_links,
        }
    }
}

impl From<&NetworkArgs> for crate::install::Network {
    fn from(a: &NetworkArgs) -> Self {
        crate::install::Network {
            offline: a.offline,
            cache_dir: a.cache_dir.clone(),
            ca_file: a.ca_file.clone(),
            connect_timeout: a.connect_timeout,
            timeout: a.timeout,
            retries: a.retries,
            retry_backoff: a.retry_backoff,
            max_catalog_size: a.max_catalog_size,
        }
    }
}

impl From<&BundleSourceArgs> for crate::install::BundleSettings {
    fn from(a: &BundleSourceArgs) -> Self {
        crate::install::BundleSettings {
            bundles: a.bundles.clone(),
            oci_layouts: a.oci_layouts.clone(),
            authfile: a.authfile.clone(),
            max_bundle_size: a.max_bundle_size,
            jobs: usize::from(a.jobs),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The library's defaults are the command line's.
    #[test]
    fn library_defaults_are_the_flag_defaults() {
        let flags = Flags::try_parse_from(["po-manifests", "create", "--dir", "."]).unwrap();
        let Command::Create(args) = flags.command else {
            panic!("not create")
        };
        let net = crate::install::Network::from(&args.input.network);
        let default = crate::install::Network::default();
        assert_eq!(
            (
                net.connect_timeout,
                net.timeout,
                net.retries,
                net.retry_backoff,
                net.offline
            ),
            (
                default.connect_timeout,
                default.timeout,
                default.retries,
                default.retry_backoff,
                default.offline
            )
        );
        assert_eq!(net.max_catalog_size, default.max_catalog_size);
        let (bundles, default) = (
            crate::install::BundleSettings::from(&args.bundle_sources),
            crate::install::BundleSettings::default(),
        );
        assert_eq!(
            (bundles.max_bundle_size, bundles.jobs),
            (default.max_bundle_size, default.jobs)
        );
    }
}
