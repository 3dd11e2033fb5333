//! Bundle images: find a registry+v1 bundle image and unpack its `manifests/` and `metadata/`
//! into the content-addressed cache, from the cache itself, from OCI image layouts on disk, or
//! from registries over the OCI distribution API (Docker Registry v2), mirrors first.
//!
//! Input: an image reference (`registry/repo@sha256:…`, or a tag for `bundle pull`). Output:
//! [`Unpacked`], a directory `<cache>/bundles/sha256-<hex>/` holding the bundle, named by the
//! digest the reference pins (or, for a tag, the manifest's digest).
//!
//! * Order: the cache (a reference by digest that was unpacked before), then each
//!   `--oci-layout`, then the registry. Registry locations are the mirrors of the most specific
//!   `imageDigestSources`/`imageContentSources` rule covering the image, in order, then the
//!   source unless the rule says `NeverContactSource` (containers-registries.conf(5)); a
//!   reference by tag is only pulled from its source, as the cluster would.
//! * The protocol is the OCI distribution API's (manifest lists and OCI indexes; bearer-token
//!   and basic auth, [`token`]), over rustls with the same trust, proxy and timeouts as catalogs
//!   ([`crate::fetch::Options`]), with bounded retries on connection errors, 429 and 5xx.
//!   Credentials come from `--authfile` and install-config `pullSecret` ([`auth`]).
//! * Every manifest and blob is checked against its digest (and declared size) before it is
//!   used, wherever it comes from; an index resolves to linux/amd64, else its first image.
//! * Every answer is bounded: a manifest at [`MAX_MANIFEST_BYTES`] (4 MiB, as registries and
//!   containerd cap them), a blob at its descriptor's size; an answer whose `Content-Length`
//!   announces more is refused before its body is read. Manifests and blobs are fetched with
//!   [`crate::fetch::https_client`] (streamed into a file or a bounded buffer), and so are the
//!   registry's token answers ([`token::MAX_TOKEN_BYTES`], within `--timeout`); credentials
//!   never go to a token service that is not `https://`.
//! * Layers are unpacked by [`layer`] (only `manifests/` and `metadata/`, no traversal, no
//!   links out, no devices, bounded sizes) into a staging directory inside the cache, which is
//!   renamed into place only when the whole image unpacked: nothing is written elsewhere.
//! * Offline, only the cache and layouts are used, and the error names what is missing.
//!
//! * This module also owns the parsed image reference ([`ImageRef`], normalised as
//!   `ParseNormalizedNamed` does, over [`crate::catalog::image`]'s grammar) and how a mirror
//!   rule's `source` matches it ([`source_matches`]); `mirror` and `check`, above, read both.
//!
//! Source of truth for the bundle layout: `reference/catalogs-and-conversion.md` §2.2 and §5.1.

pub mod auth;
pub mod layer;
pub mod layout;
pub mod token;

