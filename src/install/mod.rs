//! The install step as a library: what `create` would write, without the command line.
//!
//! An [`Install`] is everything the step works on, free of flags: the install directory, the
//! validated configuration, install-config facts, the target release, network and bundle-source
//! settings, and (once [`Install::load_catalogs`] ran) the catalogs. [`plan::plan`] resolves every
//! operator, runs every check `create` runs and renders the objects into a [`plan::Plan`];
//! [`plan::Staged::write`] writes it through [`crate::output`], all or nothing. `resolve` is the
//! plan printed, `images` and `mirror-config` read the plan's resolutions ([`images`]),
//! `upgrade-plan --write` plans the target release ([`upgrade`]), and `check --dir` checks any
//! directory ([`dir_check`]). The command line (`crate::cli`) only turns flags into an `Install`
//! and prints.
//!
//! Submodules: [`error`] (every error and its exit status), [`outcome`] (each operator's
//! resolution and profile checks), [`plan`] (rendering, the install-wide checks, the lock),
//! [`files`] (the planned files checked with what the directory already holds), [`images`]
//! (images, mirror rules, the oc-mirror selection, marketplace objects), [`pin`] (digest pins
//! for tag-only bundle images), [`sources`] (network settings and bundle content sources),
//! [`upgrade`], [`dir_check`] and [`warnings`] (install-wide warnings about the target release).

pub mod dir_check;
pub mod error;
pub mod files;
pub mod images;
pub mod outcome;
pub mod pin;
pub mod plan;
pub mod sources;
pub mod subscription;
pub mod upgrade;
pub mod warnings;

use std::path::{Path, PathBuf};

use crate::catalog::{self, PackageFilter};
use crate::config::{self, CatalogLocation, Config, install};
use crate::fetch;
use crate::openshift::ClusterVersion;
use crate::output::lock;
use crate::resolve::LoadedCatalog;
use crate::rules::Installer;
pub use error::Error;
pub use sources::{BundleSettings, Network};

/// Where the configuration is, as the command line gives it.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// The openshift-install directory.
    pub dir: Option<PathBuf>,
    /// The configuration file.
    pub config: Option<PathBuf>,
    /// The target release, overriding the configuration's `clusterVersion`.
    pub cluster_version: Option<String>,
    /// `--follow-links`: `D/manifests` and `D/openshift` are followed where they are symbolic
    /// links out of `D` ([`crate::fsread::own_folder`]).
    pub follow_links: bool,
}

/// What the install step works on, after reading its inputs.
#[derive(Debug)]
pub struct Install {
    /// The install directory (manifests go to `dir/manifests`).
    pub dir: PathBuf,
    /// The configuration.
    pub config: Config,
    /// install-config facts, when an install-config was found.
    pub install: Option<install::Found>,
    /// Target release: `--cluster-version`, else the config's `clusterVersion`, else the one
    /// the installer's own files in the directory name ([`install::named_release`]).
    pub cluster_version: Option<ClusterVersion>,
    /// Where the lock file is (beside the configuration).
    pub lock_path: PathBuf,
    /// How `https://` catalogs and bundle images are fetched.
    pub network: Network,
    /// `--locked`: `https://` catalogs must have the content digest the lock file records, and
    /// the plan must resolve exactly as the lock file says.
    pub locked: bool,
    /// `--force`: overwrite (or remove) manifests an earlier run wrote that were edited since.
    pub force: bool,
    /// The loaded catalogs ([`Install::load_catalogs`]); empty before.
    pub catalogs: Vec<LoadedCatalog>,
    /// The installer that reads the install directory (`--installer`, else the configuration's
    /// `installer:`, else openshift-install): where the manifests are written
    /// ([`Install::output_dir`]) and how the directory is checked.
    pub installer: Installer,
    /// `--follow-links`: the folders written are followed where they are symbolic links out
    /// of [`Install::dir`]; otherwise such a folder refuses the run before anything is read
    /// or written through it ([`crate::fsread::own_folder`]).
    pub follow_links: bool,
}

