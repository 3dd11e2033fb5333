//! Catalogs over HTTPS: download a catalog body (catalogd's `<base>/api/v1/all` JSON lines, an
//! `opm render` JSON stream, or YAML) into the content-addressed [`cache`], verifying TLS and
//! the content digest.
//!
//! * TLS is always verified, against the system roots plus extra PEM bundles (install-config
//!   `additionalTrustBundle`, `--ca-file`). rustls, no OpenSSL; the client is [`client`].
//! * Proxies are given explicitly ([`ProxySettings`]); the caller decides where they come from
//!   (environment variables, install-config `proxy`). `NO_PROXY` is honoured.
//! * Connect and total timeouts; bounded retries with exponential backoff on connection errors,
//!   HTTP 429 and 5xx; `gzip` content encoding, and bodies that are themselves gzip files.
//! * Bounded: a body is at most [`Options::max_catalog_bytes`] as downloaded and as
//!   decompressed (a declared `Content-Length` over it is refused before the body is read), and
//!   one that expands more than [`MAX_EXPANSION`]-fold is refused as a compression bomb. A
//!   refused, failed or partial download is never cached nor marked latest.
//! * A pinned digest that is already cached is used without opening a connection; `offline`
//!   never opens one. A body whose digest does not match the pin is never cached.
//!
//! Every failure is an [`Error`] carrying the URL, a typed [`ErrorKind`] (DNS, TLS, timeout,
//! HTTP status, …) and [`Error::hint`] saying what to try. Source of truth for the served
//! format: `reference/catalogs-and-conversion.md` §6.

pub mod cache;
pub mod client;

use std::io::Read;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use sha2::{Digest as _, Sha256};

pub use cache::Cache;
pub use client::{HttpsClient, RequestError, Response};

/// The default of [`Options::max_catalog_bytes`] (`--max-catalog-size`): 2 GiB. The largest
/// catalogs Red Hat ships are a few hundred MiB of JSON.
pub const DEFAULT_MAX_CATALOG_BYTES: u64 = 2 * 1024 * 1024 * 1024;

/// How many times its compressed size a catalog may decompress to (checked once more than
/// [`EXPANSION_FLOOR`] bytes came out). Real catalogs compress 10–20-fold; gzip bombs ~1000-fold.
pub const MAX_EXPANSION: u64 = 100;

/// The name of the default bound of a body, in errors.
const MAX_CATALOG_SIZE_FLAG: &str = "--max-catalog-size";

/// Decompressed bytes below which the expansion ratio is not checked (small, very repetitive
/// bodies are fine).
pub const EXPANSION_FLOOR: u64 = 16 * 1024 * 1024;

/// Proxy settings for HTTPS requests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProxySettings {
    /// Proxy URL for `https://` requests (`http://host:port`).
    pub https_proxy: Option<String>,
    /// Comma-separated hosts, domains (`.example.com`), IPs or CIDRs that bypass the proxy.
    pub no_proxy: Option<String>,
}

/// How to fetch.
#[derive(Debug, Clone)]
pub struct Options {
    /// Extra trusted roots: `(where they came from, PEM bytes)`.
    pub extra_roots: Vec<(String, Vec<u8>)>,
    /// Proxy.
    pub proxy: ProxySettings,
    /// Timeout for establishing a connection (TCP, proxy tunnel and TLS).
    pub connect_timeout: Duration,
    /// Timeout for a whole attempt, body included.
    pub timeout: Duration,
    /// Retries after the first attempt (connection errors, HTTP 429 and 5xx only).
    pub retries: u32,
    /// Wait before the first retry; doubled for each further one.
    pub backoff: Duration,
    /// Never open a connection: cached content only.
    pub offline: bool,
    /// Report download progress through [`crate::notice`] (shown where the CLI draws progress).
    pub progress: bool,
    /// The largest catalog body accepted, in bytes, as downloaded and as decompressed
    /// (`--max-catalog-size`).
    pub max_catalog_bytes: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            extra_roots: Vec::new(),
            proxy: ProxySettings::default(),
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(600),
            retries: 3,
            backoff: Duration::from_millis(250),
            offline: false,
            progress: false,
            max_catalog_bytes: DEFAULT_MAX_CATALOG_BYTES,
        }
    }
}

/// A catalog body on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The cached file.
    pub path: PathBuf,
    /// Its sha256, lowercase hex.
    pub sha256: String,
    /// Whether it came from the cache without a download.
    pub from_cache: bool,
}

/// A failed fetch: the URL and what went wrong.
#[derive(Debug, thiserror::Error)]
#[error("{}{kind}{}", url_prefix(url), attempts_note(*attempts))]
pub struct Error {
    /// The URL.
    pub url: String,
    /// What went wrong.
    pub kind: ErrorKind,
    /// How many requests were made (0: none).
    pub attempts: u32,
}

