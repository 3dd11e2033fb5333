//! The puller: finds a bundle image (the cache, then each `--oci-layout`, then the registry
//! locations, mirrors first), checks every manifest and layer against its digest and size, and
//! unpacks the layers into a staging directory inside the cache that is renamed into place
//! only when the whole image unpacked.

use std::path::{Path, PathBuf};

use super::auth::Credentials;
use super::distribution::RegistryBlobs;
use super::error::{Attempt, Error, ErrorKind};
use super::layer::{self, Limits};
use super::layout::{Layout, LayoutBlobs};
use super::location::{Location, MirrorRule, locations};
use super::manifest::{
    Blobs, MAX_MANIFEST_BYTES, Parsed, Spool, check_descriptor, check_digest, parse_manifest,
    pick_platform,
};
use super::reference::{ImageRef, parse_reference, sha256_hex};
use crate::fetch::{self, Cache};

/// Everything needed to find and pull bundle images.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Trust, proxy, timeouts, retries, offline (shared with catalog downloads).
    pub options: fetch::Options,
    /// The cache (shared with catalog downloads).
    pub cache: Cache,
    /// `--authfile` then install-config `pullSecret`.
    pub credentials: Credentials,
    /// Mirror rules from install-config.
    pub rules: Vec<MirrorRule>,
    /// `--oci-layout` directories, in order.
    pub layouts: Vec<PathBuf>,
    /// Size limits.
    pub limits: Limits,
}

/// Where an unpacked bundle came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Unpacked by an earlier run.
    Cache,
    /// An OCI image layout.
    Layout(PathBuf),
    /// A registry (`registry/repository`, and why it was tried).
    Registry {
        /// `registry/repository`.
        name: String,
        /// `source` or which mirror rule.
        why: String,
    },
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Cache => f.write_str("the cache"),
            Origin::Layout(p) => write!(f, "OCI layout {}", p.display()),
            Origin::Registry { name, why } => write!(f, "{name} ({why})"),
        }
    }
}

/// An unpacked bundle image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unpacked {
    /// The directory holding `manifests/` and `metadata/`.
    pub dir: PathBuf,
    /// The digest the directory is named by.
    pub digest: String,
    /// Where it came from.
    pub origin: Origin,
}

/// Finds and unpacks bundle images. Build one per run; threads may share it to pull at the
/// same time.
pub struct Puller {
    settings: Settings,
    /// The HTTPS client, built at the first pull from a registry and cloned for every pull
    /// after it: building one reads and parses the system's trust roots (milliseconds of CPU,
    /// which 50 pulls at once paid 50 times), and the clones share one pool of idle
    /// connections, so a pull reuses the TCP and TLS session any earlier pull to that
    /// registry left. Requests run on the pulling thread itself, so pulls at the same time
    /// do not queue behind one another.
    client: std::sync::Mutex<Option<fetch::HttpsClient>>,
}