use std::io::{Read as _, Seek as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use sha2::{Digest as _, Sha256};

use crate::catalog::image::{ImageRefError, check_reference};
use crate::config::install::InstallConfig;
use crate::fetch::{self, Cache};

pub use auth::{Credential, Credentials};
pub use layer::Limits;
pub use layout::Layout;

/// The largest manifest or index accepted (they are small JSON documents; registries and
/// containerd cap them at 4 MiB too).
pub const MAX_MANIFEST_BYTES: u64 = 4 * 1024 * 1024;

/// Media types accepted for manifests.
const MANIFEST_TYPES: [&str; 4] = [
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.docker.distribution.manifest.v2+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
];

/// The hex of a well-formed `sha256:<64 lowercase hex>` digest.
pub fn sha256_hex(digest: &str) -> Option<&str> {
    let hex = digest.strip_prefix("sha256:")?;
    (hex.len() == 64
        && hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
    .then_some(hex)
}

/// A parsed image reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageRef {
    /// As written.
    pub text: String,
    /// The registry host (`docker.io` when none is written).
    pub domain: String,
    /// The path below the registry (`library/x` for a bare `x` on docker.io).
    pub path: String,
    /// The tag, if any.
    pub tag: Option<String>,
    /// The digest (`sha256:…`), if any.
    pub digest: Option<String>,
}

impl ImageRef {
    /// Parse and normalise a reference (`name[:tag][@digest]`, as `ParseNormalizedNamed`).
    pub fn parse(text: &str) -> Result<ImageRef, ImageRefError> {
        check_reference(text)?;
        let (rest, digest) = match text.split_once('@') {
            Some((r, d)) => (r, Some(d.to_string())),
            None => (text, None),
        };
        let (name, tag) = match rest.rfind(':') {
            Some(i) if !rest[i..].contains('/') => (&rest[..i], Some(rest[i + 1..].to_string())),
            _ => (rest, None),
        };
        let (domain, path) = split_domain(name);
        Ok(ImageRef {
            text: text.to_string(),
            domain,
            path,
            tag,
            digest,
        })
    }

    /// `domain/path`.
    pub fn repository(&self) -> String {
        format!("{}/{}", self.domain, self.path)
    }
}

/// A name split into its registry host and the path below it, as `ParseNormalizedNamed` splits
/// it: the first component is the host only if it has a `.` or `:`, is `localhost` or has an
/// upper-case letter; otherwise `docker.io` is implied (and `library/` for a single component).
pub fn split_domain(name: &str) -> (String, String) {
    match name.split_once('/') {
        Some((d, r))
            if d.contains('.') || d.contains(':') || d == "localhost" || d.to_lowercase() != d =>
        {
            (d.to_string(), r.to_string())
        }
        Some(_) => ("docker.io".to_string(), name.to_string()),
        None => ("docker.io".to_string(), format!("library/{name}")),
    }
}

/// Whether a rule `source` matches an image's repository by whole path components.
pub fn source_matches(source: &str, image: &ImageRef) -> bool {
    let source = source.trim().trim_end_matches('/');
    if let Some(suffix) = source.strip_prefix("*.") {
        // A wildcard names registries only.
        return image
            .domain
            .strip_suffix(suffix)
            .is_some_and(|head| head.ends_with('.') && head.len() > 1);
    }
    let (domain, path) = match source.split_once('/') {
        Some(_) => split_domain(source),
        None => (source.to_string(), String::new()),
    };
    if domain != image.domain {
        return false;
    }
    path.is_empty()
        || image.path == path
        || image
            .path
            .strip_prefix(&path)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// A mirror rule with its source policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MirrorRule {
    /// `source` as written.
    pub source: String,
    /// `mirrors`, in order.
    pub mirrors: Vec<String>,
    /// `sourcePolicy: NeverContactSource`.
    pub never_contact_source: bool,
    /// Where the rule is (`imageDigestSources[0]`).
    pub origin: String,
}

/// The mirror rules of an install-config, `imageDigestSources` first.
pub fn mirror_rules(install: &InstallConfig) -> Vec<MirrorRule> {
    let mut out = Vec::new();
    for (field, list) in [
        ("imageDigestSources", &install.image_digest_sources),
        ("imageContentSources", &install.image_content_sources),
    ] {
        for (i, r) in list.iter().enumerate() {
            out.push(MirrorRule {
                source: r.source.trim().trim_end_matches('/').to_string(),
                mirrors: r.mirrors.clone(),
                never_contact_source: r.source_policy.as_deref() == Some("NeverContactSource"),
                origin: format!("{field}[{i}]"),
            });
        }
    }
    out
}

/// One place to pull an image from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// `host[:port]`.
    pub registry: String,
    /// The repository below the registry.
    pub repository: String,
    /// Why this location: `source`, or `mirror of imageDigestSources[0]`.
    pub why: String,
}

impl Location {
    /// `registry/repository`.
    pub fn name(&self) -> String {
        format!("{}/{}", self.registry, self.repository)
    }
}

/// Where to pull `image` from, in order: mirrors of the most specific covering rule (for a
/// reference by digest), then the source unless that rule forbids it.
pub fn locations(image: &ImageRef, rules: &[MirrorRule]) -> Vec<Location> {
    let source = Location {
        registry: image.domain.clone(),
        repository: image.path.clone(),
        why: "source".into(),
    };
    if image.digest.is_none() {
        return vec![source];
    }
    let rule = rules
        .iter()
        .filter(|r| source_matches(&r.source, image))
        .max_by_key(|r| r.source.trim_start_matches("*.").len());
    let Some(rule) = rule else {
        return vec![source];
    };
    let repository = image.repository();
    let mut out = Vec::new();
    for mirror in &rule.mirrors {
        let mirror = mirror.trim().trim_end_matches('/');
        let target = if rule.source.starts_with("*.") {
            // A wildcard rule replaces the registry only.
            format!("{mirror}/{}", image.path)
        } else {
            match repository.strip_prefix(&rule.source) {
                Some(rest) => format!("{mirror}{rest}"),
                None => format!("{mirror}/{}", image.path),
            }
        };
        let Ok(parsed) = ImageRef::parse(&format!(
            "{target}@{}",
            image.digest.as_deref().unwrap_or_default()
        )) else {
            continue;
        };
        out.push(Location {
            registry: parsed.domain,
            repository: parsed.path,
            why: format!("mirror {mirror} of {}", rule.origin),
        });
    }
    if !rule.never_contact_source || out.is_empty() {
        out.push(source);
    }
    out
}

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

/// A bundle image that could not be had from any place tried.
#[derive(Debug, thiserror::Error)]
#[error("bundle image {image}: {}", describe(attempts))]
pub struct Error {
    /// The reference.
    pub image: String,
    /// Every place tried, in order, and why it failed.
    pub attempts: Vec<Attempt>,
}

/// One failed try.
#[derive(Debug)]
pub struct Attempt {
    /// Where (`registry quay.io/x (source)`, `OCI layout DIR`, `the cache`).
    pub place: String,
    /// Why it failed.
    pub kind: ErrorKind,
}

fn describe(attempts: &[Attempt]) -> String {
    match attempts {
        [] => "no place to get it from".into(),
        [one] => format!("from {}: {}", one.place, one.kind),
        many => {
            let parts: Vec<String> = many
                .iter()
                .map(|a| format!("from {}: {}", a.place, a.kind))
                .collect();
            format!("tried {} places: {}", many.len(), parts.join("; "))
        }
    }
}