fn url_prefix(url: &str) -> String {
    if url.is_empty() {
        String::new()
    } else {
        format!("{url}: ")
    }
}

fn attempts_note(attempts: u32) -> String {
    if attempts > 1 {
        format!(" (after {attempts} attempts)")
    } else {
        String::new()
    }
}

/// Why a fetch failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The host name did not resolve: our sentence first, the resolver's text after.
    #[error(
        "cannot resolve {}: no network access? use --offline with a cached copy, or check the host name, this machine's DNS and the proxy (the resolver said: {detail})",
        crate::text::printable(host)
    )]
    Dns {
        /// The host.
        host: String,
        /// The resolver's message.
        detail: String,
    },
    /// TCP connection failed (refused, unreachable).
    #[error("cannot connect: {detail}")]
    Connect {
        /// The cause.
        detail: String,
    },
    /// The proxy refused or failed the tunnel.
    #[error("proxy: {detail}")]
    Proxy {
        /// The cause.
        detail: String,
    },
    /// TLS handshake or certificate verification failed.
    #[error("TLS: {detail}")]
    Tls {
        /// The cause (e.g. the certificate's issuer is unknown).
        detail: String,
    },
    /// No answer in time.
    #[error("timeout: {detail}")]
    Timeout {
        /// Which timeout.
        detail: String,
    },
    /// The server answered with an error status.
    #[error("HTTP status {status}{}", if reason.is_empty() { String::new() } else { format!(" {reason}") })]
    Status {
        /// The status code.
        status: u16,
        /// Its reason phrase.
        reason: String,
    },
    /// The body ended early.
    #[error("the download ended after {received} bytes{}", expected.map(|e| format!(" of {e}")).unwrap_or_default())]
    Truncated {
        /// Bytes received.
        received: u64,
        /// Bytes announced (`Content-Length`), if any.
        expected: Option<u64>,
    },
    /// The body could not be read or decoded.
    #[error("cannot read the response body: {detail}")]
    Body {
        /// The cause.
        detail: String,
    },
    /// The body is larger than its bound (`--max-catalog-size`, or the cap of what is
    /// fetched: [`Fetcher::capped`]), announced, downloaded or decompressed.
    #[error("{what}, more than {bound} allows ({limit} bytes); nothing was cached")]
    TooLarge {
        /// What was too large (`the server announces 10737418240 bytes (Content-Length)`).
        what: String,
        /// The bound.
        limit: u64,
        /// Its name (`--max-catalog-size`, `the update graph cap`).
        bound: &'static str,
    },
    /// The body decompresses far more than any catalog does.
    #[error(
        "the body expands more than {MAX_EXPANSION}-fold ({decompressed} bytes from the first {compressed} compressed), refused as a compression bomb; nothing was cached"
    )]
    Bomb {
        /// Compressed bytes read.
        compressed: u64,
        /// Bytes they decompressed to.
        decompressed: u64,
    },
    /// The content does not match the pinned digest.
    #[error("content has digest sha256:{actual}, but sha256:{expected} is expected")]
    DigestMismatch {
        /// The pin.
        expected: String,
        /// What was downloaded.
        actual: String,
    },
    /// `--offline` and nothing suitable is cached.
    #[error("not in the cache at {} ({}), and --offline forbids downloading it", cache.display(), match wanted { Some(d) => format!("content sha256:{d} was asked for"), None => "nothing was ever downloaded from this URL".into() })]
    NotCached {
        /// The cache root.
        cache: PathBuf,
        /// The digest that was needed, if pinned.
        wanted: Option<String>,
    },
    /// The cache cannot be written or read.
    #[error("cache {}: {source}", path.display())]
    Cache {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// An extra trust bundle is not PEM certificates.
    #[error("trust bundle from {origin} is invalid: {detail}")]
    TrustBundle {
        /// Where it came from.
        origin: String,
        /// What is wrong.
        detail: String,
    },
    /// The proxy URL is invalid.
    #[error("invalid proxy URL {proxy:?}: {detail}")]
    ProxyUrl {
        /// The URL.
        proxy: String,
        /// What is wrong.
        detail: String,
    },
    /// The HTTPS client cannot be built.
    #[error("cannot set up the HTTPS client: {detail}")]
    Client {
        /// The cause.
        detail: String,
    },
}

impl Error {
    fn new(url: &str, kind: ErrorKind, attempts: u32) -> Error {
        Error {
            url: url.to_string(),
            kind,
            attempts,
        }
    }

