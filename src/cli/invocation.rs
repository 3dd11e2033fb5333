//! From typed flags to everything a command works on: the install directory, the validated
//! configuration, install-config facts, the target cluster, the loaded catalogs, and each
//! operator's resolution with its checks.

use std::path::{Path, PathBuf};

use super::Error;
use super::flags::{InputArgs, NetworkArgs};
use crate::catalog::{self, PackageFilter};
use crate::config::{self, CatalogLocation, Config, install};
use crate::fetch;
use crate::openshift::ClusterVersion;
use crate::output::lock;
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
    /// How `https://` catalogs are fetched.
    pub network: NetworkArgs,
    /// `--locked`: `https://` catalogs must have the content digest the lock file records.
    pub locked: bool,
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
            network: input.network.clone(),
            locked: false,
        })
    }

    /// `featureSet` from install-config, if any.
    pub fn feature_set(&self) -> Option<&str> {
        self.install
            .as_ref()
            .and_then(|i| i.config.feature_set.as_deref())
    }

    /// `featureGates` from install-config.
    pub fn feature_gates(&self) -> &[String] {
        self.install
            .as_ref()
            .map_or(&[][..], |i| i.config.feature_gates.as_slice())
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
        let mut fetcher = None;
        for source in &self.config.catalogs {
            let location = source.source.value.to_string();
            let path = match &source.source.value {
                CatalogLocation::Path(p) => p.clone(),
                CatalogLocation::Url(url) => {
                    let fetcher = match &mut fetcher {
                        Some(f) => f,
                        None => fetcher.insert(self.fetcher()?),
                    };
                    self.fetch_catalog(fetcher, source, url)?
                }
            };
            let catalog = catalog::load(&path, &filter).map_err(|e| Error::Catalog {
                name: source.name.value.clone(),
                location: location.clone(),
                source: Box::new(e),
            })?;
            if let Some(pin) = &source.sha256 {
                let actual = catalog.digest().map_err(|e| Error::Catalog {
                    name: source.name.value.clone(),
                    location: location.clone(),
                    source: Box::new(e),
                })?;
                let actual = actual.trim_start_matches("sha256:").to_string();
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

impl Invocation {
    /// The fetcher for `https://` catalogs: the flags, install-config `additionalTrustBundle`
    /// and `proxy`, and the proxy environment variables (`HTTPS_PROXY`/`https_proxy` with
    /// `NO_PROXY`/`no_proxy`), which take precedence over install-config `proxy` when set.
    pub fn fetcher(&self) -> Result<fetch::Fetcher, Error> {
        let (options, cache) = network_settings(&self.network, self.install.as_ref())?;
        fetch::Fetcher::new(options, cache).map_err(|source| Error::Fetch {
            name: String::new(),
            source,
        })
    }

    /// Fetch one `https://` catalog into the cache and return the cached file. The content
    /// wanted is the configuration's `sha256` pin, else with `--locked` the digest the lock
    /// file records; offline without either, the locked content when cached, else the latest.
    fn fetch_catalog(
        &self,
        fetcher: &fetch::Fetcher,
        source: &config::CatalogSource,
        url: &str,
    ) -> Result<PathBuf, Error> {
        let name = &source.name.value;
        let locked_digest = if self.locked || self.network.offline {
            lock::read(&self.lock_path)
                .ok()
                .flatten()
                .and_then(|l| l.catalogs.into_iter().find(|c| &c.name == name))
                .map(|c| c.digest.trim_start_matches("sha256:").to_string())
        } else {
            None
        };
        let pin = source.sha256.as_ref().map(|p| p.value.as_str());
        let expected = pin.or(if self.locked {
            locked_digest.as_deref()
        } else {
            None
        });
        if expected.is_none()
            && self.network.offline
            && let Some(d) = &locked_digest
            && let Some(entry) = fetcher.cache().get(url, d)
        {
            return Ok(entry.path);
        }
        match fetcher.fetch(url, expected) {
            Ok(f) => Ok(f.path),
            Err(e) => match &e.kind {
                fetch::ErrorKind::DigestMismatch { expected, actual } if pin.is_none() => {
                    Err(lock::Error::Mismatch {
                        path: self.lock_path.clone(),
                        differences: vec![format!(
                            "catalog {name} ({url}): the lock records content sha256:{expected}, the server now serves sha256:{actual}"
                        )],
                    }
                    .into())
                }
                fetch::ErrorKind::DigestMismatch { expected, actual } => Err(Error::DigestMismatch {
                    name: name.clone(),
                    location: url.to_string(),
                    expected: expected.clone(),
                    actual: actual.clone(),
                }),
                _ => Err(Error::Fetch {
                    name: name.clone(),
                    source: e,
                }),
            },
        }
    }
}

/// Trust, proxy, timeouts, retries and cache for network access (catalogs and bundle images):
/// the flags, install-config `additionalTrustBundle` and `proxy`, and the proxy environment
/// variables (`HTTPS_PROXY`/`https_proxy` with `NO_PROXY`/`no_proxy`), which take precedence
/// over install-config `proxy` when set.
pub fn network_settings(
    net: &NetworkArgs,
    install: Option<&install::Found>,
) -> Result<(fetch::Options, fetch::Cache), Error> {
    use std::io::IsTerminal as _;
    let mut extra_roots = Vec::new();
    if let Some(found) = install
        && let Some(bundle) = &found.config.additional_trust_bundle
        && !bundle.trim().is_empty()
    {
        extra_roots.push((
            format!("additionalTrustBundle in {}", found.path.display()),
            bundle.clone().into_bytes(),
        ));
    }
    for path in &net.ca_file {
        let pem =
            crate::fsread::read(path, crate::fsread::SMALL_FILE_LIMIT, None).map_err(|source| {
                Error::CaFile {
                    path: path.clone(),
                    source,
                }
            })?;
        extra_roots.push((format!("--ca-file {}", path.display()), pem));
    }
    let env = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| std::env::var(n).ok().filter(|v| !v.trim().is_empty()))
    };
    let proxy = match env(&["HTTPS_PROXY", "https_proxy"]) {
        Some(https_proxy) => fetch::ProxySettings {
            https_proxy: Some(https_proxy),
            no_proxy: env(&["NO_PROXY", "no_proxy"]),
        },
        None => install
            .and_then(|i| i.config.proxy.as_ref())
            .map(|p| fetch::ProxySettings {
                https_proxy: p.https_proxy.clone(),
                no_proxy: p.no_proxy.clone(),
            })
            .unwrap_or_default(),
    };
    let cache_root = net
        .cache_dir
        .clone()
        .or_else(fetch::Cache::default_root)
        .unwrap_or_else(|| PathBuf::from(".po-manifests-cache"));
    let options = fetch::Options {
        extra_roots,
        proxy,
        connect_timeout: net.connect_timeout,
        timeout: net.timeout,
        retries: net.retries,
        backoff: net.retry_backoff,
        offline: net.offline,
        progress: std::io::stderr().is_terminal(),
    };
    Ok((options, fetch::Cache::new(cache_root)))
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
    use rayon::prelude::*;
    // Operators resolve independently; reading their candidates' CSVs is the costly part, so
    // they share the cores. `collect` keeps the configuration's order.
    config
        .operators
        .par_iter()
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

/// A warning per `replaces` loop in the requested channels (all channels when none is
/// requested) of the operator's package: `catalog validate` refuses such a catalog, and OLM's
/// upgrade edges through the loop are meaningless (issue 14).
fn replaces_cycle_warnings(
    operator: &config::Operator,
    catalog: &crate::catalog::model::Catalog,
) -> Vec<Warning> {
    let Some(package) = catalog.package(&operator.package.value) else {
        return Vec::new();
    };
    package
        .channels
        .iter()
        .filter(|c| operator.channels.is_empty() || operator.channels.iter().any(|r| r.value == c.name))
        .flat_map(|c| {
            crate::catalog::graph::replaces_cycles(c).into_iter().map(move |cycle| {
                Warning(format!(
                    "channel {} of package {} has a replaces cycle: {} (`catalog validate` refuses this catalog; upgrades along it are undefined)",
                    c.name,
                    package.name,
                    cycle
                        .iter()
                        .map(|b| crate::text::printable(b).into_owned())
                        .collect::<Vec<_>>()
                        .join(" -> ")
                ))
            })
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
            warnings.extend(replaces_cycle_warnings(operator, &r.catalog.catalog));
        }
        Outcome {
            operator,
            resolution,
            problems,
            warnings,
        }
    }
}

/// [`resolve_all`], with the problems fitted to the target release's OLM v1
/// ([`fit_to_release`]), so `resolve`, `images` and `create` agree on what installs.
pub fn resolve_for_release<'a>(
    inv: &'a Invocation,
    catalogs: &'a [LoadedCatalog],
    cluster: &Cluster,
) -> Vec<Outcome<'a>> {
    let mut outcomes = resolve_all(&inv.config, catalogs, cluster);
    let olm = cluster.version.as_ref().and_then(|v| {
        crate::openshift::Target::new(v, inv.feature_set(), inv.feature_gates())
            .ok()
            .and_then(|t| t.olm_v1())
    });
    fit_to_release(&mut outcomes, olm.as_ref());
    outcomes
}