/// Why one try failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The reference does not parse.
    #[error("invalid image reference: {detail}")]
    InvalidReference {
        /// Why.
        detail: String,
    },
    /// Offline and not cached.
    #[error("not in the cache ({}) nor in any --oci-layout, and --offline forbids pulling it", cache.display())]
    NotCached {
        /// The cache root.
        cache: PathBuf,
    },
    /// The registry does not have it.
    #[error("not found ({detail})")]
    NotFound {
        /// The registry's answer.
        detail: String,
    },
    /// The registry refused access.
    #[error("access denied{}{}", match credential { Some(o) => format!(" with the credentials from {o}"), None => " (no credentials for this registry in --authfile or pullSecret)".into() }, unreadable.iter().map(|u| format!("; {u} was ignored")).collect::<String>())]
    Unauthorized {
        /// Where the credentials sent came from, if any.
        credential: Option<String>,
        /// Credential sources that could not be read (and were ignored).
        unreadable: Vec<String>,
    },
    /// TLS failed.
    #[error("TLS: {detail}")]
    Tls {
        /// Why.
        detail: String,
    },
    /// Timed out.
    #[error("timeout: {detail}")]
    Timeout {
        /// Which timeout.
        detail: String,
    },
    /// The registry's host name did not resolve: our sentence first, the resolver's after.
    #[error(
        "cannot resolve {}: no network access? use --offline with a cached copy, or --oci-layout / --bundles, or check the host name, this machine's DNS and the proxy (the resolver said: {detail})",
        crate::text::printable(host)
    )]
    Dns {
        /// The host.
        host: String,
        /// The resolver's message.
        detail: String,
    },
    /// Connection or proxy failure.
    #[error("cannot connect: {detail}")]
    Connect {
        /// Why.
        detail: String,
    },
    /// The server failed.
    #[error("the registry answered HTTP {status}: {detail}")]
    Server {
        /// Status code.
        status: u16,
        /// The body or message.
        detail: String,
    },
    /// Credentials would go to a token service over plain HTTP (its realm, or a redirect).
    #[error(
        "refused to send credentials to the token service {}{}: only https:// token services are asked",
        crate::text::escape(realm),
        redirected_from.as_ref().map(|r| format!(" (a redirect from {})", crate::text::escape(r))).unwrap_or_default()
    )]
    InsecureRealm {
        /// The URL refused.
        realm: String,
        /// The realm that redirected there, when it was a redirect.
        redirected_from: Option<String>,
    },
    /// Some other protocol failure.
    #[error("{detail}")]
    Protocol {
        /// Why.
        detail: String,
    },
    /// Content does not match its digest.
    #[error("{what} has digest {actual}, but {expected} is expected")]
    DigestMismatch {
        /// Which manifest or blob.
        what: String,
        /// The digest it should have.
        expected: String,
        /// What it has.
        actual: String,
    },
    /// A blob or manifest is bigger than allowed or than declared.
    #[error("{what} is larger than {limit} bytes ({reason})")]
    TooLarge {
        /// Which blob.
        what: String,
        /// The bound.
        limit: u64,
        /// Which bound (`--max-bundle-size`, `its descriptor's size`).
        reason: String,
    },
    /// The manifest is not an image manifest or index this tool reads.
    #[error("invalid manifest {digest}: {detail}")]
    InvalidManifest {
        /// Its digest.
        digest: String,
        /// Why.
        detail: String,
    },
    /// A layer holds something that is never unpacked.
    #[error("layer {digest} refused: {source}")]
    UnsafeLayer {
        /// The layer's digest.
        digest: String,
        /// What is wrong.
        source: layer::LayerError,
    },
    /// The image is not a registry+v1 bundle.
    #[error(
        "the image has no manifests/ directory (so no ClusterServiceVersion): it is not a registry+v1 bundle"
    )]
    NotABundle,
    /// The cache or a layout cannot be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

impl ErrorKind {
    /// Whether the content is wrong (exit 1), rather than unreachable (exit 3).
    pub fn is_invalid_content(&self) -> bool {
        match self {
            ErrorKind::DigestMismatch { .. }
            | ErrorKind::TooLarge { .. }
            | ErrorKind::InvalidManifest { .. }
            | ErrorKind::NotABundle
            | ErrorKind::InvalidReference { .. }
            | ErrorKind::InsecureRealm { .. } => true,
            ErrorKind::UnsafeLayer { source, .. } => !source.is_io(),
            _ => false,
        }
    }