    /// What the user can try, one or two sentences.
    pub fn hint(&self) -> String {
        let offline = "or, with a copy cached by an earlier run, pass --offline";
        match &self.kind {
            ErrorKind::Dns { .. } => format!(
                "check the host name in `source` and this machine's DNS; if the host is only reachable through a proxy, set HTTPS_PROXY (or install-config `proxy.httpsProxy`); {offline}"
            ),
            ErrorKind::Connect { .. } => format!(
                "check that the server is running and reachable from here (firewall, port); behind a proxy set HTTPS_PROXY (or install-config `proxy.httpsProxy`); {offline}"
            ),
            ErrorKind::Proxy { .. } => "check the proxy URL (HTTPS_PROXY or install-config `proxy.httpsProxy`) and that it allows CONNECT to this host, or add the host to NO_PROXY (install-config `proxy.noProxy`)".into(),
            ErrorKind::Tls { detail } if detail.contains("issuer") || detail.contains("certificate") => "the server's certificate is not trusted: if it is issued by a private CA, pass --ca-file CA.pem or add the CA to install-config `additionalTrustBundle`; also check that the URL's host name matches the certificate".into(),
            ErrorKind::Tls { .. } => "check that the server speaks HTTPS (TLS 1.2 or 1.3) on this port".into(),
            ErrorKind::Timeout { .. } => format!(
                "the server did not answer in time: raise --connect-timeout / --timeout, or check the network path and proxy; {offline}"
            ),
            ErrorKind::Status { status: 404, .. } => "check the URL: catalogd serves a catalog's content at <status.urls.base>/api/v1/all".into(),
            ErrorKind::Status { status: 401 | 403, .. } => "the server refused access: po-manifests sends no credentials, so serve the catalog without authentication or download it yourself and point `source` at the file".into(),
            ErrorKind::Status { status, .. } if *status >= 500 || *status == 429 => "the server failed (po-manifests retried with backoff): try again later, or raise --retries".into(),
            ErrorKind::Status { .. } => "check the URL and the server's configuration".into(),
            ErrorKind::Truncated { .. } | ErrorKind::Body { .. } => "the connection dropped during the download: run again; if it keeps failing, check proxies and load balancers on the path".into(),
            ErrorKind::TooLarge { bound: MAX_CATALOG_SIZE_FLAG, .. } => "check that the URL serves a catalog; if the catalog really is that large, raise --max-catalog-size BYTES".into(),
            ErrorKind::TooLarge { bound, .. } => format!("check that the URL serves what it should: nothing larger than {bound} is read"),
            ErrorKind::Bomb { .. } => "the server sends a compression bomb or a broken body: check the URL and the server; nothing was kept".into(),
            ErrorKind::DigestMismatch { .. } => "the served catalog changed since it was pinned (nothing was cached): check where it comes from, then update `sha256` in the configuration (or the lock file with a run without --locked)".into(),
            ErrorKind::NotCached { cache, .. } => format!(
                "run once without --offline where the server is reachable (with the same --cache-dir, now {}), or point `source` at a local copy of the catalog",
                cache.display()
            ),
            ErrorKind::Cache { .. } => "check the permissions and free space of --cache-dir".into(),
            ErrorKind::TrustBundle { .. } => "give PEM-encoded certificates (-----BEGIN CERTIFICATE-----)".into(),
            ErrorKind::ProxyUrl { .. } => "give the proxy as http://host:port".into(),
            ErrorKind::Client { .. } => "check the trust bundles and proxy settings".into(),
        }
    }

    /// Whether the content arrived but does not match the pin (the input is wrong, not the
    /// network).
    pub fn is_digest_mismatch(&self) -> bool {
        matches!(self.kind, ErrorKind::DigestMismatch { .. })
    }

    /// Whether the server answered with content that is refused (a digest mismatch, a body over
    /// `--max-catalog-size`, a compression bomb): the input is wrong (exit 1), not the network.
    pub fn is_invalid_content(&self) -> bool {
        matches!(
            self.kind,
            ErrorKind::DigestMismatch { .. } | ErrorKind::TooLarge { .. } | ErrorKind::Bomb { .. }
        )
    }
}

/// Downloads catalogs through a cache. Build one per run and fetch every catalog with it.
#[derive(Debug)]
pub struct Fetcher {
    client: Option<HttpsClient>,
    options: Options,
    cache: Cache,
    /// The `Accept` header sent, when set.
    accept: Option<&'static str>,
    /// The most bytes a body may have (sent and decompressed), and the bound's name.
    max: u64,
    bound: &'static str,
}

impl Fetcher {
    /// A fetcher. Builds the HTTPS client unless `options.offline` (checking trust bundles and
    /// the proxy URL).
    pub fn new(options: Options, cache: Cache) -> Result<Fetcher, Error> {
        let client = if options.offline {
            None
        } else {
            Some(HttpsClient::new(&options).map_err(|kind| Error::new("", kind, 0))?)
        };
        Ok(Fetcher {
            client,
            max: options.max_catalog_bytes,
            bound: MAX_CATALOG_SIZE_FLAG,
            options,
            cache,
            accept: None,
        })
    }