impl Install {
    /// Read the configuration and install-config for these inputs, with these network
    /// settings; no catalog is loaded yet.
    pub fn read(input: &Inputs, network: Network) -> Result<Install, Error> {
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
        if input.dir.is_some() {
            check_dir_flag(&dir, true)?;
        }
        let config = config::discover(&dir, input.config.as_deref())?;
        let install = install::read_following(&dir, input.follow_links)?;
        let cluster_version = match &input.cluster_version {
            Some(text) => Some(
                ClusterVersion::parse(text)
                    .map_err(|m| Error::Usage(format!("--cluster-version: {m}")))?,
            ),
            None => config
                .cluster_version
                .as_ref()
                .map(|c| c.value.clone())
                .or_else(|| install::named_release(&dir).map(|n| n.version)),
        };
        let lock_path = config
            .source
            .path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .join(crate::output::lock::LOCK_FILE);
        let installer = config
            .installer
            .as_ref()
            .map(|i| i.value)
            .unwrap_or_default();
        Ok(Install {
            dir,
            config,
            install,
            cluster_version,
            lock_path,
            network,
            locked: false,
            force: false,
            catalogs: Vec::new(),
            installer,
            follow_links: input.follow_links,
        })
    }

    /// Where this installer reads the manifests `create` writes: `D/manifests/` for
    /// openshift-install; `D/openshift/` for the Agent-based installer (the extra manifests that
    /// `openshift-install agent create image` embeds); for the Assisted Installer `D/manifests/`,
    /// the custom manifests folder to upload (assisted-service's default folder), whose names
    /// must not be used in `D/openshift/` as well.
    pub fn output_dir(&self) -> PathBuf {
        self.dir.join(self.output_folder().name())
    }

    /// The folder of [`Install::output_dir`].
    pub fn output_folder(&self) -> crate::check::Dir {
        match self.installer {
            Installer::Agent => crate::check::Dir::Openshift,
            Installer::OpenshiftInstall | Installer::Assisted => crate::check::Dir::Manifests,
        }
    }

    /// The folder a run for another installer writes (`D/manifests/` for the Agent-based
    /// installer, else `D/openshift/`): `create` takes the earlier files the lock names out of
    /// it, since the lock records file names and not their folder.
    pub fn other_output_folder(&self) -> crate::check::Dir {
        match self.output_folder() {
            crate::check::Dir::Openshift => crate::check::Dir::Manifests,
            crate::check::Dir::Manifests => crate::check::Dir::Openshift,
        }
    }

    /// The path of [`Install::other_output_folder`].
    pub fn other_output_dir(&self) -> PathBuf {
        self.dir.join(self.other_output_folder().name())
    }

    /// Whether the install is disconnected: install-config has mirror rules
    /// (`imageDigestSources`, `imageContentSources`).
    pub fn disconnected(&self) -> bool {
        self.install
            .as_ref()
            .is_some_and(|i| !crate::registry::mirror_rules(&i.config).is_empty())
    }

    /// `featureSet` from install-config, if any.
    pub fn feature_set(&self) -> Option<&str> {
        self.install
            .as_ref()
            .and_then(|i| i.config.feature_set.as_deref())
    }

    /// What cannot be checked for the install as a whole, one sentence each: today, that no
    /// install-config was found, so the feature set, capabilities and mirror rules are taken as
    /// a default cluster's and the install-config rules ([`crate::rules::Applies::InstallConfig`])
    /// did not run. `create` refuses on these unless `--allow-unchecked`, as `resolve` exits 1.
    pub fn unchecked(&self) -> Vec<String> {
        if self.install.is_some() {
            return Vec::new();
        }
        let rules: Vec<&str> = crate::rules::RULES
            .iter()
            .filter(|r| r.applies == crate::rules::Applies::InstallConfig)
            .map(|r| r.id)
            .collect();
        let looked: Vec<String> = install::LOOKED_FOR
            .iter()
            .map(|f| self.dir.join(f).display().to_string())
            .collect();
        vec![format!(
            "install-config: none found (looked for {}), so the cluster is taken as featureSet Default with the release's default capabilities and no mirror rules, and the platform and cloud controller manager rules did not run ({})",
            looked.join(", "),
            rules.join(", ")
        )]
    }

