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