    /// The same fetcher, sending `Accept: media` (an update service answers the graph only
    /// to `Accept: application/json`).
    pub fn accepting(mut self, media: &'static str) -> Fetcher {
        self.accept = Some(media);
        self
    }

    /// The same fetcher, reading at most `max` bytes of a body (`bound` names the limit in
    /// errors) when that is less than `--max-catalog-size`: a larger body is refused while it
    /// downloads, and nothing is cached.
    pub fn capped(mut self, max: u64, bound: &'static str) -> Fetcher {
        if max < self.max {
            self.max = max;
            self.bound = bound;
        }
        self
    }

    /// The cache.
    pub fn cache(&self) -> &Cache {
        &self.cache
    }

    /// Fetch `url`. With `expected` (a sha256 in hex), a cached copy with that digest is used
    /// without a connection, and a download with another digest is refused and not cached.
    /// Offline, the cached copy with `expected`, else the latest cached copy, is used.
    pub fn fetch(&self, url: &str, expected: Option<&str>) -> Result<Fetched, Error> {
        if let Some(want) = expected
            && let Some(entry) = self.cache.get(url, want)
        {
            return Ok(Fetched {
                path: entry.path,
                sha256: entry.sha256,
                from_cache: true,
            });
        }
        let Some(client) = &self.client else {
            let entry = match expected {
                Some(_) => None,
                None => self.cache.latest(url),
            };
            return match entry {
                Some(e) => Ok(Fetched {
                    path: e.path,
                    sha256: e.sha256,
                    from_cache: true,
                }),
                None => Err(Error::new(
                    url,
                    ErrorKind::NotCached {
                        cache: self.cache.root().to_path_buf(),
                        wanted: expected.map(str::to_string),
                    },
                    0,
                )),
            };
        };
        let cache_err = |source| {
            Error::new(
                url,
                ErrorKind::Cache {
                    path: self.cache.staging_dir(),
                    source,
                },
                0,
            )
        };
        let staging = self.cache.staging_dir();
        std::fs::create_dir_all(&staging).map_err(cache_err)?;
        let (raw, gzip_encoded, attempts) = self.download(client, url, &staging)?;
        let (body, sha256) = decode_and_hash(raw, &staging, gzip_encoded, self.max, self.bound)
            .map_err(|e| match e {
                Decode::Io(source) => Error::new(
                    url,
                    ErrorKind::Cache {
                        path: staging.clone(),
                        source,
                    },
                    attempts,
                ),
                Decode::Gzip(detail) => Error::new(url, ErrorKind::Body { detail }, attempts),
                Decode::Refused(kind) => Error::new(url, kind, attempts),
            })?;
        if let Some(want) = expected
            && want != sha256
        {
            // `body` is a temporary file: dropping it deletes it, so nothing is cached.
            return Err(Error::new(
                url,
                ErrorKind::DigestMismatch {
                    expected: want.to_string(),
                    actual: sha256,
                },
                attempts,
            ));
        }
        let entry = self.cache.adopt(url, body, &sha256).map_err(|source| {
            Error::new(
                url,
                ErrorKind::Cache {
                    path: self.cache.url_dir(url),
                    source,
                },
                attempts,
            )
        })?;
        Ok(Fetched {
            path: entry.path,
            sha256,
            from_cache: false,
        })
    }