/// Fit each outcome's problems to the target's OLM v1: a bundle with webhooks is no problem
/// where the service-ca provider is on; elsewhere the problem names the releases and feature
/// sets that accept it (from the release table).
pub(super) fn fit_to_release(outcomes: &mut [Outcome<'_>], olm: Option<&crate::openshift::OlmV1>) {
    let Some(olm) = olm else { return };
    let watch_accepted = crate::openshift::Release::where_it_holds(|o| o.own_single_namespace);
    for outcome in outcomes {
        if olm.watch_namespace.is_some() && olm.own_single_namespace {
            // The watch namespace and the renderer decide (render::watch_namespace, convert).
            outcome.problems.retain(|p| p.rule != "installModes");
        } else if let Some(accepted) = &watch_accepted {
            for p in outcome
                .problems
                .iter_mut()
                .filter(|p| p.rule == "installModes")
            {
                p.message.push_str(&format!(
                    "; OLM v1 installs it into a watch namespace (`watchNamespace:`) on {accepted}"
                ));
            }
        }
        if olm.webhooks {
            outcome.problems.retain(|p| p.rule != "webhooks");
        } else if let Some(accepted) = crate::openshift::Release::where_it_holds(|o| o.webhooks) {
            for p in outcome.problems.iter_mut().filter(|p| p.rule == "webhooks") {
                p.message
                    .push_str(&format!("; OLM v1 installs webhooks on {accepted}"));
            }
        }
    }
}

/// Why a resolved bundle's objects could not be produced.
#[derive(Debug)]
pub(super) enum ContentError {
    /// Its registry+v1 content could not be obtained.
    Source(crate::bundle::source::Error),
    /// It could not be converted.
    Convert(crate::convert::Error),
    /// The watch namespace does not fit the bundle or the release.
    WatchNamespace(crate::render::watch_namespace::Error),
}

/// A resolved bundle's registry+v1 content (embedded in the catalog, from `--bundles`, the
/// cache, `--oci-layout` or the registry), converted as OLM v1 does for an AllNamespaces install
/// into `namespace`. Shared by `create` (the objects it writes) and `images` (the containers
/// they run).
///
/// `olm` is the target's OLM v1 (its renderer and certificate provider); without one (a
/// bootstrap operator on a release before 4.18) the newest renderer is used, without webhooks.
pub(super) fn converted_bundle(
    sources: &crate::bundle::source::Sources,
    bundle: &crate::catalog::model::Bundle,
    namespace: &str,
    olm: Option<&crate::openshift::OlmV1>,
    watch: Option<&str>,
) -> Result<Vec<serde_json::Value>, ContentError> {
    let loaded = sources
        .load_catalog_bundle(bundle)
        .map_err(ContentError::Source)?;
    let mut options = match olm {
        Some(olm) => crate::convert::Options::for_olm_v1(olm, namespace),
        None => crate::convert::Options {
            install_namespace: namespace.to_string(),
            ..Default::default()
        },
    };
    options.target_namespaces = match olm {
        Some(olm) => {
            let modes = loaded
                .bundle
                .install_modes()
                .map_err(|e| ContentError::Convert(e.into()))?;
            crate::render::watch_namespace::target_namespaces(olm, &modes, namespace, watch)
                .map_err(ContentError::WatchNamespace)?
        }
        None => watch.map(|w| vec![w.to_string()]).unwrap_or_default(),
    };
    crate::convert::convert_owned(loaded.bundle, &options).map_err(ContentError::Convert)
}
