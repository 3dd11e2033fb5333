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
}

/// Where bundle content comes from when the catalog does not embed it (`olm.csv.metadata`
/// only, as in catalogs from OpenShift 4.17 on).
#[derive(Debug, Args, Clone, Default)]
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
}

/// `images`.
#[derive(Debug, Args)]
pub struct ImagesArgs {
    /// Inputs.
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format: one image per line, or JSON with who needs each image and the findings.
    #[arg(short = 'o', long, value_enum, default_value_t = ReportFormat::Text)]
    pub output: ReportFormat,
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
}

/// `mirror-config`.
#[derive(Debug, Args)]
pub struct MirrorConfigArgs {
    /// Inputs.
    #[command(flatten)]
    pub input: InputArgs,
    /// Write the ImageSetConfiguration here (atomically) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// `catalog …`.
#[derive(Debug, Subcommand)]
pub enum CatalogCommand {
    /// Check a catalog with every rule `opm validate` enforces. Exit 1 when it is invalid.
    Validate(CatalogValidateArgs),
    /// List packages, channels or bundles, like `opm alpha list`.
    List(CatalogListArgs),
}

/// `catalog validate`.
#[derive(Debug, Args)]
pub struct CatalogValidateArgs {
    /// The catalog: a directory or a file.
    pub path: PathBuf,
    /// Output format for the problems (text goes to stderr, JSON to stdout).
    #[arg(short = 'o', long, value_enum, default_value_t = ReportFormat::Text)]
    pub output: ReportFormat,
    /// Treat channels with several heads as warnings, as OLM v1 resolution does (opm rejects them).
    #[arg(long)]
    pub allow_multiple_heads: bool,
}

/// Report formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// One line per problem.
    Text,
    /// JSON.
    Json,
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
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = ReportFormat::Text)]
    pub output: ReportFormat,
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
}

/// `bundle render`.
#[derive(Debug, Args)]
pub struct BundleRenderArgs {
    /// A bundle directory (`manifests/` and `metadata/`), or a bundle image reference
    /// (`registry/repository@sha256:…`) to pull.
    #[arg(required_unless_present = "catalog", conflicts_with = "catalog")]
    pub bundle_dir: Option<PathBuf>,
    /// A catalog holding the bundle (with `--bundle`), instead of a bundle directory.
    #[arg(long, requires = "bundle")]
    pub catalog: Option<PathBuf>,
    /// The bundle's name in the catalog.
    #[arg(long, requires = "catalog")]
    pub bundle: Option<String>,
    /// Install namespace.
    #[arg(long)]
    pub namespace: String,
    /// Namespace to watch; empty or absent means all namespaces.
    #[arg(long)]
    pub watch_namespace: Option<String>,
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
    /// The platformOperators configuration file (default: DIR/platform-operators.yaml, else the
    /// `platformOperators` key of DIR/install-config.yaml).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Target OpenShift release (overrides the configuration's clusterVersion).
    #[arg(long, value_name = "VERSION")]
    pub cluster_version: Option<String>,
    /// Print every candidate and why it lost.
    #[arg(long)]
    pub explain: bool,
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
    /// Fail unless every operator resolves exactly as the lock file says.
    #[arg(long)]
    pub locked: bool,
    /// Do not check that every image is pinned by digest and covered by an install-config
    /// mirror rule (checked by default when install-config has mirror rules).
    #[arg(long)]
    pub no_mirror_check: bool,
    /// Where bundle content comes from when the catalog does not embed it.
    #[command(flatten)]
    pub bundle_sources: BundleSourceArgs,
    /// Fail at once when another po-manifests run is writing the same install directory
    /// (default: wait for it).
    #[arg(long)]
    pub no_wait: bool,
}

/// `resolve`.
#[derive(Debug, Args)]
pub struct ResolveArgs {
    /// Inputs.
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Aligned columns.
    Table,
    /// JSON.
    Json,
    /// YAML.
    Yaml,
}

/// `range`.
#[derive(Debug, Args)]
pub struct RangeArgs {
    /// Range grammar.
    #[arg(long, value_enum, default_value_t = Grammar::Masterminds)]
    pub grammar: Grammar,
    /// The range.
    #[arg(allow_hyphen_values = true)]
    pub range: String,
    /// Versions to test (strict `X.Y.Z[-pre][+build]`, as bundle versions are read).
    #[arg(required = true, allow_hyphen_values = true)]
    pub versions: Vec<String>,
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
    /// Output format (text or JSON, both on stdout).
    #[arg(short = 'o', long, value_enum, default_value_t = ReportFormat::Text)]
    pub output: ReportFormat,
    /// Print each reconcile's candidates and the rule that chose or rejected each one.
    #[arg(long)]
    pub explain: bool,
    /// Update the lock file and re-render the manifests for the target, all or nothing.
    #[arg(long)]
    pub write: bool,
    /// Directory with template overrides (with --write).
    #[arg(long, value_name = "DIR", requires = "write")]
    pub templates: Option<PathBuf>,
    /// With --write: fail at once when another po-manifests run is writing the same install
    /// directory (default: wait for it).
    #[arg(long, requires = "write")]
    pub no_wait: bool,
    /// Fetching `https://` catalogs.
    #[command(flatten)]
    pub network: NetworkArgs,
}