    /// GET with retries; returns the body as sent in a temporary file in `staging`, whether it
    /// is `Content-Encoding: gzip`, and the number of attempts.
    fn download(
        &self,
        client: &HttpsClient,
        url: &str,
        staging: &std::path::Path,
    ) -> Result<(tempfile::NamedTempFile, bool, u32), Error> {
        let host = client::host_of(url);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let last = attempt > self.options.retries;
            let started = Instant::now();
            // Content encoding is decoded here, not by the client, so that both the bytes sent
            // and the bytes they expand to are bounded.
            let mut request = client.get(url).header("accept-encoding", "gzip");
            if let Some(accept) = self.accept {
                request = request.header("accept", accept);
            }
            let outcome = request.send();
            let (retry_after, why) = match outcome {
                Err(e) => {
                    let kind = classify(&e, &host, &self.options);
                    let retryable = e.is_connect()
                        && !matches!(kind, ErrorKind::Tls { .. } | ErrorKind::Dns { .. });
                    if last || !retryable {
                        return Err(Error::new(url, kind, attempt));
                    }
                    (None, kind)
                }
                Ok(response) => {
                    if response.is_success() {
                        let gzip_encoded = match content_encoding(&response) {
                            Ok(g) => g,
                            Err(kind) => return Err(Error::new(url, kind, attempt)),
                        };
                        let mut file =
                            tempfile::NamedTempFile::new_in(staging).map_err(|source| {
                                Error::new(
                                    url,
                                    ErrorKind::Cache {
                                        path: staging.to_path_buf(),
                                        source,
                                    },
                                    attempt,
                                )
                            })?;
                        return self
                            .read_body(response, url, &host, started, file.as_file_mut())
                            .map(|()| (file, gzip_encoded, attempt))
                            .map_err(|kind| Error::new(url, kind, attempt));
                    }
                    let status = response.status();
                    let kind = ErrorKind::Status {
                        status,
                        reason: response.reason().to_string(),
                    };
                    let retryable = status >= 500 || status == 429;
                    if last || !retryable {
                        return Err(Error::new(url, kind, attempt));
                    }
                    let retry_after = response
                        .header("retry-after")
                        .and_then(|v| v.trim().parse::<u64>().ok())
                        .map(|s| Duration::from_secs(s.min(30)));
                    (retry_after, kind)
                }
            };
            let backoff = self
                .options
                .backoff
                .saturating_mul(1 << (attempt - 1).min(8));
            let wait = retry_after.map_or(backoff, |r| r.max(backoff));
            crate::notice::notice(|| {
                crate::notice::retrying(
                    url,
                    wait,
                    attempt + 1,
                    self.options.retries + 1,
                    &why.to_string(),
                )
            });
            std::thread::sleep(wait);
        }
    }

    fn read_body(
        &self,
        mut response: Response,
        url: &str,
        host: &str,
        started: Instant,
        out: &mut std::fs::File,
    ) -> Result<(), ErrorKind> {
        use std::io::Write as _;
        let expected = response.content_length();
        let max = self.max;
        if let Some(len) = expected
            && len > max
        {
            return Err(ErrorKind::TooLarge {
                what: format!("the server announces {len} bytes (Content-Length)"),
                limit: max,
                bound: self.bound,
            });
        }
        // Download progress goes to whoever shows progress (`crate::notice`), a few times a
        // second at most.
        let mut shown_at: Option<Instant> = None;
        let mut received: u64 = 0;
        let mut buf = vec![0u8; 64 * 1024];
        let result = loop {
            if started.elapsed() > self.options.timeout {
                break Err(ErrorKind::Timeout {
                    detail: format!(
                        "the download took longer than {} (--timeout)",
                        seconds(self.options.timeout)
                    ),
                });
            }
            match response.read(&mut buf) {
                Ok(0) => break Ok(()),
                Ok(n) => {
                    if received + n as u64 > max {
                        break Err(ErrorKind::TooLarge {
                            what: format!("the body goes on past {max} bytes"),
                            limit: max,
                            bound: self.bound,
                        });
                    }
                    if let Err(e) = out.write_all(&buf[..n]) {
                        break Err(ErrorKind::Body {
                            detail: format!("cannot write the download to the cache: {e}"),
                        });
                    }
                    received += n as u64;
                    if self.options.progress
                        && shown_at.is_none_or(|t| t.elapsed() >= Duration::from_millis(200))
                    {
                        shown_at = Some(Instant::now());
                        crate::notice::stage(|| download_stage(url, received, expected));
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => break Err(classify_read(&e, received, expected, host, &self.options)),
            }
        };
        result?;
        if self.options.progress {
            crate::notice::stage(|| {
                format!("downloaded {url} ({})", indicatif::HumanBytes(received))
            });
        }
        if let Some(len) = expected
            && received < len
        {
            return Err(ErrorKind::Truncated {
                received,
                expected: Some(len),
            });
        }
        out.flush().map_err(|e| ErrorKind::Body {
            detail: format!("cannot write the download to the cache: {e}"),
        })
    }
}

/// The progress message for a download: `downloading URL (1.2 MiB of 3.4 MiB)`.
fn download_stage(url: &str, received: u64, expected: Option<u64>) -> String {
    let size = |b: u64| indicatif::HumanBytes(b).to_string();
    match expected {
        Some(total) => format!("downloading {url} ({} of {})", size(received), size(total)),
        None => format!("downloading {url} ({})", size(received)),
    }
}

/// Whether the response is `Content-Encoding: gzip`; any other encoding (never asked for) is
/// refused.
fn content_encoding(response: &Response) -> Result<bool, ErrorKind> {
    let Some(value) = response.header("content-encoding") else {
        return Ok(false);
    };
    let text = value.trim().to_ascii_lowercase();
    match text.as_str() {
        "" | "identity" => Ok(false),
        "gzip" | "x-gzip" => Ok(true),
        other => Err(ErrorKind::Body {
            detail: format!(
                "the server sent Content-Encoding {:?}, which was not asked for (only gzip is)",
                crate::text::printable(other)
            ),
        }),
    }
}

fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// The HTTPS client every download uses (catalogs here, manifests and blobs in
/// [`crate::registry`]): TLS verified against the system roots and `options.extra_roots`, the
/// proxy of `options.proxy`, the timeouts, HTTPS only, no automatic decompression.
pub fn https_client(options: &Options) -> Result<HttpsClient, ErrorKind> {
    HttpsClient::new(options)
}

/// Name the cause of a failed request to `host` (TLS, DNS, proxy, timeout or connection), as
/// catalog downloads report it.
pub fn request_error(e: &RequestError, host: &str, options: &Options) -> ErrorKind {
    classify(e, host, options)
}

/// Name the cause of a request error: TLS, DNS, proxy, timeout or connection.
fn classify(e: &RequestError, host: &str, options: &Options) -> ErrorKind {
    if let Some(tls) = e.tls() {
        return ErrorKind::Tls {
            detail: describe_tls(tls),
        };
    }
    if let Some(text) = e.tls_failure() {
        return ErrorKind::Tls {
            detail: text.to_string(),
        };
    }
    if e.is_timeout() {
        return ErrorKind::Timeout {
            detail: format!(
                "no answer within {} (--connect-timeout {}, --timeout {})",
                if e.is_connect() {
                    seconds(options.connect_timeout)
                } else {
                    seconds(options.timeout)
                },
                seconds(options.connect_timeout),
                seconds(options.timeout)
            ),
        };
    }
    if e.is_dns() {
        return ErrorKind::Dns {
            host: host.to_string(),
            detail: last_cause(e),
        };
    }
    if e.is_proxy() {
        return ErrorKind::Proxy {
            detail: last_cause(e),
        };
    }
    ErrorKind::Connect {
        detail: last_cause(e),
    }
}

fn classify_read(
    e: &std::io::Error,
    received: u64,
    expected: Option<u64>,
    host: &str,
    options: &Options,
) -> ErrorKind {
    let chain = crate::error_chain(e);
    if e.kind() == std::io::ErrorKind::TimedOut || chain.contains("timed out") {
        return ErrorKind::Timeout {
            detail: format!(
                "the server stopped sending after {received} bytes (--timeout {})",
                seconds(options.timeout)
            ),
        };
    }
    let _ = host;
    if chain.contains("end of file")
        || chain.contains("IncompleteBody")
        || chain.contains("incomplete")
        || chain.contains("closed")
        || e.kind() == std::io::ErrorKind::UnexpectedEof
    {
        return ErrorKind::Truncated { received, expected };
    }
    ErrorKind::Body { detail: chain }
}

fn describe_tls(e: &rustls::Error) -> String {
    match e {
        rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer) => {
            "the server's certificate was issued by an unknown issuer (not in the system roots, additionalTrustBundle or --ca-file)".into()
        }
        rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidForName)
        | rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidForNameContext { .. }) => {
            "the server's certificate is not valid for this host name".into()
        }
        rustls::Error::InvalidCertificate(rustls::CertificateError::Expired)
        | rustls::Error::InvalidCertificate(rustls::CertificateError::ExpiredContext { .. }) => {
            "the server's certificate has expired".into()
        }
        other => format!("{other}"),
    }
}