    /// What to try, one sentence.
    pub fn hint(&self) -> String {
        match self {
            ErrorKind::InvalidReference { .. } => "write the image as registry/repository@sha256:<digest>".into(),
            ErrorKind::NotCached { .. } => "run once without --offline with the same --cache-dir, or pass the image as an --oci-layout (skopeo copy docker://IMAGE oci:DIR) or its unpacked directory with --bundles".into(),
            ErrorKind::NotFound { .. } => "check the image reference, that the image was mirrored (oc-mirror), and the imageDigestSources rules".into(),
            ErrorKind::Unauthorized { .. } => "add credentials for this registry to install-config `pullSecret`, or pass --authfile (podman login --authfile FILE REGISTRY)".into(),
            ErrorKind::Tls { .. } => "if the registry's certificate comes from a private CA, add the CA to install-config `additionalTrustBundle` or pass --ca-file".into(),
            ErrorKind::Dns { .. } => "check the image's registry host name and this machine's DNS; behind a proxy set HTTPS_PROXY (or install-config `proxy`); without network, pass the image as an --oci-layout or its unpacked directory with --bundles, or use --offline with a cache".into(),
            ErrorKind::Timeout { .. } | ErrorKind::Connect { .. } => "check the network path and proxy (HTTPS_PROXY or install-config `proxy`), raise --connect-timeout / --timeout, or use --oci-layout / --bundles / --offline with a cache".into(),
            ErrorKind::InsecureRealm { .. } => "the registry names a token service that is not https://: a registry or proxy that asks for credentials in clear text is misconfigured or hostile; fix its auth configuration (or pull through a mirror that uses https)".into(),
            ErrorKind::Server { .. } | ErrorKind::Protocol { .. } => "the registry failed (po-manifests retried with backoff): try again later, or raise --retries".into(),
            ErrorKind::DigestMismatch { .. } => "the content is not what the reference pins: the registry, mirror or layout serves tampered or corrupt data; nothing was cached".into(),
            ErrorKind::TooLarge { .. } => "a bundle image holds only YAML manifests; if this one is really that large, raise --max-bundle-size".into(),
            ErrorKind::InvalidManifest { .. } | ErrorKind::NotABundle => "check that the reference names a registry+v1 bundle image (the catalog's `image` of the bundle)".into(),
            ErrorKind::UnsafeLayer { .. } => "the image is malformed or hostile; nothing outside the cache was written. Do not install it".into(),
            ErrorKind::Io { .. } => "check the permissions and free space of --cache-dir and that the --oci-layout directories are readable".into(),
        }
    }
}

impl Error {
    /// Whether the failure is bad content (exit 1) rather than I/O or network (exit 3).
    pub fn is_invalid_content(&self) -> bool {
        self.attempts.iter().any(|a| a.kind.is_invalid_content())
    }

    /// What to try: the hint of the most telling failure (bad content first, else the last).
    pub fn hint(&self) -> String {
        self.attempts
            .iter()
            .find(|a| a.kind.is_invalid_content())
            .or(self.attempts.last())
            .map(|a| a.kind.hint())
            .unwrap_or_default()
    }
}

/// Finds and unpacks bundle images. Build one per run.
pub struct Puller {
    settings: Settings,
}

impl std::fmt::Debug for Puller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Puller")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// `image` parsed, or the error a pull or lookup of it reports.
fn parse_reference(image: &str) -> Result<ImageRef, Error> {
    ImageRef::parse(image).map_err(|e| Error {
        image: image.to_string(),
        attempts: vec![Attempt {
            place: "the reference".into(),
            kind: ErrorKind::InvalidReference {
                detail: e.to_string(),
            },
        }],
    })
}

