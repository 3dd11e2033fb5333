//! Where a bundle's registry+v1 content comes from, tried in order:
//!
//! 1. the catalog's own `olm.bundle.object` properties (catalogs up to OpenShift 4.16);
//! 2. `--bundles DIR`: unpacked bundle directories (`DIR` itself, or bundles up to two levels
//!    below it, such as `DIR/<package>/<version>/`), matched by CSV name and package;
//! 3. the bundle image, through [`crate::registry::Puller`]: the cache, `--oci-layout`
//!    directories, then the registry (mirrors first).
//!
//! From OpenShift 4.17 on, catalogs carry only `olm.csv.metadata`, so steps 2 and 3 are how a
//! bootstrap operator is converted and how the installer RBAC of a ClusterExtension is derived.
//!
//! A command that needs several bundle images pulls them ahead, at most [`Sources::jobs`] at a
//! time ([`Sources::prefetch`]), on threads of their own: pulls wait on the network, not on the
//! cores, so they do not share rayon's pool (one thread per core). Each pull's outcome is then
//! taken by the load that asks for it, in the caller's order, so what is reported does not
//! depend on which pull finished first.
//! Source of truth: `reference/catalogs-and-conversion.md` §2.2 (what `opm render` embeds and
//! the `bundle-object-to-csv-metadata` migration) and §5.1 (the bundle layout).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use super::RegistryV1;
use crate::catalog::model::Bundle;
use crate::registry::{self, Puller};

/// Where a bundle's content was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The catalog's `olm.bundle.object` properties.
    Embedded,
    /// A `--bundles` directory.
    Directory(PathBuf),
    /// The bundle image (unpacked into the cache).
    Image(registry::Unpacked),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Embedded => f.write_str("the catalog's olm.bundle.object properties"),
            Origin::Directory(p) => write!(f, "bundle directory {}", p.display()),
            Origin::Image(u) => write!(f, "image {} from {}", u.digest, u.origin),
        }
    }
}

/// A bundle's content and where it came from.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The content.
    pub bundle: RegistryV1,
    /// Its origin.
    pub origin: Origin,
}

/// What to load.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The bundle image reference (may be empty for bundles with embedded objects only).
    pub image: &'a str,
    /// The bundle (CSV) name, when known from a catalog.
    pub name: Option<&'a str>,
    /// The package, when known from a catalog: the content must agree.
    pub package: Option<&'a str>,
}

/// A bundle image that `--offline` kept out: in neither the cache nor an `--oci-layout`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingOffline {
    /// The image reference, as the catalog gives it.
    pub image: String,
    /// The cache looked in.
    pub cache: PathBuf,
    /// The `--oci-layout` directories looked in, in order.
    pub layouts: Vec<PathBuf>,
}

/// Why a bundle's content is not available.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The image could not be had.
    #[error(transparent)]
    Pull(#[from] registry::Error),
    /// The content was found but is not a valid registry+v1 bundle.
    #[error("bundle content from {origin}: {source}")]
    Bundle {
        /// Where it came from.
        origin: String,
        /// Why it is invalid.
        source: Box<super::Error>,
    },
    /// The content belongs to another package.
    #[error(
        "{origin} holds package {found:?}, but the catalog says the bundle is in package {expected:?}"
    )]
    PackageMismatch {
        /// Where it came from.
        origin: String,
        /// The catalog's package.
        expected: String,
        /// The content's package.
        found: String,
    },
    /// The catalog gives no image and no content.
    #[error(
        "bundle {name}: the catalog has neither olm.bundle.object properties nor an image, and no --bundles directory holds it"
    )]
    NoImage {
        /// The bundle name.
        name: String,
    },
    /// The catalog's embedded objects do not decode.
    #[error("bundle {name}: {detail}")]
    Embedded {
        /// The bundle name.
        name: String,
        /// Why.
        detail: String,
    },
    /// A `--bundles` directory cannot be read.
    #[error("--bundles {}: {source}", path.display())]
    BundlesDir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