fn last_cause(e: &dyn std::error::Error) -> String {
    let mut cur = e;
    while let Some(s) = cur.source() {
        cur = s;
    }
    cur.to_string()
}

/// Why a downloaded body could not be decoded.
enum Decode {
    Io(std::io::Error),
    Gzip(String),
    /// Over `--max-catalog-size`, or a compression bomb.
    Refused(ErrorKind),
}

/// Counts the bytes read through it into a shared cell (the compressed bytes a decoder consumed).
struct Counting<R> {
    inner: R,
    count: std::rc::Rc<std::cell::Cell<u64>>,
}

impl<R: std::io::Read> std::io::Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.set(self.count.get() + n as u64);
        Ok(n)
    }
}

/// Hash a downloaded body, first decoding its `Content-Encoding: gzip` (`gzip_encoded`) and
/// decompressing it when it is itself a gzip file (a `.jsonl.gz` served without
/// `Content-Encoding`); returns the file to keep and its sha256. At most `max` bytes come out,
/// and at most [`MAX_EXPANSION`] times the compressed bytes read once past [`EXPANSION_FLOOR`].
fn decode_and_hash(
    raw: tempfile::NamedTempFile,
    staging: &std::path::Path,
    gzip_encoded: bool,
    max: u64,
    bound: &'static str,
) -> Result<(tempfile::NamedTempFile, String), Decode> {
    use std::io::{BufRead as _, Write as _};
    let file = raw.reopen().map_err(Decode::Io)?;
    let consumed = std::rc::Rc::new(std::cell::Cell::new(0u64));
    let counted = Counting {
        inner: file,
        count: consumed.clone(),
    };
    let mut decoded = gzip_encoded;
    let first: Box<dyn Read> = if gzip_encoded {
        Box::new(flate2::read::MultiGzDecoder::new(std::io::BufReader::new(
            counted,
        )))
    } else {
        Box::new(counted)
    };
    let mut peek = std::io::BufReader::with_capacity(64 * 1024, first);
    let magic = peek.fill_buf().map_err(|e| {
        Decode::Gzip(format!(
            "the body is sent as gzip (Content-Encoding) but does not decompress: {e}"
        ))
    })?;
    let mut reader: Box<dyn Read> = if magic.starts_with(&[0x1f, 0x8b]) {
        decoded = true;
        Box::new(flate2::read::MultiGzDecoder::new(peek))
    } else {
        Box::new(peek)
    };
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    if !decoded {
        // Kept as downloaded: the download was bounded already.
        loop {
            let n = reader.read(&mut buf).map_err(Decode::Io)?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
        }
        return Ok((raw, hex::encode(hasher.finalize())));
    }
    let mut out = tempfile::NamedTempFile::new_in(staging).map_err(Decode::Io)?;
    let mut total: u64 = 0;
    loop {
        let n = reader.read(&mut buf).map_err(|e| {
            Decode::Gzip(format!(
                "the body looks like gzip but does not decompress: {e}"
            ))
        })?;
        if n == 0 {
            break;
        }
        total += n as u64;
        if total > max {
            // `out` is a temporary file: dropping it deletes it.
            return Err(Decode::Refused(ErrorKind::TooLarge {
                what: format!("the body decompresses to more than {max} bytes"),
                limit: max,
                bound,
            }));
        }
        let compressed = consumed.get().max(1);
        if total > EXPANSION_FLOOR && total > compressed.saturating_mul(MAX_EXPANSION) {
            return Err(Decode::Refused(ErrorKind::Bomb {
                compressed,
                decompressed: total,
            }));
        }
        hasher.update(&buf[..n]);
        out.write_all(&buf[..n]).map_err(Decode::Io)?;
    }
    out.flush().map_err(Decode::Io)?;
    Ok((out, hex::encode(hasher.finalize())))
}