impl Puller {
    /// A puller; nothing is opened until an image is asked for.
    pub fn new(settings: Settings) -> Puller {
        Puller { settings }
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
            Some(dir) if dir == unpacked.dir && dir.is_dir() => std::fs::remove_dir_all(&dir),
            _ => Ok(()),
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
        for location in locations(parsed, &self.settings.rules) {
            let place = format!("registry {} ({})", location.name(), location.why);
            match RegistryBlobs::new(&self.settings, &location)
                .and_then(|mut blobs| work(&mut blobs, &place))
            {
                Ok(value) => return Some((value, location)),
                Err(kind) => attempts.push(Attempt { place, kind }),
            }
        }
        None
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
        let work = tempfile::Builder::new()
            .prefix("bundle-")
            .tempdir_in(&staging)
            .map_err(io(&staging))?;
        let dest = work.path().join("bundle");
        std::fs::create_dir(&dest).map_err(io(&dest))?;
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
            let mut file = tempfile::tempfile_in(&staging).map_err(io(&staging))?;
            blobs.blob(l, &mut file, l.size.max(0) as u64)?;
            file.rewind().map_err(io(&staging))?;
            let mut hasher = Sha256::new();
            let mut buf = vec![0u8; 64 * 1024];
            let mut read: u64 = 0;
            loop {
                let n = file.read(&mut buf).map_err(io(&staging))?;
                if n == 0 {
                    break;
                }
                read += n as u64;
                hasher.update(&buf[..n]);
            }
            let actual = format!("sha256:{}", hex::encode(hasher.finalize()));
            if actual != l.digest {
                return Err(ErrorKind::DigestMismatch {
                    what: format!("layer {}", l.digest),
                    expected: l.digest.clone(),
                    actual,
                });
            }
            if read != l.size.max(0) as u64 {
                return Err(ErrorKind::InvalidManifest {
                    digest: top.to_string(),
                    detail: format!(
                        "layer {} has {read} bytes, its descriptor says {}",
                        l.digest, l.size
                    ),
                });
            }
            file.rewind().map_err(io(&staging))?;
            layer::unpack_layer(std::io::BufReader::new(file), &dest, limits, &mut budget)
                .map_err(|source| ErrorKind::UnsafeLayer {
                    digest: l.digest.clone(),
                    source,
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
        if final_dir.join("manifests").is_dir() {
            // Another run unpacked the same content meanwhile.
            return Ok(final_dir);
        }
        if final_dir.exists() {
            std::fs::remove_dir_all(&final_dir).map_err(io(&final_dir))?;
        }
        std::fs::rename(&dest, &final_dir).map_err(io(&final_dir))?;
        Ok(final_dir)
    }
}

fn check_descriptor(digest: &str, size: i64, limit: u64, what: &str) -> Result<(), ErrorKind> {
    if sha256_hex(digest).is_none() {
        return Err(ErrorKind::InvalidManifest {
            digest: digest.to_string(),
            detail: format!("{what} digest {digest:?} is not sha256:<64 hex digits>"),
        });
    }
    if size < 0 {
        return Err(ErrorKind::InvalidManifest {
            digest: digest.to_string(),
            detail: format!("{what} size {size} is negative"),
        });
    }
    if size as u64 > limit {
        return Err(ErrorKind::TooLarge {
            what: format!("{what} {digest} ({size} bytes)"),
            limit,
            reason: "--max-bundle-size".into(),
        });
    }
    Ok(())
}

fn check_digest(what: &str, expected: &str, bytes: &[u8]) -> Result<(), ErrorKind> {
    let actual = format!("sha256:{}", hex::encode(Sha256::digest(bytes)));
    if actual != expected {
        return Err(ErrorKind::DigestMismatch {
            what: what.to_string(),
            expected: expected.to_string(),
            actual,
        });
    }
    Ok(())
}

/// A content descriptor.
#[derive(Debug, Clone, Deserialize)]
struct Descriptor {
    #[serde(rename = "mediaType", default)]
    media_type: String,
    #[serde(default)]
    digest: String,
    #[serde(default)]
    size: i64,
    #[serde(default)]
    platform: Option<Platform>,
}

#[derive(Debug, Clone, Deserialize)]
struct Platform {
    #[serde(default)]
    os: String,
    #[serde(default)]
    architecture: String,
}

#[derive(Deserialize)]
struct RawManifest {
    #[serde(rename = "schemaVersion", default)]
    schema_version: i64,
    #[serde(rename = "mediaType", default)]
    media_type: Option<String>,
    #[serde(default)]
    manifests: Option<Vec<Descriptor>>,
    #[serde(default)]
    layers: Option<Vec<Descriptor>>,
}

enum Parsed {
    Index(Vec<Descriptor>),
    Image(Vec<Descriptor>),
}

fn parse_manifest(digest: &str, bytes: &[u8]) -> Result<Parsed, ErrorKind> {
    let invalid = |detail: String| ErrorKind::InvalidManifest {
        digest: digest.to_string(),
        detail,
    };
    let m: RawManifest =
        serde_json::from_slice(bytes).map_err(|e| invalid(format!("not JSON: {e}")))?;
    if m.schema_version != 2 {
        return Err(invalid(format!(
            "schemaVersion {} (only 2 is supported)",
            m.schema_version
        )));
    }
    if let Some(t) = &m.media_type
        && !MANIFEST_TYPES.contains(&t.as_str())
    {
        return Err(invalid(format!("unsupported mediaType {t:?}")));
    }
    match (m.manifests, m.layers) {
        (Some(entries), None) => Ok(Parsed::Index(entries)),
        (None, Some(layers)) => {
            for l in &layers {
                if l.media_type.contains("foreign") || l.media_type.contains("nondistributable") {
                    return Err(invalid(format!(
                        "layer {} is non-distributable ({})",
                        l.digest, l.media_type
                    )));
                }
            }
            Ok(Parsed::Image(layers))
        }
        _ => Err(invalid(
            "neither an image manifest (layers) nor an index (manifests)".into(),
        )),
    }
}

/// linux/amd64, else the first linux image, else the first entry (bundle content does not
/// depend on the platform).
fn pick_platform(entries: &[Descriptor]) -> Option<&Descriptor> {
    let images: Vec<&Descriptor> = entries
        .iter()
        .filter(|e| !e.media_type.contains("index") && !e.media_type.contains("list"))
        .collect();
    let on = |os: &str, arch: Option<&str>| {
        images.iter().copied().find(|e| {
            e.platform
                .as_ref()
                .is_some_and(|p| p.os == os && arch.is_none_or(|a| p.architecture == a))
        })
    };
    on("linux", Some("amd64"))
        .or_else(|| on("linux", None))
        .or_else(|| images.first().copied())
}

/// Where manifests and blobs come from.
trait Blobs {
    /// The manifest with this digest (not yet verified).
    fn manifest(&mut self, digest: &str) -> Result<Vec<u8>, ErrorKind>;
    /// Write the blob into `out`, at most `limit` bytes (not yet verified).
    fn blob(
        &mut self,
        desc: &Descriptor,
        out: &mut std::fs::File,
        limit: u64,
    ) -> Result<(), ErrorKind>;
}

struct LayoutBlobs<'a> {
    layout: &'a Layout,
}

impl LayoutBlobs<'_> {
    fn open(&self, digest: &str) -> Result<(PathBuf, std::fs::File), ErrorKind> {
        let path = self
            .layout
            .blob_path(digest)
            .ok_or_else(|| ErrorKind::NotFound {
                detail: format!("no blob {digest} in {}", self.layout.root().display()),
            })?;
        let file = std::fs::File::open(&path).map_err(|source| ErrorKind::Io {
            path: path.clone(),
            source,
        })?;
        Ok((path, file))
    }
}