impl Error {
    /// Whether this is an I/O or network failure (exit 3) rather than invalid content (exit 1).
    pub fn is_io(&self) -> bool {
        match self {
            Error::Pull(e) => !e.is_invalid_content(),
            Error::BundlesDir { .. } => true,
            _ => false,
        }
    }

    /// What to try, if there is a useful suggestion.
    pub fn hint(&self) -> Option<String> {
        match self {
            Error::Pull(e) => Some(e.hint()),
            Error::NoImage { .. } => Some("pass the unpacked bundle with --bundles DIR".into()),
            Error::Bundle { source, .. } if matches!(**source, super::Error::NoCsv { .. }) => Some(
                "not a registry+v1 bundle: its manifests/ holds no ClusterServiceVersion (whiteouts in a later layer may have removed it); check the image reference".into(),
            ),
            Error::PackageMismatch { .. } => {
                Some("check that the catalog's image for this bundle is right".into())
            }
            _ => None,
        }
    }
}

/// Why the `--bundles` directories could not be listed: the directory and the I/O error's kind
/// and text (kept apart so the index can be cached).
type IndexError = (PathBuf, std::io::ErrorKind, String);

/// How many bundle images are pulled at once unless told otherwise (`--jobs`): the number of
/// parallel downloads containers/image (skopeo, podman, CRI-O) allows per image and oc-mirror's
/// default of concurrent requests per registry, the per-host connection limit of browsers. Bundle
/// images are small, so a pull waits mostly on round trips; six in flight hide most of that
/// without looking like a flood to a registry's rate limits.
pub const DEFAULT_JOBS: usize = 6;

/// The largest `--jobs` accepted.
pub const MAX_JOBS: usize = 64;

/// The outcome of one image pulled ahead.
type Pulled = Result<registry::Unpacked, registry::Error>;

/// The bundle content sources of one run.
#[derive(Debug)]
pub struct Sources {
    bundle_dirs: Vec<PathBuf>,
    puller: Puller,
    index: OnceLock<Result<Vec<(PathBuf, RegistryV1)>, IndexError>>,
    jobs: usize,
    /// Images pulled by [`Sources::prefetch`], each taken by the first load that asks for it.
    pulled: Mutex<HashMap<String, Pulled>>,
}

impl Sources {
    /// Sources over `--bundles` directories and a puller (cache, layouts, registry), pulling
    /// [`DEFAULT_JOBS`] images at once.
    pub fn new(bundle_dirs: Vec<PathBuf>, puller: Puller) -> Sources {
        Sources {
            bundle_dirs,
            puller,
            index: OnceLock::new(),
            jobs: DEFAULT_JOBS,
            pulled: Mutex::new(HashMap::new()),
        }
    }

    /// The same sources pulling at most `jobs` images at once (at least one).
    pub fn with_jobs(mut self, jobs: usize) -> Sources {
        self.jobs = jobs.clamp(1, MAX_JOBS);
        self
    }

    /// How many images [`Sources::prefetch`] pulls at once.
    pub fn jobs(&self) -> usize {
        self.jobs
    }