    /// `featureGates` from install-config.
    pub fn feature_gates(&self) -> &[String] {
        self.install
            .as_ref()
            .map_or(&[][..], |i| i.config.feature_gates.as_slice())
    }

    /// Load every configured catalog, keeping only the configured packages (every package
    /// for the subscription profile), and check pins (into [`Install::catalogs`]). A pinned
    /// catalog is hashed whole while it is read; the digests a lock records are computed when
    /// it is made ([`catalog::model::Catalog::read_digest`] of the files read).
    pub fn load_catalogs(&mut self) -> Result<(), Error> {
        self.catalogs = self.read_catalogs()?;
        Ok(())
    }

    fn read_catalogs(&self) -> Result<Vec<LoadedCatalog>, Error> {
        // Every package for the subscription profile (OLM v0 looks for dependencies in every
        // package), else the configured ones; each catalog remembers which
        // ([`catalog::model::Catalog::read_packages`]), and the lock's digest covers that.
        let whole = self.uses_subscriptions();
        let filter = if whole {
            PackageFilter::All
        } else {
            PackageFilter::Only(
                self.config
                    .operators
                    .iter()
                    .map(|o| o.package.value.clone())
                    .collect(),
            )
        };
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
            let catalog = if whole {
                self.load_servable(&path, &source.name.value, &location)?
            } else if source.sha256.is_some() {
                // The pin is the whole catalog's digest; the lock's covers what is read (the
                // files of the configured packages), from the same hashes.
                catalog::load_and_digest(&path, &filter).map_err(|e| Error::Catalog {
                    name: source.name.value.clone(),
                    location: location.clone(),
                    source: Box::new(e),
                })?
            } else {
                catalog::load(&path, &filter).map_err(|e| Error::Catalog {
                    name: source.name.value.clone(),
                    location: location.clone(),
                    source: Box::new(e),
                })?
            };
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

impl Install {
    /// Load a whole catalog for the subscription profile, refusing one that `opm serve` would
    /// not serve (it runs `opm validate`'s rules on start): its CatalogSource would never
    /// become ready, and OLM v0 then resolves nothing in any namespace that sees it.
    fn load_servable(
        &self,
        path: &Path,
        name: &str,
        location: &str,
    ) -> Result<crate::catalog::model::Catalog, Error> {
        let error = |e| Error::Catalog {
            name: name.to_string(),
            location: location.to_string(),
            source: Box::new(e),
        };
        let (mut catalog, report) =
            crate::catalog::validate::load_and_validate(path, &Default::default())
                .map_err(error)?;
        if !report.is_valid() {
            let problems: Vec<crate::catalog::problem::Problem> =
                report.errors().cloned().collect();
            return Err(Error::Unservable {
                name: name.to_string(),
                location: location.to_string(),
                problems,
            });
        }
        catalog.source = Some(path.to_path_buf());
        Ok(catalog)
    }

    /// The fetcher for `https://` catalogs: the flags, install-config `additionalTrustBundle`
    /// and `proxy`, and the proxy environment variables (`HTTPS_PROXY`/`https_proxy` with
    /// `NO_PROXY`/`no_proxy`), which take precedence over install-config `proxy` when set.
    pub fn fetcher(&self) -> Result<fetch::Fetcher, Error> {
        let (options, cache) = sources::network_settings(&self.network, self.install.as_ref())?;
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

impl Install {
    /// The target's OLM v1 (release table row under install-config's feature set), if it runs
    /// one.
    pub fn target_olm_v1(
        &self,
        cluster_version: &ClusterVersion,
    ) -> Option<crate::openshift::OlmV1> {
        crate::openshift::Target::new(cluster_version, self.feature_set(), self.feature_gates())
            .ok()
            .and_then(|t| t.olm_v1())
    }

    /// Refuse a `featureSet` the installer does not carry to a cluster of `cluster_version`:
    /// the Agent-based installer up to 4.19 puts none into its AgentClusterInstall
    /// ([`crate::openshift::ReleaseRow::agent_feature_set`]), so the cluster comes up Default and
    /// anything written for the feature set (a PlatformOperator's CRD exists only with
    /// TechPreviewNoUpgrade) waits until the bootstrap times out. openshift-install writes the
    /// FeatureGate itself (`99_feature-gate.yaml`); with the Assisted Installer install-config
    /// comes from the API's overrides, which carry it.
    pub fn check_feature_set_reaches(&self, cluster_version: &ClusterVersion) -> Result<(), Error> {
        let Some(feature_set) = self
            .feature_set()
            .filter(|f| !f.is_empty() && *f != "Default")
        else {
            return Ok(());
        };
        if self.installer != Installer::Agent {
            return Ok(());
        }
        let Ok(release) = crate::openshift::lookup(cluster_version) else {
            return Ok(());
        };
        if release.agent_carries_feature_set() {
            return Ok(());
        }
        let since = crate::openshift::Release::agent_feature_set_since()
            .map(|v| format!(" (it does from OpenShift {v})"))
            .unwrap_or_default();
        Err(Error::FeatureSetDropped(format!(
            "install-config sets featureSet: {feature_set}, but the Agent-based installer of OpenShift {cluster_version} does not carry featureSet to the cluster{since}: its AgentClusterInstall has no featureSet (openshift/installer pkg/asset/agent/manifests/agentclusterinstall.go; the agent warns that featureSet is ignored), so the cluster comes up with the Default feature set and what is written for {feature_set} (a PlatformOperator, whose CRD only TechPreviewNoUpgrade installs) is retried until the bootstrap times out; install with openshift-install (--installer openshift-install), or remove featureSet"
        )))
    }

    /// The release's default output profile for non-bootstrap operators on `cluster_version`;
    /// `None` when every operator is a bootstrap one or asks for its own profile.
    pub fn profile_for(
        &self,
        cluster_version: &ClusterVersion,
    ) -> Result<Option<crate::render::Profile>, Error> {
        let default = crate::render::Profile::for_cluster(
            cluster_version,
            self.feature_set(),
            self.feature_gates(),
        )?;
        Ok(self
            .config
            .operators
            .iter()
            .any(|o| !o.bootstrap && o.profile.is_none())
            .then_some(default))
    }

    /// The profile an operator is written with on `cluster_version` (`None` for a bootstrap
    /// operator, which is written as its own objects).
    pub fn operator_profile(
        &self,
        op: &config::Operator,
        cluster_version: Option<&ClusterVersion>,
    ) -> Option<crate::render::Profile> {
        if op.bootstrap {
            return None;
        }
        if op.profile.is_some() {
            return Some(crate::render::Profile::Subscription);
        }
        cluster_version.and_then(|v| {
            crate::render::Profile::for_cluster(v, self.feature_set(), self.feature_gates()).ok()
        })
    }

    /// Whether any operator is written with the subscription profile on the target release:
    /// then every configured catalog is read whole (OLM v0 looks for dependencies in all of
    /// them) and must be one `opm serve` serves.
    pub fn uses_subscriptions(&self) -> bool {
        self.config.operators.iter().any(|o| {
            self.operator_profile(o, self.cluster_version.as_ref())
                == Some(crate::render::Profile::Subscription)
        })
    }

    /// Take the install directory's lock (calling `waiting` once when another run holds it and
    /// `wait` is set), then finish or undo what an interrupted run left, before anything reads
    /// the lock file. The sentence saying what recovery did, if it did anything, comes back
    /// with the lock, which is held until it is dropped.
    pub fn lock_dir(
        &self,
        wait: bool,
        waiting: impl FnOnce(),
    ) -> Result<(crate::output::InstallLock, Option<String>), Error> {
        use crate::output::install_lock::Wait;
        let held = crate::output::InstallLock::acquire(
            &self.dir,
            if wait { Wait::Wait } else { Wait::NoWait },
            waiting,
        )?;
        let (dir, other) = (self.output_dir(), self.other_output_dir());
        // The folders po-manifests writes are D's own: one linked out of D is written (and its
        // earlier files removed) only when the user asks, before recovery touches it.
        for folder in [self.output_folder(), self.other_output_folder()] {
            crate::fsread::own_folder(&self.dir, folder.name(), self.follow_links).map_err(
                |source| Error::ForeignFolder {
                    path: self.dir.join(folder.name()),
                    source,
                },
            )?;
        }
        let target = crate::output::Target {
            dir: &dir,
            other: Some(&other),
        };
        let recovered = crate::output::recover(target, &self.lock_path)?;
        let mut lines: Vec<String> = recovered
            .done
            .iter()
            .map(|r| format!("{}: {r}", self.dir.display()))
            .collect();
        lines.extend(recovered.lines().into_iter().skip(lines.len()));
        Ok((held, (!lines.is_empty()).then(|| lines.join("\n"))))
    }

    /// The configured `role:` of a bootstrap operator; `None` when it gives none (its
    /// workloads are then what they show, for `create` as for `check`) or is no bootstrap
    /// operator.
    pub fn role_of(&self, operator: &str) -> Option<crate::rules::Role> {
        self.config
            .operators
            .iter()
            .find(|o| o.name.value == operator && o.bootstrap)
            .and_then(|o| o.role)
    }

    /// Point the configured catalog `name` at another snapshot (`upgrade-plan --catalog`). A
    /// content pin (`sha256`) belongs to the configured source, so it is dropped. `Err` lists
    /// the configured names when none is called `name`.
    pub fn override_catalog(&mut self, name: &str, source: &str) -> Result<(), Vec<String>> {
        let known: Vec<String> = self
            .config
            .catalogs
            .iter()
            .map(|c| c.name.value.clone())
            .collect();
        let Some(catalog) = self
            .config
            .catalogs
            .iter_mut()
            .find(|c| c.name.value == name)
        else {
            return Err(known);
        };
        catalog.source.value = if source.starts_with("https://") {
            CatalogLocation::Url(source.to_string())
        } else {
            CatalogLocation::Path(PathBuf::from(source))
        };
        catalog.sha256 = None;
        Ok(())
    }
}

/// Refuse a `--dir` that is not a directory, saying which way it is wrong: it does not exist,
/// or it is a file (with `config_flag`, the command takes that file as `--config`).
pub fn check_dir_flag(dir: &Path, config_flag: bool) -> Result<(), Error> {
    let shown = crate::text::printable(&dir.display().to_string()).into_owned();
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) if config_flag => Err(Error::Usage(format!(
            "--dir {shown}: is a file, not a directory; to read it as the configuration, give --config {shown} (--dir is the openshift-install directory that holds it)"
        ))),
        Ok(_) => Err(Error::Usage(format!(
            "--dir {shown}: is a file, not a directory; give the installer directory (the one holding manifests/)"
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(Error::Usage(format!("--dir {shown}: does not exist")))
        }
        Err(e) => Err(Error::Usage(format!("--dir {shown}: {e}"))),
    }
}

/// The lock file's record of an operator's waivers.
pub fn locked_waivers(op: &config::Operator) -> Vec<lock::LockedWaiver> {
    op.waive
        .iter()
        .map(|w| lock::LockedWaiver {
            rule: w.rule.value.clone(),
            reason: w.reason.clone(),
        })
        .collect()
}
