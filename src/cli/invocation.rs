//! From typed flags to everything a command works on: the install directory, the validated
//! configuration, install-config facts, the target cluster, the loaded catalogs, and each
//! operator's resolution with its checks.

use std::path::{Path, PathBuf};

use super::Error;
use super::flags::InputArgs;
use crate::catalog::{self, PackageFilter};
use crate::config::{self, CatalogLocation, ClusterVersion, Config, install};
use crate::resolve::{self, Cluster, LoadedCatalog, Problem, Request, Resolution, Warning, facts};

/// What a command works on, after reading its inputs.
#[derive(Debug)]
pub struct Invocation {
    /// The install directory (manifests go to `dir/manifests`).
    pub dir: PathBuf,
    /// The configuration.
    pub config: Config,
    /// install-config facts, when an install-config was found.
    pub install: Option<install::Found>,
    /// Target release: `--cluster-version`, else the config's `clusterVersion`.
    pub cluster_version: Option<ClusterVersion>,
    /// Where the lock file is (beside the configuration).
    pub lock_path: PathBuf,
}

impl Invocation {
    /// Read the configuration and install-config for these flags.
    pub fn read(input: &InputArgs) -> Result<Invocation, Error> {
        let dir = match (&input.dir, &input.config) {
            (Some(d), _) => d.clone(),
            (None, Some(c)) => c
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf(),
            (None, None) => {
                return Err(Error::Usage(
                    "give --dir DIR (the openshift-install directory) or --config FILE".into(),
                ));
            }
        };
        if input.dir.is_some() && !dir.is_dir() {
            return Err(Error::Usage(format!(
                "--dir {}: not a directory",
                dir.display()
            )));
        }
        let config = config::discover(&dir, input.config.as_deref())?;
        let install = install::read(&dir)?;
        let cluster_version = match &input.cluster_version {
            Some(text) => Some(
                ClusterVersion::parse(text)
                    .map_err(|m| Error::Usage(format!("--cluster-version: {m}")))?,
            ),
            None => config.cluster_version.as_ref().map(|c| c.value.clone()),
        };
        let lock_path = config
            .source
            .path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .join(crate::output::lock::LOCK_FILE);
        Ok(Invocation {
            dir,
            config,
            install,
            cluster_version,
            lock_path,
        })
    }

    /// `featureSet` from install-config, if any.
    pub fn feature_set(&self) -> Option<&str> {
        self.install
            .as_ref()
            .and_then(|i| i.config.feature_set.as_deref())
    }

    /// Load every configured catalog, keeping only the configured packages, and check pins.
    pub fn load_catalogs(&self) -> Result<Vec<LoadedCatalog>, Error> {
        let mut packages: Vec<String> = self
            .config
            .operators
            .iter()
            .map(|o| o.package.value.clone())
            .collect();
        packages.sort();
        packages.dedup();
        let filter = PackageFilter::Only(packages);
        let mut loaded = Vec::new();
        for source in &self.config.catalogs {
            let location = source.source.value.to_string();
            let path = match &source.source.value {
                CatalogLocation::Path(p) => p.clone(),
                CatalogLocation::Url(url) => {
                    return Err(Error::Unsupported(format!(
                        "catalog \"{}\": {url}: catalogs over HTTPS are not supported by this version of po-manifests; save the catalog (for example catalogd's api/v1/all) to a file and point `source` at it",
                        source.name.value
                    )));
                }
            };
            let catalog = catalog::load(&path, &filter).map_err(|e| Error::Catalog {
                name: source.name.value.clone(),
                location: location.clone(),
                source: e,
            })?;
            if let Some(pin) = &source.sha256 {
                let actual = catalog.digest.trim_start_matches("sha256:").to_string();
                if actual != pin.value {
                    return Err(Error::DigestMismatch {
                        name: source.name.value.clone(),
                        location,
                        expected: pin.value.clone(),
                        actual,
                    });
                }
            }
            loaded.push(LoadedCatalog {
                name: source.name.value.clone(),
                priority: source.priority,
                image: source.image.as_ref().map(|i| i.value.clone()),
                location,
                catalog,
            });
        }
        Ok(loaded)
    }
}

/// One operator's resolution and the checks on it.
#[derive(Debug)]
pub struct Outcome<'a> {
    /// The configured operator.
    pub operator: &'a config::Operator,
    /// The resolution, or why there is none.
    pub resolution: Result<Resolution<'a>, resolve::Error>,
    /// Problems with the chosen bundle (the operator cannot be installed).
    pub problems: Vec<Problem>,
    /// Warnings (the choice stands).
    pub warnings: Vec<Warning>,
}

impl Outcome<'_> {
    /// Whether this operator can be installed.
    pub fn ok(&self) -> bool {
        self.resolution.is_ok() && self.problems.is_empty()
    }

    /// The install namespace for a bootstrap operator: the configured one, else the CSV's
    /// suggested namespace, else `<package>-system`.
    pub fn install_namespace(&self) -> Option<String> {
        let resolution = self.resolution.as_ref().ok()?;
        Some(
            self.operator
                .namespace
                .as_ref()
                .map(|n| n.value.clone())
                .or_else(|| {
                    facts::csv_facts(resolution.bundle)
                        .facts()
                        .and_then(|f| f.suggested_namespace.clone())
                })
                .unwrap_or_else(|| format!("{}-system", self.operator.package.value)),
        )
    }
}

/// Resolve every operator (all of them, so every problem is reported in one run).
pub fn resolve_all<'a>(
    config: &'a Config,
    catalogs: &'a [LoadedCatalog],
    cluster: &Cluster,
) -> Vec<Outcome<'a>> {
    config
        .operators
        .iter()
        .map(|operator| {
            let channels: Vec<String> = operator.channels.iter().map(|c| c.value.clone()).collect();
            let request = Request {
                package: &operator.package.value,
                channels: &channels,
                range: operator
                    .version
                    .as_ref()
                    .map(|v| (v.value.text.as_str(), &v.value.range)),
                catalog: operator.catalog.as_ref().map(|c| c.value.as_str()),
            };
            let resolution = match &operator.installed {
                // OLM v1's upgrade resolution from what the configuration says is installed.
                Some(i) => resolve::resolve_installed(
                    &request,
                    &resolve::Installed {
                        bundle: i.bundle.value.clone(),
                        version: i.parsed.clone(),
                        policy: operator.upgrade_constraint_policy,
                        bound: None,
                    },
                    catalogs,
                    cluster,
                ),
                None => resolve::resolve(&request, catalogs, cluster),
            };
            Outcome::checked(operator, resolution)
        })
        .collect()
}

impl<'a> Outcome<'a> {
    /// Run the checks on a resolution (the profile checks; only dependencies for bootstrap
    /// operators) and gather its warnings.
    pub fn checked(
        operator: &'a config::Operator,
        resolution: Result<Resolution<'a>, resolve::Error>,
    ) -> Outcome<'a> {
        let (problems, mut warnings) = match &resolution {
            Ok(r) if operator.bootstrap => {
                // Conversion checks install modes itself; dependencies are never resolved.
                let (problems, warnings) = resolve::check_installable(r.bundle);
                (
                    problems
                        .into_iter()
                        .filter(|p| p.rule == "dependencies")
                        .collect(),
                    warnings,
                )
            }
            Ok(r) => resolve::check_installable(r.bundle),
            Err(_) => (Vec::new(), Vec::new()),
        };
        if let Ok(r) = &resolution {
            warnings.splice(0..0, r.warnings.iter().cloned());
        }
        Outcome {
            operator,
            resolution,
            problems,
            warnings,
        }
    }
}