impl Blobs for LayoutBlobs<'_> {
    fn manifest(&mut self, digest: &str) -> Result<Vec<u8>, ErrorKind> {
        let (path, file) = self.open(digest)?;
        let mut out = Vec::new();
        file.take(MAX_MANIFEST_BYTES + 1)
            .read_to_end(&mut out)
            .map_err(|source| ErrorKind::Io { path, source })?;
        if out.len() as u64 > MAX_MANIFEST_BYTES {
            return Err(ErrorKind::TooLarge {
                what: format!("manifest {digest}"),
                limit: MAX_MANIFEST_BYTES,
                reason: "the manifest size limit".into(),
            });
        }
        Ok(out)
    }

    fn blob(
        &mut self,
        desc: &Descriptor,
        out: &mut std::fs::File,
        limit: u64,
    ) -> Result<(), ErrorKind> {
        let (path, file) = self.open(&desc.digest)?;
        // One byte more than declared is enough for the digest and size checks to fail.
        std::io::copy(&mut file.take(limit + 1), out)
            .map_err(|source| ErrorKind::Io { path, source })?;
        Ok(())
    }
}

/// A registry location with a client.
struct RegistryBlobs<'a> {
    /// Bounded GETs of manifests, blobs and tokens.
    http: reqwest::blocking::Client,
    /// The `Authorization` header for this repository, once authenticated.
    authorization: std::cell::OnceCell<Option<String>>,
    location: &'a Location,
    /// The host to talk to (`index.docker.io` for `docker.io`).
    host: String,
    credential: Option<&'a Credential>,
    credential_origin: Option<String>,
    unreadable: &'a [String],
    options: &'a fetch::Options,
}

