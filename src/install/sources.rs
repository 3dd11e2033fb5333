//! Network settings (trust, proxy, timeouts, retries, cache) and where bundle content comes
//! from when the catalog does not embed it: `--bundles` directories, the cache, OCI layouts
//! and registries, with install-config's `pullSecret`, mirror rules, trust and proxy.

use std::path::PathBuf;

use super::Error;
use crate::bundle::source::Sources;
use crate::config::install;
use crate::{fetch, registry};

/// How `https://` catalogs and bundle images are fetched (the command line's network flags).
#[derive(Debug, Clone)]
pub struct Network {
    /// Never open a network connection.
    pub offline: bool,
    /// Where downloads are cached (default: the user cache directory).
    pub cache_dir: Option<PathBuf>,
    /// PEM files of CA certificates to trust besides the system roots.
    pub ca_file: Vec<PathBuf>,
    /// Timeout for connecting.
    pub connect_timeout: std::time::Duration,
    /// Timeout for one whole download attempt.
    pub timeout: std::time::Duration,
    /// Retries after a connection error, HTTP 429 or 5xx.
    pub retries: u32,
    /// Wait before the first retry (doubled for each further one).
    pub retry_backoff: std::time::Duration,
    /// The largest `https://` catalog accepted, in bytes, downloaded and decompressed.
    pub max_catalog_size: u64,
}

impl Default for Network {
    /// The command line's defaults: online, the user cache, connect in 10 s, 10 minutes a
    /// download, 3 retries from 250 ms, catalogs up to 2 GiB.
    fn default() -> Self {
        Network {
            offline: false,
            cache_dir: None,
            ca_file: Vec::new(),
            connect_timeout: std::time::Duration::from_secs(10),
            timeout: std::time::Duration::from_secs(600),
            retries: 3,
            retry_backoff: std::time::Duration::from_millis(250),
            max_catalog_size: crate::fetch::DEFAULT_MAX_CATALOG_BYTES,
        }
    }
}

/// Where bundle content comes from when the catalog does not embed it (the command line's
/// bundle-source flags).
#[derive(Debug, Clone)]
pub struct BundleSettings {
    /// Directories of unpacked bundles.
    pub bundles: Vec<PathBuf>,
    /// OCI image layouts holding bundle images.
    pub oci_layouts: Vec<PathBuf>,
    /// Registry credentials in containers-auth.json format.
    pub authfile: Option<PathBuf>,
    /// The largest bundle image accepted, in bytes.
    pub max_bundle_size: u64,
    /// How many bundle images are pulled at once.
    pub jobs: usize,
}

impl Default for BundleSettings {
    /// No bundle directories or layouts, no authfile, bundles up to 100 MiB, pulled
    /// [`crate::bundle::source::DEFAULT_JOBS`] at once (the command line's defaults).
    fn default() -> Self {
        BundleSettings {
            bundles: Vec::new(),
            oci_layouts: Vec::new(),
            authfile: None,
            max_bundle_size: 100 * 1024 * 1024,
            jobs: crate::bundle::source::DEFAULT_JOBS,
        }
    }
}

/// Trust, proxy, timeouts, retries and cache for network access (catalogs and bundle images):
/// the flags, install-config `additionalTrustBundle` and `proxy`, and the proxy environment
/// variables (`HTTPS_PROXY`/`https_proxy` with `NO_PROXY`/`no_proxy`), which take precedence
/// over install-config `proxy` when set.
pub fn network_settings(
    net: &Network,
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
        max_catalog_bytes: net.max_catalog_size,
    };
    Ok((options, fetch::Cache::new(cache_root)))
}

/// The bundle content sources for these settings and install-config (`pullSecret`, mirror rules,
/// trust, proxy): `--bundles`, then the cache, `--oci-layout`s and registries, pulling
/// `jobs` images at once.
pub fn sources(
    args: &BundleSettings,
    network: &Network,
    install: Option<&install::Found>,
) -> Result<Sources, Error> {
    let (options, cache) = network_settings(network, install)?;
    let mut credentials = registry::Credentials::default();
    if let Some(path) = &args.authfile {
        let text = crate::fsread::read_to_string(path, crate::fsread::SMALL_FILE_LIMIT, None)
            .map_err(|source| Error::ReadFile {
                path: path.clone(),
                source,
            })?;
        credentials =
            registry::Credentials::parse(&text, &format!("--authfile {}", path.display()))?;
    }
    let mut rules = Vec::new();
    if let Some(found) = install {
        if let Some(secret) = found
            .config
            .pull_secret
            .as_deref()
            .filter(|s| !s.trim().is_empty())
        {
            match registry::Credentials::parse(
                secret,
                &format!("pullSecret in {}", found.path.display()),
            ) {
                Ok(c) => credentials.extend(c),
                Err(e) => credentials.note_unreadable(&e),
            }
        }
        rules = registry::mirror_rules(&found.config);
    }
    let limits = registry::Limits {
        max_bytes: args.max_bundle_size,
        ..registry::Limits::default()
    };
    let puller = registry::Puller::new(registry::Settings {
        options,
        cache,
        credentials,
        rules,
        layouts: args.oci_layouts.clone(),
        limits,
    });
    Ok(Sources::new(args.bundles.clone(), puller).with_jobs(args.jobs))
}