/// Parse a duration as given on the command line: `500ms`, `2s`, `1.5` (seconds), `1m`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (number, unit) = match t.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (&t[..i], &t[i..]),
        None => (t, "s"),
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a duration (examples: 500ms, 10s, 2m)"))?;
    let factor = match unit {
        "ms" => 0.001,
        "s" => 1.0,
        "m" => 60.0,
        _ => return Err(format!("{text:?}: unknown unit {unit:?} (use ms, s or m)")),
    };
    let secs = value * factor;
    if !secs.is_finite() || secs <= 0.0 || secs > 86_400.0 {
        return Err(format!("{text:?} must be above 0 and at most a day"));
    }
    Ok(Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("2").unwrap(), Duration::from_secs(2));
        assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_duration("1m").unwrap(), Duration::from_secs(60));
        assert!(parse_duration("0").is_err());
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("3h").is_err());
        assert!(parse_duration("NaN").is_err());
        assert!(parse_duration("").is_err());
    }

    #[test]
    fn gzip_bodies_are_decompressed() {
        use std::io::Write as _;
        let d = tempfile::tempdir().unwrap();
        let body = b"{\"schema\":\"olm.package\"}\n";
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(body).unwrap();
        let gz = enc.finish().unwrap();
        let temp = |bytes: &[u8]| {
            let mut t = tempfile::NamedTempFile::new_in(d.path()).unwrap();
            t.write_all(bytes).unwrap();
            t
        };
        let Ok((file, sha)) =
            decode_and_hash(temp(&gz), d.path(), false, u64::MAX, MAX_CATALOG_SIZE_FLAG)
        else {
            panic!("gzip body")
        };
        assert_eq!(std::fs::read(file.path()).unwrap(), body);
        assert_eq!(sha, hex::encode(Sha256::digest(body)));
        let Ok((file, _)) = decode_and_hash(
            temp(b"{}"),
            d.path(),
            false,
            u64::MAX,
            MAX_CATALOG_SIZE_FLAG,
        ) else {
            panic!("plain body")
        };
        assert_eq!(std::fs::read(file.path()).unwrap(), b"{}");
        assert!(matches!(
            decode_and_hash(
                temp(&[0x1f, 0x8b, 0]),
                d.path(),
                false,
                u64::MAX,
                MAX_CATALOG_SIZE_FLAG
            ),
            Err(Decode::Gzip(_))
        ));
    }

    fn gzip_members(member: &[u8], times: usize) -> Vec<u8> {
        use std::io::Write as _;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(member).unwrap();
        enc.finish().unwrap().repeat(times)
    }

    fn temp_in(dir: &std::path::Path, bytes: &[u8]) -> tempfile::NamedTempFile {
        use std::io::Write as _;
        let mut t = tempfile::NamedTempFile::new_in(dir).unwrap();
        t.write_all(bytes).unwrap();
        t
    }

    /// A gzip bomb (64 MiB of zeros in ~64 KiB), as a gzip body or as `Content-Encoding`, is
    /// refused by the expansion ratio long before `--max-catalog-size`, and leaves no file.
    #[test]
    fn gzip_bombs_are_refused_by_their_ratio() {
        let d = tempfile::tempdir().unwrap();
        let bomb = gzip_members(&vec![0u8; 1024 * 1024], 64);
        assert!(bomb.len() < 128 * 1024, "{}", bomb.len());
        for encoded in [false, true] {
            let r = decode_and_hash(
                temp_in(d.path(), &bomb),
                d.path(),
                encoded,
                u64::MAX,
                MAX_CATALOG_SIZE_FLAG,
            );
            let Err(Decode::Refused(ErrorKind::Bomb {
                compressed,
                decompressed,
            })) = r
            else {
                panic!("a bomb must be refused")
            };
            assert!(
                decompressed <= EXPANSION_FLOOR + 64 * 1024,
                "{decompressed}"
            );
            assert!(decompressed > compressed * MAX_EXPANSION);
        }
        // Nothing is left: neither the download nor a decompressed part.
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
        // A gzip body that is also `Content-Encoding: gzip` is decoded twice.
        let body = b"{\"schema\":\"olm.package\"}\n";
        let twice = gzip_members(&gzip_members(body, 1), 1);
        let Ok((file, _)) = decode_and_hash(
            temp_in(d.path(), &twice),
            d.path(),
            true,
            1024,
            MAX_CATALOG_SIZE_FLAG,
        ) else {
            panic!("double gzip")
        };
        assert_eq!(std::fs::read(file.path()).unwrap(), body);
    }

    /// Decompressed bytes are bounded by `max` even at a ratio no bomb check catches.
    #[test]
    fn decompressed_size_is_capped() {
        let d = tempfile::tempdir().unwrap();
        let noise: Vec<u8> = (0..3_000_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let gz = gzip_members(&noise, 1);
        let r = decode_and_hash(
            temp_in(d.path(), &gz),
            d.path(),
            false,
            1024 * 1024,
            MAX_CATALOG_SIZE_FLAG,
        );
        assert!(
            matches!(
                r,
                Err(Decode::Refused(ErrorKind::TooLarge { limit: 1048576, .. }))
            ),
            "a body decompressing past the cap must be refused"
        );
        let e = Error::new(
            "https://x.test/",
            ErrorKind::TooLarge {
                what: "the body decompresses to more than 1048576 bytes".into(),
                limit: 1048576,
                bound: MAX_CATALOG_SIZE_FLAG,
            },
            1,
        );
        assert!(e.is_invalid_content());
        assert!(e.to_string().contains("--max-catalog-size"), "{e}");
    }

    /// The DNS sentence comes first, the resolver's text after.
    #[test]
    fn dns_failures_say_ours_first() {
        let kind = ErrorKind::Dns {
            host: "catalog.example.test".into(),
            detail: "failed to lookup address information: Temporary failure in name resolution"
                .into(),
        };
        let text = kind.to_string();
        assert!(
            text.starts_with("cannot resolve catalog.example.test: no network access? use --offline with a cached copy, or "),
            "{text}"
        );
        assert!(
            text.ends_with("Temporary failure in name resolution)"),
            "{text}"
        );
    }

    #[test]
    fn offline_without_cache_names_the_url_and_makes_no_request() {
        let d = tempfile::tempdir().unwrap();
        let f = Fetcher::new(
            Options {
                offline: true,
                ..Options::default()
            },
            Cache::new(d.path()),
        )
        .unwrap();
        let e = f
            .fetch("https://catalogd.test/api/v1/all", None)
            .unwrap_err();
        assert_eq!(e.attempts, 0);
        assert!(matches!(e.kind, ErrorKind::NotCached { .. }));
        assert!(
            e.to_string()
                .starts_with("https://catalogd.test/api/v1/all: "),
            "{e}"
        );
    }

    #[test]
    fn pinned_and_cached_needs_no_connection() {
        let d = tempfile::tempdir().unwrap();
        let cache = Cache::new(d.path());
        let sha = hex::encode(Sha256::digest(b"x"));
        cache.store("https://a.test/", b"x", &sha).unwrap();
        // Online, but the client would fail to connect anywhere: the pin short-cuts it.
        let f = Fetcher::new(Options::default(), cache).unwrap();
        let got = f.fetch("https://a.test/", Some(&sha)).unwrap();
        assert!(got.from_cache);
    }

    #[test]
    fn invalid_trust_bundle_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let e = Fetcher::new(
            Options {
                extra_roots: vec![("--ca-file x.pem".into(), b"not pem".to_vec())],
                ..Options::default()
            },
            Cache::new(d.path()),
        )
        .unwrap_err();
        assert!(matches!(e.kind, ErrorKind::TrustBundle { .. }), "{e}");
    }
}