impl<'a> RegistryBlobs<'a> {
    fn new(settings: &'a Settings, location: &'a Location) -> Result<RegistryBlobs<'a>, ErrorKind> {
        let options = &settings.options;
        let http = fetch::https_client(options).map_err(|kind| from_fetch(kind, location))?;
        let found = settings
            .credentials
            .find(&location.registry, &location.repository);
        let host = match location.registry.as_str() {
            "docker.io" => "index.docker.io".to_string(),
            other => other.to_string(),
        };
        Ok(RegistryBlobs {
            http,
            authorization: std::cell::OnceCell::new(),
            location,
            host,
            credential: found.map(|(c, _)| c),
            credential_origin: found.map(|(_, origin)| origin.to_string()),
            unreadable: settings.credentials.unreadable(),
            options,
        })
    }

    /// Run `op` with bounded retries on transient failures.
    fn retry<T>(
        &self,
        mut op: impl FnMut(&Self) -> Result<T, ErrorKind>,
        mut before_retry: impl FnMut(),
    ) -> Result<T, ErrorKind> {
        let mut attempt = 0u32;
        loop {
            let result = op(self);
            match result {
                Ok(v) => return Ok(v),
                Err(mut kind) => {
                    if let ErrorKind::Unauthorized { unreadable, .. } = &mut kind {
                        unreadable.extend(self.unreadable.iter().cloned());
                    }
                    let transient = matches!(
                        kind,
                        ErrorKind::Connect { .. } | ErrorKind::Timeout { .. }
                    ) || matches!(kind, ErrorKind::Server { status, .. } if status >= 500 || status == 429);
                    if !transient || attempt >= self.options.retries {
                        return Err(kind);
                    }
                    let wait = backoff(self.options.backoff, attempt);
                    crate::notice::notice(|| {
                        crate::notice::retrying(
                            &format!(
                                "https://{}/v2/{}/",
                                self.location.registry, self.location.repository
                            ),
                            wait,
                            attempt + 2,
                            self.options.retries + 1,
                            &kind.to_string(),
                        )
                    });
                    std::thread::sleep(wait);
                    attempt += 1;
                    before_retry();
                }
            }
        }
    }

    fn resolve_tag(&mut self, tag: &str) -> Result<String, ErrorKind> {
        let (_, digest) = self.retry(|s| s.get_manifest(tag, &format!("tag {tag}")), || {})?;
        Ok(digest)
    }

    /// The `Authorization` header value for this repository (a bearer token from the
    /// registry's token service, or basic credentials), asked for once.
    fn authorization(&self) -> Result<Option<String>, ErrorKind> {
        if let Some(a) = self.authorization.get() {
            return Ok(a.clone());
        }
        let header = token::TokenClient {
            http: &self.http,
            host: &self.host,
            repository: &self.location.repository,
            credential: self.credential,
            credential_origin: self.credential_origin.as_deref(),
            options: self.options,
        }
        .authorization()?;
        let _ = self.authorization.set(header.clone());
        Ok(header)
    }

    /// GET `/v2/<repository>/<kind>/<reference>`; an error status is an error.
    fn get(
        &self,
        kind: &str,
        reference: &str,
        accept: Option<&str>,
    ) -> Result<reqwest::blocking::Response, ErrorKind> {
        let host = &self.host;
        let url = format!(
            "https://{host}/v2/{}/{kind}/{reference}",
            self.location.repository
        );
        let mut request = self.http.get(&url);
        if let Some(a) = accept {
            request = request.header(reqwest::header::ACCEPT, a);
        }
        if let Some(auth) = self.authorization()? {
            request = request.header(reqwest::header::AUTHORIZATION, auth);
        }
        let response = request
            .send()
            .map_err(|e| from_fetch(fetch::request_error(&e, host, self.options), self.location))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let code = status.as_u16();
        let text = token::read_bounded(response, 4096, std::time::Instant::now(), self.options)
            .unwrap_or_default();
        let detail = String::from_utf8_lossy(&text)
            .trim()
            .chars()
            .take(200)
            .collect::<String>();
        Err(match code {
            401 | 403 => ErrorKind::Unauthorized {
                credential: self.credential_origin.clone(),
                unreadable: Vec::new(),
            },
            404 => ErrorKind::NotFound {
                detail: format!("HTTP 404 {}", crate::text::printable(&detail)),
            },
            _ => ErrorKind::Server {
                status: code,
                detail: crate::text::printable(&detail).into_owned(),
            },
        })
    }

    /// The manifest `reference` (a digest or a tag) and its digest (the sha256 of its bytes),
    /// at most [`MAX_MANIFEST_BYTES`].
    fn get_manifest(&self, reference: &str, what: &str) -> Result<(Vec<u8>, String), ErrorKind> {
        let response = self.get("manifests", reference, Some(&MANIFEST_TYPES.join(", ")))?;
        let too_large = |reason: String| ErrorKind::TooLarge {
            what: format!("manifest {what}"),
            limit: MAX_MANIFEST_BYTES,
            reason,
        };
        if let Some(len) = response.content_length()
            && len > MAX_MANIFEST_BYTES
        {
            return Err(too_large(format!(
                "the registry announces {len} bytes (Content-Length); a manifest may have at most 4 MiB"
            )));
        }
        let header = response
            .headers()
            .get("docker-content-digest")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let bytes = token::read_bounded(
            response,
            MAX_MANIFEST_BYTES,
            std::time::Instant::now(),
            self.options,
        )
        .map_err(|e| self.read_error(&e))?;
        if bytes.len() as u64 > MAX_MANIFEST_BYTES {
            return Err(too_large("the manifest size limit".into()));
        }
        let digest = format!("sha256:{}", hex::encode(Sha256::digest(&bytes)));
        if let Some(h) = header
            && h.starts_with("sha256:")
            && h != digest
        {
            return Err(ErrorKind::DigestMismatch {
                what: format!("manifest {what}"),
                expected: h,
                actual: digest,
            });
        }
        Ok((bytes, digest))
    }

    /// The error for a body that could not be read to its end.
    fn read_error(&self, e: &std::io::Error) -> ErrorKind {
        if e.kind() == std::io::ErrorKind::TimedOut || crate::error_chain(e).contains("timed out") {
            ErrorKind::Timeout {
                detail: format!(
                    "the registry stopped sending (--timeout {:?})",
                    self.options.timeout
                ),
            }
        } else {
            ErrorKind::Connect {
                detail: format!(
                    "the answer from {} broke off: {}",
                    self.location.registry,
                    crate::error_chain(e)
                ),
            }
        }
    }
}

/// A catalog-download failure kind as a registry failure kind.
fn from_fetch(kind: fetch::ErrorKind, location: &Location) -> ErrorKind {
    from_fetch_host(kind, &location.registry)
}

/// A catalog-download failure kind as a failure of talking to `registry`.
fn from_fetch_host(kind: fetch::ErrorKind, registry: &str) -> ErrorKind {
    match kind {
        fetch::ErrorKind::Dns { host, detail } => ErrorKind::Dns { host, detail },
        fetch::ErrorKind::Tls { detail } => ErrorKind::Tls {
            detail: detail.replace("server's", "registry's"),
        },
        fetch::ErrorKind::Timeout { detail } => ErrorKind::Timeout { detail },
        fetch::ErrorKind::TrustBundle { origin, detail } => ErrorKind::Tls {
            detail: format!("trust bundle from {origin} is invalid: {detail}"),
        },
        other => ErrorKind::Connect {
            detail: format!("{registry}: {other}"),
        },
    }
}

fn backoff(base: Duration, attempt: u32) -> Duration {
    base.saturating_mul(1u32 << attempt.min(10))
}