impl std::fmt::Debug for Puller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Puller")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl Puller {
    /// A puller; nothing is opened until an image is asked for.
    pub fn new(settings: Settings) -> Puller {
        Puller {
            settings,
            client: std::sync::Mutex::new(None),
        }
    }

    /// The HTTPS client (a clone sharing the connections), built on first use; a failure to
    /// build it is not kept, so the next pull says it again.
    fn client(&self) -> Result<fetch::HttpsClient, fetch::ErrorKind> {
        let mut client = self.client.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(client) = client.as_ref() {
            return Ok(client.clone());
        }
        let built = fetch::https_client(&self.settings.options)?;
        *client = Some(built.clone());
        Ok(built)
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Where an image pinned by `digest` is unpacked in the cache.
    pub fn cached_dir(&self, digest: &str) -> Option<PathBuf> {
        let hex = sha256_hex(digest)?;
        Some(
            self.settings
                .cache
                .root()
                .join("bundles")
                .join(format!("sha256-{hex}")),
        )
    }

    /// Remove an unpacked image from the cache, when its content turned out not to be a
    /// bundle, so that no later run takes it from there.
    pub fn discard(&self, unpacked: &Unpacked) -> std::io::Result<()> {
        match self.cached_dir(&unpacked.digest) {
            Some(dir) if dir == unpacked.dir && dir.is_dir() => self.remove_from_cache(&dir),
            _ => Ok(()),
        }
    }

    /// Take a directory out of the cache at once (renamed into the staging directory), then
    /// remove it there: no pull ever finds it half removed.
    fn remove_from_cache(&self, dir: &Path) -> std::io::Result<()> {
        let staging = self.settings.cache.staging_dir();
        std::fs::create_dir_all(&staging)?;
        let aside = tempfile::Builder::new()
            .prefix("discarded-")
            .tempdir_in(&staging)?;
        match std::fs::rename(dir, aside.path().join("bundle")) {
            // Another pull took it away first.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            other => other,
        }
    }

    /// Find `image` (cache, layouts, registry) and unpack it into the cache.
    pub fn unpack(&self, image: &str) -> Result<Unpacked, Error> {
        let fail = |attempts: Vec<Attempt>| Error {
            image: image.to_string(),
            attempts,
        };
        let parsed = parse_reference(image)?;
        if let Some(d) = &parsed.digest
            && sha256_hex(d).is_none()
        {
            return Err(fail(vec![Attempt {
                place: "the reference".into(),
                kind: ErrorKind::InvalidReference {
                    detail: format!("only sha256 digests are supported, found {d}"),
                },
            }]));
        }
        if let Some(d) = &parsed.digest
            && let Some(dir) = self.cached_dir(d)
            && dir.join("manifests").is_dir()
        {
            return Ok(Unpacked {
                dir,
                digest: d.clone(),
                origin: Origin::Cache,
            });
        }
        let mut attempts = Vec::new();
        for root in &self.settings.layouts {
            let place = format!("OCI layout {}", root.display());
            let layout = match Layout::open(root) {
                Ok(l) => l,
                Err(source) => {
                    attempts.push(Attempt {
                        place,
                        kind: ErrorKind::Io {
                            path: root.clone(),
                            source,
                        },
                    });
                    continue;
                }
            };
            let Some(top) = layout.find(parsed.digest.as_deref(), image, parsed.tag.as_deref())
            else {
                continue;
            };
            let mut blobs = LayoutBlobs { layout: &layout };
            crate::notice::stage(|| format!("unpacking {image} from {place}"));
            match self.unpack_from(&mut blobs, &top) {
                Ok(dir) => {
                    return Ok(Unpacked {
                        dir,
                        digest: top,
                        origin: Origin::Layout(root.clone()),
                    });
                }
                Err(kind) => attempts.push(Attempt { place, kind }),
            }
        }
        if self.settings.options.offline && !attempts.is_empty() {
            // A layout had the image and refused it: that is the whole story.
            return Err(fail(attempts));
        }
        let pulled = self.try_registries(&parsed, &mut attempts, |blobs, place| {
            crate::notice::stage(|| format!("pulling {image} from {place}"));
            let top = match &parsed.digest {
                Some(d) => d.clone(),
                None => blobs.resolve_tag(parsed.tag.as_deref().unwrap_or("latest"))?,
            };
            let dir = self.unpack_from(blobs, &top)?;
            Ok((dir, top))
        });
        match pulled {
            Some(((dir, digest), location)) => Ok(Unpacked {
                dir,
                digest,
                origin: Origin::Registry {
                    name: location.name(),
                    why: location.why,
                },
            }),
            None => Err(fail(attempts)),
        }
    }

    /// `work` against each registry location of `parsed` (mirrors first), until one
    /// succeeds; each failure is recorded in `attempts`. Offline, or without a registry
    /// client, nothing is tried and `attempts` says why.
    fn try_registries<T>(
        &self,
        parsed: &ImageRef,
        attempts: &mut Vec<Attempt>,
        mut work: impl FnMut(&mut RegistryBlobs<'_>, &str) -> Result<T, ErrorKind>,
    ) -> Option<(T, Location)> {
        if self.settings.options.offline {
            attempts.push(Attempt {
                place: "the registry".into(),
                kind: ErrorKind::NotCached {
                    cache: self.settings.cache.root().to_path_buf(),
                },
            });
            return None;
        }
        let mut client = None;
        let mut found = None;
        for location in locations(parsed, &self.settings.rules) {
            let place = format!("registry {} ({})", location.name(), location.why);
            let http = match client.take().map_or_else(|| self.client(), Ok) {
                Ok(http) => http,
                Err(kind) => {
                    let kind = ErrorKind::from_fetch(kind, &location.registry);
                    attempts.push(Attempt { place, kind });
                    continue;
                }
            };
            let mut blobs = RegistryBlobs::new(
                http.clone(),
                &self.settings.options,
                &self.settings.credentials,
                &location,
            );
            client = Some(http);
            match work(&mut blobs, &place) {
                Ok(value) => {
                    found = Some((value, location));
                    break;
                }
                Err(kind) => attempts.push(Attempt { place, kind }),
            }
        }
        found
    }

    /// The digest `image` stands for: its own when it has one; else its tag looked up in the
    /// `--oci-layout` directories, then in the registry (mirrors first, as for pulls). Offline,
    /// a tag not found in a layout cannot be resolved.
    pub fn resolve_digest(&self, image: &str) -> Result<String, Error> {
        let fail = |attempts: Vec<Attempt>| Error {
            image: image.to_string(),
            attempts,
        };
        let parsed = parse_reference(image)?;
        if let Some(d) = &parsed.digest {
            return Ok(d.clone());
        }
        let tag = parsed.tag.as_deref().unwrap_or("latest");
        for root in &self.settings.layouts {
            if let Ok(layout) = Layout::open(root)
                && let Some(top) = layout.find(None, image, Some(tag))
            {
                return Ok(top);
            }
        }
        let mut attempts = Vec::new();
        match self.try_registries(&parsed, &mut attempts, |blobs, _| blobs.resolve_tag(tag)) {
            Some((digest, _)) => Ok(digest),
            None => Err(fail(attempts)),
        }
    }

    /// Unpack the image whose top manifest is `top` into the cache; returns the directory.
    fn unpack_from(&self, blobs: &mut dyn Blobs, top: &str) -> Result<PathBuf, ErrorKind> {
        let limits = &self.settings.limits;
        let staging = self.settings.cache.staging_dir();
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ErrorKind::Io { path, source }
        };
        std::fs::create_dir_all(&staging).map_err(io(&staging))?;
        let bytes = blobs.manifest(top)?;
        check_digest(&format!("manifest {top}"), top, &bytes)?;
        let layers = match parse_manifest(top, &bytes)? {
            Parsed::Image(layers) => layers,
            Parsed::Index(entries) => {
                let chosen = pick_platform(&entries).ok_or_else(|| ErrorKind::InvalidManifest {
                    digest: top.to_string(),
                    detail: "the index lists no image manifest".into(),
                })?;
                let child = chosen.digest.clone();
                check_descriptor(&child, chosen.size, MAX_MANIFEST_BYTES, "manifest")?;
                let bytes = blobs.manifest(&child)?;
                check_digest(&format!("manifest {child}"), &child, &bytes)?;
                match parse_manifest(&child, &bytes)? {
                    Parsed::Image(layers) => layers,
                    Parsed::Index(_) => {
                        return Err(ErrorKind::InvalidManifest {
                            digest: child,
                            detail: "an index inside an index is not supported".into(),
                        });
                    }
                }
            }
        };
        if layers.len() > limits.max_layers {
            return Err(ErrorKind::InvalidManifest {
                digest: top.to_string(),
                detail: format!(
                    "{} layers, more than the {} a bundle image may have",
                    layers.len(),
                    limits.max_layers
                ),
            });
        }
        // The staging directory itself becomes the bundle's directory (renamed into place);
        // tempfile creates it with the mode a directory created plainly gets.
        let work = tempfile::Builder::new()
            .prefix("bundle-")
            .tempdir_in(&staging)
            .map_err(io(&staging))?;
        let dest = work.path().to_path_buf();
        let mut budget = layer::Budget::default();
        let mut total: u64 = 0;
        for l in &layers {
            check_descriptor(&l.digest, l.size, limits.max_bytes, "layer")?;
            total = total.saturating_add(l.size.max(0) as u64);
            if total > limits.max_bytes {
                return Err(ErrorKind::TooLarge {
                    what: "the image's layers together".into(),
                    limit: limits.max_bytes,
                    reason: "--max-bundle-size".into(),
                });
            }
            let size = l.size.max(0) as u64;
            let mut spool =
                Spool::new(size, limits.memory_layer_bytes, &staging).map_err(io(&staging))?;
            blobs.blob(l, &mut spool, size)?;
            let (actual, read) = (spool.digest(), spool.len());
            if actual != l.digest {
                return Err(ErrorKind::DigestMismatch {
                    what: format!("layer {}", l.digest),
                    expected: l.digest.clone(),
                    actual,
                });
            }
            if read != size {
                return Err(ErrorKind::InvalidManifest {
                    digest: top.to_string(),
                    detail: format!(
                        "layer {} has {read} bytes, its descriptor says {}",
                        l.digest, l.size
                    ),
                });
            }
            let reader = spool.into_reader().map_err(io(&staging))?;
            layer::unpack_layer(reader, &dest, limits, &mut budget).map_err(|source| {
                ErrorKind::UnsafeLayer {
                    digest: l.digest.clone(),
                    source,
                }
            })?;
        }
        if !dest.join("manifests").is_dir() {
            return Err(ErrorKind::NotABundle);
        }
        let Some(final_dir) = self.cached_dir(top) else {
            return Err(ErrorKind::InvalidManifest {
                digest: top.to_string(),
                detail: "not a sha256 digest".into(),
            });
        };
        let parent = final_dir.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(parent).map_err(io(parent))?;
        // Another pull of the same digest (another run, or another thread of this one) may
        // finish at the same moment. A directory appears whole (by a rename), so one with
        // `manifests/` is complete and is never removed; one without is a leftover and is
        // taken out of the way first.
        if final_dir.exists() {
            if final_dir.join("manifests").is_dir() {
                return Ok(final_dir);
            }
            self.remove_from_cache(&final_dir).map_err(io(&final_dir))?;
        }
        match std::fs::rename(&dest, &final_dir) {
            Ok(()) => {
                // Nothing is left at the staging path to clean up.
                let _ = work.keep();
                Ok(final_dir)
            }
            // Another pull put the same content in place first.
            Err(_) if final_dir.join("manifests").is_dir() => Ok(final_dir),
            Err(e) => Err(io(&final_dir)(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use sha2::{Digest as _, Sha256};

    use super::*;
    use crate::registry::Limits;

    fn sha(bytes: &[u8]) -> String {
        format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
    }

    /// An OCI layout holding one bundle image (one gzip layer); returns its digest.
    fn layout_with_a_bundle(root: &Path) -> String {
        let mut tar = tar::Builder::new(Vec::new());
        for (path, data) in [
            (
                "metadata/annotations.yaml",
                &b"annotations:\n  operators.operatorframework.io.bundle.package.v1: op\n"[..],
            ),
            ("manifests/csv.yaml", b"kind: ClusterServiceVersion\n"),
        ] {
            let mut h = tar::Header::new_gnu();
            h.set_size(data.len() as u64);
            h.set_mode(0o644);
            tar.append_data(&mut h, path, data).unwrap();
        }
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &tar.into_inner().unwrap()).unwrap();
        let layer = gz.finish().unwrap();
        let config = br#"{"architecture":"amd64","os":"linux"}"#.to_vec();
        let manifest = serde_json::to_vec(&serde_json::json!({
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": sha(&config), "size": config.len()},
            "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": sha(&layer), "size": layer.len()}]
        }))
        .unwrap();
        let blobs = root.join("blobs/sha256");
        std::fs::create_dir_all(&blobs).unwrap();
        for bytes in [&config, &layer, &manifest] {
            std::fs::write(blobs.join(&sha(bytes)[7..]), bytes).unwrap();
        }
        std::fs::write(root.join("oci-layout"), r#"{"imageLayoutVersion":"1.0.0"}"#).unwrap();
        let index = serde_json::json!({"schemaVersion": 2, "manifests": [
            {"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": sha(&manifest), "size": manifest.len()}]});
        std::fs::write(root.join("index.json"), serde_json::to_vec(&index).unwrap()).unwrap();
        sha(&manifest)
    }

    /// [`layout_with_a_bundle`] at `dir/layout`: the layout, the image's digest and a
    /// reference to it by that digest.
    fn bundle_in_layout(dir: &Path) -> (PathBuf, String, String) {
        let layout = dir.join("layout");
        let digest = layout_with_a_bundle(&layout);
        let image = format!("registry.test/op-bundle@{digest}");
        (layout, digest, image)
    }

    fn puller(cache: &Path, layout: &Path) -> Puller {
        Puller::new(Settings {
            options: fetch::Options {
                offline: true,
                ..Default::default()
            },
            cache: Cache::new(cache),
            credentials: Credentials::default(),
            rules: Vec::new(),
            layouts: vec![layout.to_path_buf()],
            limits: Limits::default(),
        })
    }

    /// Every file below `dir` with its bytes, by relative path.
    fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        let mut todo = vec![dir.to_path_buf()];
        while let Some(d) = todo.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    todo.push(p);
                } else {
                    let bytes = std::fs::read(&p).unwrap();
                    out.push((p.strip_prefix(dir).unwrap().to_path_buf(), bytes));
                }
            }
        }
        out.sort();
        out
    }

    /// A layer unpacks alike whether it is held in memory or goes through a temporary file,
    /// into a directory with a plainly created directory's mode, and one whose bytes are not
    /// its digest's is refused either way, leaving nothing in the cache.
    #[test]
    fn a_layer_in_memory_or_in_a_file_unpacks_alike() {
        use std::os::unix::fs::PermissionsExt as _;
        let d = tempfile::tempdir().unwrap();
        let (layout, _, image) = bundle_in_layout(d.path());
        let plain = d.path().join("plain");
        std::fs::create_dir(&plain).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode();
        let pull = |memory_layer_bytes: u64, cache: &Path| {
            let mut p = puller(cache, &layout);
            p.settings.limits.memory_layer_bytes = memory_layer_bytes;
            p.unpack(&image).map(|u| u.dir)
        };
        let in_memory = pull(u64::MAX, &d.path().join("a")).unwrap();
        let in_file = pull(0, &d.path().join("b")).unwrap();
        assert_eq!(tree(&in_memory), tree(&in_file));
        assert_eq!(tree(&in_memory).len(), 2);
        assert_eq!(mode(&in_memory), mode(&plain));
        assert_eq!(mode(&in_file), mode(&plain));

        // The layer's bytes changed, its length kept.
        let blobs = layout.join("blobs/sha256");
        let layer = std::fs::read_dir(&blobs)
            .unwrap()
            .map(|e| e.unwrap().path())
            .max_by_key(|p| std::fs::metadata(p).unwrap().len())
            .unwrap();
        let mut bytes = std::fs::read(&layer).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        std::fs::write(&layer, &bytes).unwrap();
        for (limit, cache) in [(u64::MAX, "c"), (0, "e")] {
            let cache = d.path().join(cache);
            let e = pull(limit, &cache).unwrap_err();
            assert!(format!("{e:?}").contains("DigestMismatch"), "{e:?}");
            assert_eq!(tree(&cache), Vec::new());
            let staging = Cache::new(&cache).staging_dir();
            assert_eq!(std::fs::read_dir(&staging).unwrap().count(), 0);
        }
    }

    /// Pulls of one digest at the same moment, by threads of one run or by several runs
    /// sharing a cache, all end with the one complete directory; a leftover without
    /// `manifests/` is replaced, and a discarded bundle leaves nothing behind.
    #[test]
    fn concurrent_pulls_of_one_digest_share_one_complete_directory() {
        let d = tempfile::tempdir().unwrap();
        let (layout, digest, image) = bundle_in_layout(d.path());
        let cache = d.path().join("cache");
        for round in 0..8 {
            let start = std::sync::Barrier::new(8);
            let dirs: Vec<PathBuf> = std::thread::scope(|s| {
                let pulls: Vec<_> = (0..8)
                    .map(|_| {
                        s.spawn(|| {
                            let puller = puller(&cache, &layout);
                            start.wait();
                            puller.unpack(&image).map(|u| u.dir)
                        })
                    })
                    .collect();
                pulls
                    .into_iter()
                    .map(|p| p.join().unwrap().unwrap())
                    .collect()
            });
            let p = puller(&cache, &layout);
            let expected = p.cached_dir(&digest).unwrap();
            assert!(dirs.iter().all(|dir| *dir == expected), "{dirs:?}");
            assert!(expected.join("manifests/csv.yaml").is_file());
            assert!(expected.join("metadata/annotations.yaml").is_file());
            // Next round: from scratch, or over a leftover without manifests/.
            std::fs::remove_dir_all(&cache).unwrap();
            if round % 2 == 0 {
                std::fs::create_dir_all(expected.join("metadata")).unwrap();
            }
        }
        let p = puller(&cache, &layout);
        let unpacked = p.unpack(&image).unwrap();
        p.discard(&unpacked).unwrap();
        assert!(!unpacked.dir.exists());
        p.discard(&unpacked).unwrap();
    }
}