    /// Pull the images of these catalog bundles ahead, at most [`Sources::jobs`] at a time:
    /// those whose content the catalog does not embed and no `--bundles` directory holds. Each
    /// image is pulled once, however many bundles name it; references naming one digest are
    /// pulled one after the other (the later ones find the first in the cache), and references
    /// by tag go first, since their digest is known only once pulled. What each pull ends
    /// with is kept for the first [`Sources::load`] of that image, which reports it as a load
    /// without this step would; nothing is reported here, and a failure stops no other pull.
    pub fn prefetch<'b>(&self, bundles: impl IntoIterator<Item = &'b Bundle>) {
        let mut tags: Vec<Vec<&str>> = Vec::new();
        let mut by_digest: Vec<Vec<&str>> = Vec::new();
        let mut group_of: HashMap<String, usize> = HashMap::new();
        let mut seen = std::collections::HashSet::new();
        for b in bundles {
            if b.has_bundle_objects() || b.image.is_empty() || !seen.insert(b.image.as_str()) {
                continue;
            }
            let request = Request {
                image: &b.image,
                name: Some(&b.name),
                package: Some(&b.package),
            };
            // Content from a `--bundles` directory needs no pull; an unreadable directory is
            // reported by the load.
            if !matches!(self.in_bundle_dirs(&request), Ok(None)) {
                continue;
            }
            match registry::ImageRef::parse(&b.image)
                .ok()
                .and_then(|r| r.digest)
            {
                Some(digest) => match group_of.get(&digest) {
                    Some(&i) => by_digest[i].push(&b.image),
                    None => {
                        group_of.insert(digest, by_digest.len());
                        by_digest.push(vec![&b.image]);
                    }
                },
                None => tags.push(vec![&b.image]),
            }
        }
        let images = tags.len() + by_digest.iter().map(Vec::len).sum::<usize>();
        if images > 1 {
            crate::notice::stage(|| {
                format!(
                    "getting {images} bundle images, at most {} at a time",
                    self.jobs
                )
            });
        }
        for groups in [tags, by_digest] {
            let pulled = run_bounded(&groups, self.jobs, |group| {
                group
                    .iter()
                    .map(|image| (image.to_string(), self.puller.unpack(image)))
                    .collect::<Vec<_>>()
            });
            let mut kept = self.pulled.lock().unwrap_or_else(|e| e.into_inner());
            kept.extend(pulled.into_iter().flatten());
        }
    }

    /// The puller.
    pub fn puller(&self) -> &Puller {
        &self.puller
    }

    /// The bundle image `e` could not have, when `--offline` is all that kept it out: no place
    /// was tried but the cache and the `--oci-layout` directories, and none holds it.
    pub fn missing_offline(&self, e: &Error) -> Option<MissingOffline> {
        let Error::Pull(e) = e else { return None };
        let mut cache = None;
        for a in &e.attempts {
            match &a.kind {
                registry::error::ErrorKind::NotCached { cache: c } => cache = Some(c),
                _ => return None,
            }
        }
        Some(MissingOffline {
            image: e.image.clone(),
            cache: cache?.clone(),
            layouts: self.puller.settings().layouts.clone(),
        })
    }

    /// A catalog bundle's content: embedded objects, else [`Sources::load`].
    pub fn load_catalog_bundle(&self, bundle: &Bundle) -> Result<Loaded, Error> {
        if bundle.has_bundle_objects() {
            let objects = bundle.bundle_objects().map_err(|e| Error::Embedded {
                name: bundle.name.clone(),
                detail: crate::error_chain(&e),
            })?;
            let content =
                RegistryV1::from_objects(&bundle.package, objects).map_err(|e| Error::Bundle {
                    origin: format!("bundle {} in the catalog", bundle.name),
                    source: Box::new(e),
                })?;
            return Ok(Loaded {
                bundle: content,
                origin: Origin::Embedded,
            });
        }
        self.load(&Request {
            image: &bundle.image,
            name: Some(&bundle.name),
            package: Some(&bundle.package),
        })
    }

    /// Content from a `--bundles` directory matching the request's name, else the image (as
    /// pulled ahead by [`Sources::prefetch`], else pulled now).
    pub fn load(&self, request: &Request<'_>) -> Result<Loaded, Error> {
        if let Some(loaded) = self.in_bundle_dirs(request)? {
            return Ok(loaded);
        }
        if request.image.is_empty() {
            return Err(Error::NoImage {
                name: request.name.unwrap_or("(unnamed)").to_string(),
            });
        }
        let pulled = self
            .pulled
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(request.image);
        let unpacked = pulled.unwrap_or_else(|| self.puller.unpack(request.image))?;
        let origin = Origin::Image(unpacked.clone());
        let bundle = RegistryV1::from_dir(&unpacked.dir).map_err(|e| {
            if !matches!(e, super::Error::Io { .. }) {
                // Not a bundle: it must not be found in the cache again.
                let _ = self.puller.discard(&unpacked);
            }
            Error::Bundle {
                origin: format!("image {}", request.image),
                source: Box::new(e),
            }
        })?;
        if let Some(expected) = request.package
            && expected != bundle.package
        {
            return Err(Error::PackageMismatch {
                origin: format!("image {}", request.image),
                expected: expected.to_string(),
                found: bundle.package,
            });
        }
        Ok(Loaded { bundle, origin })
    }

    /// The `--bundles` directory holding the requested bundle (by CSV name and package), if
    /// one does.
    fn in_bundle_dirs(&self, request: &Request<'_>) -> Result<Option<Loaded>, Error> {
        let Some(name) = request.name else {
            return Ok(None);
        };
        Ok(self
            .indexed()?
            .iter()
            .find(|(_, bundle)| {
                bundle.csv_name().ok() == Some(name)
                    && request.package.is_none_or(|p| p == bundle.package)
            })
            .map(|(path, bundle)| Loaded {
                bundle: bundle.clone(),
                origin: Origin::Directory(path.clone()),
            }))
    }

    fn indexed(&self) -> Result<&[(PathBuf, RegistryV1)], Error> {
        let index = self.index.get_or_init(|| {
            let mut out = Vec::new();
            for dir in &self.bundle_dirs {
                let mut found = Vec::new();
                collect_bundle_dirs(dir, 2, &mut found)
                    .map_err(|e| (dir.clone(), e.kind(), e.to_string()))?;
                found.sort();
                for path in found {
                    // A directory that does not load is skipped here; it is reported only if
                    // nothing else provides the bundle.
                    if let Ok(bundle) = RegistryV1::from_dir(&path) {
                        out.push((path, bundle));
                    }
                }
            }
            Ok(out)
        });
        match index {
            Ok(v) => Ok(v),
            Err((path, kind, text)) => Err(Error::BundlesDir {
                path: path.clone(),
                source: std::io::Error::new(*kind, text.clone()),
            }),
        }
    }
}

