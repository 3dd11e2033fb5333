//! Why a bundle image could not be had: [`Error`] lists every place tried ([`Attempt`]) with
//! why it failed ([`ErrorKind`]); the kind tells bad content (exit 1) from an unreachable
//! image (exit 3) and gives the hint. A catalog download's failure kinds (DNS, TLS, timeouts)
//! are turned into the registry's here, once.

use std::path::PathBuf;

use super::layer;
use crate::fetch;

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
    /// A catalog-download failure kind as a failure of talking to `registry`.
    pub(super) fn from_fetch(kind: fetch::ErrorKind, registry: &str) -> ErrorKind {
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
            ErrorKind::NotCached { .. } => "run once without --offline with the same --cache-dir, or pass the image as an --oci-layout DIR (skopeo copy --all --preserve-digests docker://IMAGE oci:DIR:IMAGE) or its unpacked directory with --bundles".into(),
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
