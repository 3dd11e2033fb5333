//! Everything that can stop a command, library steps and command line alike, and the exit
//! status each maps to (DESIGN.md: 0 success, 1 the inputs cannot produce a valid install,
//! 2 usage, 3 I/O or network).

/// Exit status: success.
pub const EXIT_OK: u8 = 0;
/// Exit status: the inputs cannot produce a valid install (resolution, validation).
pub const EXIT_INVALID: u8 = 1;
/// Exit status: usage error.
pub const EXIT_USAGE: u8 = 2;
/// Exit status: I/O or network failure.
pub const EXIT_IO: u8 = 3;

/// Everything that can stop a command.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The configuration is missing or invalid.
    #[error(transparent)]
    Config(#[from] crate::config::Error),
    /// A catalog could not be loaded.
    #[error("catalog \"{name}\" ({location}): {source}")]
    Catalog {
        /// Configured name.
        name: String,
        /// Where it is.
        location: String,
        /// The cause (boxed: it is large, and `Result<_, Error>` is returned everywhere).
        source: Box<crate::catalog::Error>,
    },
    /// A catalog of the subscription profile that `opm serve` would refuse to serve.
    #[error(
        "catalog \"{name}\" ({location}) breaks {} of `opm validate`'s rules, which `opm serve` checks on start: its CatalogSource would never serve, and OLM v0 would resolve nothing in any namespace that sees it:\n{}",
        problems.len(),
        problems.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n")
    )]
    Unservable {
        /// Configured name.
        name: String,
        /// Where it is.
        location: String,
        /// What breaks the rules.
        problems: Vec<crate::catalog::problem::Problem>,
    },
    /// A catalog's content does not match its pinned digest.
    #[error(
        "catalog \"{name}\" ({location}) has digest sha256:{actual}, but the configuration pins sha256:{expected}"
    )]
    DigestMismatch {
        /// Configured name.
        name: String,
        /// Where it is.
        location: String,
        /// The pin.
        expected: String,
        /// What was read.
        actual: String,
    },
    /// A bundle cannot be read or converted.
    #[error("{0}")]
    Bundle(String),
    /// A feature the input needs is not available.
    #[error("{0}")]
    Unsupported(String),
    /// install-config's `featureSet` does not reach the cluster with this installer and release.
    #[error("{0}")]
    FeatureSetDropped(String),
    /// Usage error detected after parsing flags.
    #[error("{0}")]
    Usage(String),
    /// One or more operators cannot be installed; details were already reported.
    #[error("{failed} of {total} platform operator{} cannot be installed{}", if *total == 1 { "" } else { "s" }, if *writes { "; nothing was written" } else { "" })]
    Operators {
        /// How many failed.
        failed: usize,
        /// How many were configured.
        total: usize,
        /// The command writes files (so it says that it wrote none).
        writes: bool,
    },
    /// Operators cannot be installed because their bundle content could not be fetched
    /// (network or I/O); details were already reported.
    #[error("{failed} of {total} platform operator{} cannot be installed: bundle content could not be fetched; nothing was written", if *total == 1 { "" } else { "s" })]
    OperatorsUnreachable {
        /// How many failed.
        failed: usize,
        /// How many were configured.
        total: usize,
    },
    /// A bundle's content cannot be had (directory, OCI layout, registry).
    #[error(transparent)]
    BundleSource(Box<crate::bundle::source::Error>),
    /// Registry credentials cannot be read.
    #[error(transparent)]
    Auth(#[from] crate::registry::auth::AuthError),
    /// A folder po-manifests writes (`D/manifests`, `D/openshift`) is a symbolic link out of
    /// the install directory, and `--follow-links` was not given.
    #[error("{source}; nothing was read or written through it")]
    ForeignFolder {
        /// The link.
        path: std::path::PathBuf,
        /// What [`crate::fsread::own_folder`] says.
        source: std::io::Error,
    },
    /// A file given on the command line cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    ReadFile {
        /// The file.
        path: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// No profile fits the target cluster.
    #[error(transparent)]
    Profile(#[from] crate::render::profile::ProfileError),
    /// A template failed.
    #[error(transparent)]
    Render(#[from] crate::render::Error),
    /// Writing failed.
    #[error(transparent)]
    Output(#[from] crate::output::Error),
    /// The lock file is unreadable or differs.
    #[error(transparent)]
    Lock(#[from] crate::output::lock::Error),
    /// A range given to `range` does not parse.
    #[error(transparent)]
    Range(#[from] crate::version::RangeParseError),
    /// No upgrade plan can be made for these releases.
    #[error(transparent)]
    Upgrade(#[from] crate::upgrade::Error),
    /// The update graph cannot be read, or the target is not reachable on it (exit 1).
    #[error(transparent)]
    UpdateGraph(#[from] Box<crate::upgrade::graph::Error>),
    /// Writing to stdout failed.
    #[error("cannot write output: {0}")]
    Stdout(#[from] std::io::Error),
    /// A catalog could not be fetched over HTTPS (network, TLS, cache).
    #[error("{}{source}", if name.is_empty() { String::new() } else { format!("catalog \"{name}\": ") })]
    Fetch {
        /// Configured name.
        name: String,
        /// The cause, with the URL.
        source: crate::fetch::Error,
    },
    /// A `--ca-file` cannot be read.
    #[error("cannot read --ca-file {}: {source}", path.display())]
    CaFile {
        /// The file.
        path: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Images are not pinned or not mirrored for a disconnected install.
    #[error("{} image{} cannot be pulled in this disconnected install{}", findings.len(), if findings.len() == 1 { "" } else { "s" }, if *writes { "; nothing was written" } else { "" })]
    Mirror {
        /// One per image use.
        findings: Vec<crate::mirror::Finding>,
        /// The command writes files (so it says that it wrote none).
        writes: bool,
    },
    /// A catalog given on the command line (`catalog validate|list PATH`) cannot be loaded.
    #[error("{}: {source}", path.display())]
    CatalogFile {
        /// The path given.
        path: std::path::PathBuf,
        /// The cause.
        source: Box<crate::catalog::Error>,
    },
    /// The PlatformOperator profile's offline objects need one catalog image.
    #[error("{0}")]
    Disconnected(String),
    /// `check` or `create` found problems that refuse the install; details were already reported.
    #[error("{errors} error{} in the install directory's manifests{}", if *errors == 1 { "" } else { "s" }, if *create { "; nothing was written" } else { "" })]
    Check {
        /// How many errors.
        errors: usize,
        /// Whether this refused `create`.
        create: bool,
    },
    /// Checks could not run (no install-config) and `--allow-unchecked` was not given; each was
    /// already named.
    #[error("{count} check{} could not run, so the install may fail where po-manifests cannot see{}", if *count == 1 { "" } else { "s" }, if *writes { "; nothing was written" } else { "" })]
    Unchecked {
        /// How many.
        count: usize,
        /// The command writes files (so it says that it wrote none).
        writes: bool,
    },
    /// Bundle images given by tag only whose digest could not be looked up (`images`,
    /// `mirror-config`), one line each, without `--allow-tags`.
    #[error("{}\nhint: {}", .0.join("\n"), super::pin::TAG_HINT)]
    Pin(Vec<String>),
    /// Writing the `mirror-config` output failed.
    #[error("cannot write {}: {source}", path.display())]
    WriteFile {
        /// The file.
        path: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

impl Error {
    /// The exit status for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Config(e) if e.is_io() => EXIT_IO,
            Error::Config(crate::config::Error::NotFound { .. }) => EXIT_USAGE,
            Error::Catalog { source, .. } | Error::CatalogFile { source, .. } if source.is_io() => {
                EXIT_IO
            }
            Error::Output(e) if e.is_io() => EXIT_IO,
            Error::Lock(e) if e.is_io() => EXIT_IO,
            Error::Stdout(_) => EXIT_IO,
            Error::Fetch { source, .. } if source.is_invalid_content() => EXIT_INVALID,
            Error::Fetch { .. } | Error::CaFile { .. } | Error::WriteFile { .. } => EXIT_IO,
            Error::BundleSource(e) if e.is_io() => EXIT_IO,
            Error::OperatorsUnreachable { .. }
            | Error::ReadFile { .. }
            | Error::ForeignFolder { .. } => EXIT_IO,
            Error::Usage(_) | Error::Unsupported(_) | Error::Upgrade(_) => EXIT_USAGE,
            _ => EXIT_INVALID,
        }
    }
}