/// `work` on every item, on at most `jobs` threads at a time (here when `jobs` is 1 or there is
/// at most one item); the results in the items' order.
fn run_bounded<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    work: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = jobs.min(items.len());
    if threads <= 1 {
        return items.iter().map(work).collect();
    }
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let result = work(item);
                    *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every item ran")
        })
        .collect()
}

/// `dir` if it is a bundle, else bundles below it, up to `depth` levels.
fn collect_bundle_dirs(dir: &Path, depth: u32, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if dir.join("manifests").is_dir() {
        out.push(dir.to_path_buf());
        return Ok(());
    }
    if depth == 0 {
        return Ok(());
    }
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            collect_bundle_dirs(&entry.path(), depth - 1, out)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{Credentials, Limits, Settings};

    fn puller(cache: &Path) -> Puller {
        Puller::new(Settings {
            options: crate::fetch::Options {
                offline: true,
                ..Default::default()
            },
            cache: crate::fetch::Cache::new(cache),
            credentials: Credentials::default(),
            rules: Vec::new(),
            layouts: Vec::new(),
            limits: Limits::default(),
        })
    }

    fn write_bundle(dir: &Path, package: &str, csv: &str) {
        std::fs::create_dir_all(dir.join("manifests")).unwrap();
        std::fs::create_dir_all(dir.join("metadata")).unwrap();
        std::fs::write(
            dir.join("metadata/annotations.yaml"),
            format!(
                "annotations:\n  {}: {package}\n",
                super::super::PACKAGE_ANNOTATION
            ),
        )
        .unwrap();
        std::fs::write(
            dir.join("manifests/csv.yaml"),
            format!("apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: {csv}\nspec:\n  version: 1.0.0\n"),
        )
        .unwrap();
    }

    mod run_bounded {
        use super::super::run_bounded;
        use std::sync::{Condvar, Mutex};
        use std::time::Duration;

        #[derive(Default)]
        struct Seen {
            in_flight: usize,
            most: usize,
            started: usize,
            threads: std::collections::HashSet<std::thread::ThreadId>,
        }

        /// Run `n` items on `jobs` threads; each item waits (a while at most) until `jobs`
        /// items have been in flight together, so the most seen at once is exactly the bound
        /// when the bound is kept and concurrency reaches it.
        fn observe(n: usize, jobs: usize) -> (Vec<usize>, Seen) {
            let state = Mutex::new(Seen::default());
            let changed = Condvar::new();
            let items: Vec<usize> = (0..n).collect();
            let out = run_bounded(&items, jobs, |&i| {
                let mut s = state.lock().unwrap();
                s.in_flight += 1;
                s.started += 1;
                s.most = s.most.max(s.in_flight);
                s.threads.insert(std::thread::current().id());
                changed.notify_all();
                let want = jobs.min(n);
                let (mut s, _) = changed
                    .wait_timeout_while(s, Duration::from_secs(30), |s| {
                        s.most < want && s.started < n
                    })
                    .unwrap();
                s.in_flight -= 1;
                i * 10
            });
            (out, state.into_inner().unwrap())
        }

        #[test]
        fn never_more_than_jobs_at_once_and_results_in_order() {
            let (out, seen) = observe(10, 3);
            assert_eq!(out, (0..10).map(|i| i * 10).collect::<Vec<_>>());
            assert_eq!(seen.most, 3);
            assert_eq!(seen.started, 10);
            assert!(seen.threads.len() <= 3, "{} threads", seen.threads.len());
        }

        #[test]
        fn one_job_runs_on_the_calling_thread() {
            let (out, seen) = observe(4, 1);
            assert_eq!(out, vec![0, 10, 20, 30]);
            assert_eq!(seen.most, 1);
            assert_eq!(
                seen.threads.into_iter().collect::<Vec<_>>(),
                vec![std::thread::current().id()]
            );
        }

        #[test]
        fn fewer_items_than_jobs_start_one_thread_each() {
            let (out, seen) = observe(2, 8);
            assert_eq!(out, vec![0, 10]);
            assert_eq!((seen.most, seen.threads.len()), (2, 2));
            assert!(run_bounded(&[] as &[u8], 8, |_| ()).is_empty());
        }
    }

    #[test]
    fn bundles_dirs_are_matched_by_csv_name_and_package() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("bundles");
        write_bundle(&root.join("op/1.0.0"), "op", "op.v1.0.0");
        write_bundle(&root.join("other/1.0.0"), "other", "other.v1.0.0");
        let sources = Sources::new(vec![root.clone()], puller(&d.path().join("cache")));
        let loaded = sources
            .load(&Request {
                image: "",
                name: Some("op.v1.0.0"),
                package: Some("op"),
            })
            .unwrap();
        assert_eq!(loaded.origin, Origin::Directory(root.join("op/1.0.0")));
        assert_eq!(loaded.bundle.package, "op");
        // Same CSV name, other package: not a match, and there is no image to pull.
        let e = sources
            .load(&Request {
                image: "",
                name: Some("op.v1.0.0"),
                package: Some("elsewhere"),
            })
            .unwrap_err();
        assert!(matches!(e, Error::NoImage { .. }), "{e}");
        assert!(!e.is_io());
    }

    #[test]
    fn offline_without_a_copy_is_an_io_failure_naming_the_image() {
        let d = tempfile::tempdir().unwrap();
        let sources = Sources::new(Vec::new(), puller(&d.path().join("cache")));
        let image = "quay.io/acme/op-bundle@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        let e = sources
            .load(&Request {
                image,
                name: Some("op.v1.0.0"),
                package: Some("op"),
            })
            .unwrap_err();
        assert!(e.is_io(), "{e}");
        assert!(e.to_string().contains(image), "{e}");
        assert!(e.hint().unwrap().contains("--oci-layout"));
        // A missing --bundles directory is an I/O error too.
        let sources = Sources::new(vec![d.path().join("absent")], puller(d.path()));
        let e = sources
            .load(&Request {
                image,
                name: Some("x"),
                package: None,
            })
            .unwrap_err();
        assert!(matches!(e, Error::BundlesDir { .. }) && e.is_io(), "{e}");
    }
}