impl Blobs for RegistryBlobs<'_> {
    fn manifest(&mut self, digest: &str) -> Result<Vec<u8>, ErrorKind> {
        let (bytes, _) = self.retry(|s| s.get_manifest(digest, digest), || {})?;
        Ok(bytes)
    }

    fn blob(
        &mut self,
        desc: &Descriptor,
        out: &mut std::fs::File,
        limit: u64,
    ) -> Result<(), ErrorKind> {
        let file = std::cell::RefCell::new(&mut *out);
        self.retry(
            |s| {
                let response = s.get("blobs", &desc.digest, None)?;
                if let Some(len) = response.content_length()
                    && len > limit
                {
                    return Err(ErrorKind::TooLarge {
                        what: format!("layer {}", desc.digest),
                        limit,
                        reason: format!(
                            "the registry announces {len} bytes (Content-Length), its descriptor says {limit}"
                        ),
                    });
                }
                let mut f = file.borrow_mut();
                // One byte more than declared is enough for the digest and size checks to fail.
                std::io::copy(&mut response.take(limit + 1), &mut *f).map_err(|e| {
                    if e.raw_os_error().is_some() {
                        ErrorKind::Io {
                            path: PathBuf::from("the cache's staging directory"),
                            source: e,
                        }
                    } else {
                        s.read_error(&e)
                    }
                })?;
                Ok(())
            },
            || {
                let mut f = file.borrow_mut();
                let _ = f.set_len(0);
                let _ = f.rewind();
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::install::ImageDigestSource;

    mod image_ref {
        use super::*;

        const D: &str = "@sha256:0000000000000000000000000000000000000000000000000000000000000000";

        fn img(name: &str) -> ImageRef {
            ImageRef::parse(name).unwrap()
        }

        #[test]
        fn normalises_docker_hub_names() {
            let r = img("busybox");
            assert_eq!(
                (r.domain.as_str(), r.path.as_str()),
                ("docker.io", "library/busybox")
            );
            let r = img("org/x:1");
            assert_eq!(r.repository(), "docker.io/org/x");
            assert_eq!(r.tag.as_deref(), Some("1"));
            let r = img(&format!("localhost:5000/a/b:t{D}"));
            assert_eq!(r.domain, "localhost:5000");
            assert_eq!(r.path, "a/b");
            assert!(r.digest.is_some());
        }

        #[test]
        fn invalid_is_an_error() {
            assert!(ImageRef::parse("UPPER/x").is_ok()); // a domain with upper case, as upstream
            assert!(ImageRef::parse("quay.io/UPPER").is_err());
            assert!(ImageRef::parse("").is_err());
        }
    }

    fn rules(source: &str, mirrors: &[&str], never: bool) -> Vec<MirrorRule> {
        mirror_rules(&InstallConfig {
            image_digest_sources: vec![ImageDigestSource {
                source: source.into(),
                mirrors: mirrors.iter().map(|m| m.to_string()).collect(),
                source_policy: never.then(|| "NeverContactSource".into()),
            }],
            ..Default::default()
        })
    }

    const D: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn mirrors_first_then_source_unless_never() {
        let image = ImageRef::parse(&format!("quay.io/team/op-bundle@{D}")).unwrap();
        let l = locations(
            &image,
            &rules("quay.io/team", &["mirror.test:5000/m"], false),
        );
        let names: Vec<String> = l.iter().map(Location::name).collect();
        assert_eq!(
            names,
            ["mirror.test:5000/m/op-bundle", "quay.io/team/op-bundle"]
        );
        let l = locations(&image, &rules("quay.io/team", &["mirror.test/m"], true));
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].name(), "mirror.test/m/op-bundle");
        // By tag: the source only.
        let image = ImageRef::parse("quay.io/team/op-bundle:v1").unwrap();
        let l = locations(&image, &rules("quay.io/team", &["mirror.test/m"], true));
        assert_eq!(l[0].name(), "quay.io/team/op-bundle");
        // No match: the source.
        let image = ImageRef::parse(&format!("quay.io/teamx/b@{D}")).unwrap();
        let l = locations(&image, &rules("quay.io/team", &["mirror.test/m"], true));
        assert_eq!(l[0].name(), "quay.io/teamx/b");
    }

    #[test]
    fn digests() {
        assert!(sha256_hex(D).is_some());
        assert!(sha256_hex("sha256:../../etc").is_none());
        assert!(sha256_hex(&D.to_uppercase()).is_none());
    }

    #[test]
    fn manifests_parse_or_fail_cleanly() {
        assert!(matches!(
            parse_manifest(D, br#"{"schemaVersion":2,"layers":[]}"#),
            Ok(Parsed::Image(_))
        ));
        assert!(parse_manifest(D, b"{").is_err());
        assert!(parse_manifest(D, br#"{"schemaVersion":1}"#).is_err());
        assert!(parse_manifest(D, br#"{"schemaVersion":2}"#).is_err());
        let Ok(Parsed::Index(entries)) = parse_manifest(
            D,
            br#"{"schemaVersion":2,"manifests":[
              {"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:a","size":1,"platform":{"os":"linux","architecture":"arm64"}},
              {"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:b","size":1,"platform":{"os":"linux","architecture":"amd64"}}]}"#,
        ) else {
            panic!("index")
        };
        assert_eq!(pick_platform(&entries).unwrap().digest, "sha256:b");
    }
}
