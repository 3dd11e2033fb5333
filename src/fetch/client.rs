//! The one HTTPS client of every download (catalogs and update graphs in [`super`], manifests,
//! blobs and tokens in [`crate::registry`]): a blocking client over rustls (ring), nothing
//! asynchronous underneath.
//!
//! * TLS is always verified, against the system roots (`SSL_CERT_FILE`/`SSL_CERT_DIR`
//!   honoured) and the extra PEM bundles of [`Options::extra_roots`]; `https://` only.
//! * The proxy of [`Options::proxy`], bypassed for the hosts its `no_proxy` names ([`NoProxy`]:
//!   domains with their subdomains, IP addresses, CIDR ranges, `*`).
//! * [`Options::connect_timeout`] for the connection (TCP, proxy tunnel and TLS),
//!   [`Options::timeout`] for a whole request, body included.
//! * Redirects are followed here, at most [`MAX_REDIRECTS`], to `https://` only; the
//!   `Authorization` header does not follow a redirect to another host or port.
//! * No content decoding: the caller asks for `gzip` and decodes it, bounded.

use std::io::Read;
use std::net::IpAddr;
use std::sync::Arc;

use super::{ErrorKind, Options};

/// Redirects followed at most for one request.
pub const MAX_REDIRECTS: usize = 10;

/// Idle connections a client and its clones keep, in all and to one host: the most bundle
/// pulls in flight at once (`--jobs` is at most 64).
const MAX_IDLE_CONNECTIONS: usize = 64;

/// The HTTPS client: cheap to clone (the clones share their connections), usable from many
/// threads.
#[derive(Clone)]
pub struct HttpsClient {
    direct: ureq::Agent,
    /// Through the proxy, and the hosts that bypass it.
    proxied: Option<(ureq::Agent, Arc<NoProxy>)>,
}

impl std::fmt::Debug for HttpsClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpsClient")
            .field("proxied", &self.proxied.is_some())
            .finish_non_exhaustive()
    }
}

impl HttpsClient {
    /// The client for `options`: trust bundles and the proxy URL are checked here.
    pub fn new(options: &Options) -> Result<HttpsClient, ErrorKind> {
        let tls = ureq::tls::TlsConfig::builder()
            .provider(ureq::tls::TlsProvider::Rustls)
            .root_certs(ureq::tls::RootCerts::new_with_certs(&roots(options)?))
            .unversioned_rustls_crypto_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .build();
        let config = |proxy: Option<ureq::Proxy>| {
            ureq::Agent::config_builder()
                .tls_config(tls.clone())
                .proxy(proxy)
                .https_only(true)
                .http_status_as_error(false)
                // Redirects are followed by `send`, which chooses the proxy per host.
                .max_redirects(0)
                .max_redirects_will_error(false)
                // Idle connections kept for the clones' next requests: enough for every pull
                // in flight to find one (ureq keeps 3 a host by default).
                .max_idle_connections(MAX_IDLE_CONNECTIONS)
                .max_idle_connections_per_host(MAX_IDLE_CONNECTIONS)
                .timeout_connect(Some(options.connect_timeout))
                .timeout_global(Some(options.timeout))
                .user_agent(concat!("po-manifests/", env!("CARGO_PKG_VERSION")))
                // Content encoding is asked for and decoded by the caller, bounded.
                .accept_encoding(ureq::config::AutoHeaderValue::None)
                .build()
                .new_agent()
        };
        let proxied = match options
            .proxy
            .https_proxy
            .as_deref()
            .filter(|p| !p.trim().is_empty())
        {
            None => None,
            Some(url) => {
                let proxy = ureq::Proxy::new(url.trim()).map_err(|e| ErrorKind::ProxyUrl {
                    proxy: url.to_string(),
                    detail: e.to_string(),
                })?;
                let bypass = NoProxy::parse(options.proxy.no_proxy.as_deref().unwrap_or(""));
                Some((config(Some(proxy)), Arc::new(bypass)))
            }
        };
        Ok(HttpsClient {
            direct: config(None),
            proxied,
        })
    }

    /// A `GET` of `url`.
    pub fn get(&self, url: impl Into<String>) -> Request<'_> {
        Request {
            client: self,
            url: url.into(),
            headers: Vec::new(),
        }
    }

    fn agent_for(&self, host: &str) -> &ureq::Agent {
        match &self.proxied {
            Some((agent, bypass)) if !bypass.matches(host) => agent,
            _ => &self.direct,
        }
    }
}

/// The system roots and `options.extra_roots`; none at all is an error.
fn roots(options: &Options) -> Result<Vec<ureq::tls::Certificate<'static>>, ErrorKind> {
    let mut certs: Vec<ureq::tls::Certificate<'static>> = rustls_native_certs::load_native_certs()
        .certs
        .iter()
        .map(|c| ureq::tls::Certificate::from_der(c.as_ref()).to_owned())
        .collect();
    for (origin, pem) in &options.extra_roots {
        let bad = |detail: String| ErrorKind::TrustBundle {
            origin: origin.clone(),
            detail,
        };
        let before = certs.len();
        for item in ureq::tls::parse_pem(pem) {
            if let ureq::tls::PemItem::Certificate(c) = item.map_err(|e| bad(e.to_string()))? {
                certs.push(c);
            }
        }
        if certs.len() == before {
            return Err(bad("no PEM certificate found".into()));
        }
    }
    if certs.is_empty() {
        return Err(ErrorKind::Client {
            detail: "no CA certificates were loaded from the system (SSL_CERT_FILE, SSL_CERT_DIR), and none were given".into(),
        });
    }
    Ok(certs)
}

/// A request being built: its URL and headers.
pub struct Request<'a> {
    client: &'a HttpsClient,
    url: String,
    headers: Vec<(&'static str, String)>,
}

impl Request<'_> {
    /// The same request with the header `name: value`.
    pub fn header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    /// Send it, following redirects to `https://` URLs; the answer, whatever its status.
    pub fn send(self) -> Result<Response, RequestError> {
        let Request {
            client,
            mut url,
            mut headers,
        } = self;
        let error = |url: &str, cause| RequestError {
            url: url.to_string(),
            cause,
        };
        for _ in 0..=MAX_REDIRECTS {
            let origin = Origin::of(&url).ok_or_else(|| error(&url, Cause::Url))?;
            let mut request = client.agent_for(&origin.host).get(&url);
            for (name, value) in &headers {
                request = request.header(*name, value.as_str());
            }
            let response = request.call().map_err(|e| error(&url, Cause::Client(e)))?;
            let status = response.status().as_u16();
            let location = response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .filter(|_| matches!(status, 301 | 302 | 303 | 307 | 308));
            let Some(location) = location else {
                return Ok(Response::new(response));
            };
            let next = resolve(&url, location.trim());
            let Some(next_origin) = next.as_deref().and_then(Origin::of) else {
                return Err(error(&url, Cause::InsecureRedirect(location.to_string())));
            };
            if next_origin != origin {
                // Credentials are for the host that asked for them.
                headers.retain(|(name, _)| !name.eq_ignore_ascii_case("authorization"));
            }
            url = next.unwrap_or_default();
        }
        Err(error(&url, Cause::TooManyRedirects))
    }
}

/// Scheme, host and port of an `https://` URL (the only scheme requests go to).
#[derive(Debug, PartialEq, Eq)]
struct Origin {
    host: String,
    port: u16,
}

impl Origin {
    fn of(url: &str) -> Option<Origin> {
        let uri: ureq::http::Uri = url.parse().ok()?;
        if !uri.scheme_str()?.eq_ignore_ascii_case("https") {
            return None;
        }
        let host = uri.host()?.to_ascii_lowercase();
        if host.is_empty() {
            return None;
        }
        Some(Origin {
            host,
            port: uri.port_u16().unwrap_or(443),
        })
    }
}

/// The host of `url` (`""` when it has none), for messages.
pub fn host_of(url: &str) -> String {
    url.parse::<ureq::http::Uri>()
        .ok()
        .and_then(|u| u.host().map(str::to_string))
        .unwrap_or_default()
}

/// `location` (absolute, scheme-relative, absolute-path or relative) against `base`.
fn resolve(base: &str, location: &str) -> Option<String> {
    if location.contains("://") {
        return Some(location.to_string());
    }
    let uri: ureq::http::Uri = base.parse().ok()?;
    let scheme = uri.scheme_str()?;
    if let Some(rest) = location.strip_prefix("//") {
        return Some(format!("{scheme}://{rest}"));
    }
    let authority = uri.authority()?.as_str();
    if location.starts_with('/') {
        return Some(format!("{scheme}://{authority}{location}"));
    }
    let dir = uri.path().rsplit_once('/').map_or("", |(d, _)| d);
    Some(format!("{scheme}://{authority}{dir}/{location}"))
}

/// An answer: its status and headers, and its body to read.
pub struct Response {
    status: ureq::http::StatusCode,
    headers: ureq::http::HeaderMap,
    content_length: Option<u64>,
    body: ureq::BodyReader<'static>,
}

impl std::fmt::Debug for Response {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Response")
            .field("status", &self.status)
            .finish_non_exhaustive()
    }
}

impl Response {
    fn new(response: ureq::http::Response<ureq::Body>) -> Response {
        let (parts, body) = response.into_parts();
        Response {
            status: parts.status,
            headers: parts.headers,
            content_length: body.content_length(),
            body: body.into_reader(),
        }
    }

    /// The status code.
    pub fn status(&self) -> u16 {
        self.status.as_u16()
    }

    /// Whether the status is 2xx.
    pub fn is_success(&self) -> bool {
        self.status.is_success()
    }

    /// The status's reason phrase (`Not Found`), or `""`.
    pub fn reason(&self) -> &'static str {
        self.status.canonical_reason().unwrap_or("")
    }

    /// The first value of the header `name` that is text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// Every value of the header `name` that is text.
    pub fn headers<'a>(&'a self, name: &str) -> impl Iterator<Item = &'a str> {
        self.headers
            .get_all(name)
            .into_iter()
            .filter_map(|v| v.to_str().ok())
    }

    /// The body's announced length (`Content-Length`), if any.
    pub fn content_length(&self) -> Option<u64> {
        self.content_length
    }
}

impl Read for Response {
    /// The body. A timeout is an error of kind [`std::io::ErrorKind::TimedOut`]; a body that
    /// ends before its `Content-Length`, one of kind [`std::io::ErrorKind::UnexpectedEof`].
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.body.read(buf).map_err(|e| {
            let timeout = e
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<ureq::Error>())
                .is_some_and(|u| matches!(u, ureq::Error::Timeout(_)));
            if timeout {
                std::io::Error::new(std::io::ErrorKind::TimedOut, "timed out")
            } else {
                e
            }
        })
    }
}

/// A request that got no answer: the URL it went to and why.
#[derive(Debug)]
pub struct RequestError {
    url: String,
    cause: Cause,
}

#[derive(Debug)]
enum Cause {
    Client(ureq::Error),
    /// Not an `https://` URL with a host.
    Url,
    /// A redirect to a URL that is not `https://` (where it pointed).
    InsecureRedirect(String),
    TooManyRedirects,
}

impl std::fmt::Display for RequestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.cause {
            Cause::Client(e) => write!(f, "{e}"),
            Cause::Url => write!(f, "not an https:// URL with a host"),
            Cause::InsecureRedirect(to) => {
                write!(
                    f,
                    "a redirect to {} was not followed: only https:// is",
                    crate::text::printable(to)
                )
            }
            Cause::TooManyRedirects => write!(f, "more than {MAX_REDIRECTS} redirects"),
        }
    }
}

impl std::error::Error for RequestError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.cause {
            Cause::Client(ureq::Error::Io(e)) => Some(e),
            Cause::Client(e) => Some(e),
            _ => None,
        }
    }
}

impl RequestError {
    /// Where a redirect that was not followed pointed, when it pointed to plain HTTP (or
    /// anything but `https://`).
    pub fn insecure_redirect(&self) -> Option<&str> {
        match &self.cause {
            Cause::InsecureRedirect(to) => Some(to),
            _ => None,
        }
    }

    /// Whether the request failed while connecting (resolving, TCP, proxy tunnel, TLS): no
    /// byte of it reached the server.
    pub fn is_connect(&self) -> bool {
        use std::io::ErrorKind as Io;
        match &self.cause {
            Cause::Client(ureq::Error::Timeout(t)) => {
                matches!(t, ureq::Timeout::Resolve | ureq::Timeout::Connect)
            }
            Cause::Client(ureq::Error::Io(e)) => matches!(
                e.kind(),
                Io::ConnectionRefused
                    | Io::ConnectionReset
                    | Io::ConnectionAborted
                    | Io::NotConnected
                    | Io::AddrNotAvailable
                    | Io::HostUnreachable
                    | Io::NetworkUnreachable
            ),
            Cause::Client(
                ureq::Error::ConnectionFailed
                | ureq::Error::HostNotFound
                | ureq::Error::ConnectProxyFailed(_)
                | ureq::Error::Tls(_)
                | ureq::Error::Rustls(_),
            ) => true,
            _ => false,
        }
    }

    /// Whether a timeout ended the request.
    pub fn is_timeout(&self) -> bool {
        match &self.cause {
            Cause::Client(ureq::Error::Timeout(_)) => true,
            Cause::Client(ureq::Error::Io(e)) => e.kind() == std::io::ErrorKind::TimedOut,
            _ => false,
        }
    }

    /// Whether the proxy refused or failed the tunnel.
    pub fn is_proxy(&self) -> bool {
        matches!(
            &self.cause,
            Cause::Client(ureq::Error::ConnectProxyFailed(_) | ureq::Error::InvalidProxyUrl)
        )
    }

    /// Whether the host name did not resolve.
    pub fn is_dns(&self) -> bool {
        match &self.cause {
            Cause::Client(ureq::Error::HostNotFound) => true,
            Cause::Client(ureq::Error::Io(e)) => e.to_string().contains("failed to lookup address"),
            _ => false,
        }
    }

    /// The rustls error, when TLS failed.
    pub fn tls(&self) -> Option<&rustls::Error> {
        match &self.cause {
            Cause::Client(ureq::Error::Rustls(e)) => Some(e),
            Cause::Client(ureq::Error::Io(e)) => e
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<rustls::Error>()),
            _ => None,
        }
    }

    /// What TLS said, when it failed otherwise than with a rustls error.
    pub fn tls_failure(&self) -> Option<&'static str> {
        match &self.cause {
            Cause::Client(ureq::Error::Tls(text)) => Some(text),
            Cause::Client(ureq::Error::TlsRequired) => Some("TLS is required"),
            _ => None,
        }
    }

    /// The URL the request went to when it failed (after redirects).
    pub fn url(&self) -> &str {
        &self.url
    }
}

/// Hosts that bypass the proxy, as `NO_PROXY` (install-config `proxy.noProxy`) lists them:
/// comma-separated entries, each `*` (every host), an IP address, a CIDR range
/// (`10.0.0.0/8`), or a domain, which matches itself and its subdomains (`example.com` and
/// `.example.com` alike).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct NoProxy {
    all: bool,
    ranges: Vec<(IpAddr, u8)>,
    domains: Vec<String>,
}

impl NoProxy {
    /// The entries of `list`; what is none of the above is a domain.
    pub fn parse(list: &str) -> NoProxy {
        let mut out = NoProxy::default();
        for entry in list.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            if entry == "*" {
                out.all = true;
            } else if let Some(range) = parse_range(entry) {
                out.ranges.push(range);
            } else {
                let domain = entry.trim_start_matches('.').to_ascii_lowercase();
                if !domain.is_empty() {
                    out.domains.push(domain);
                }
            }
        }
        out
    }

    /// Whether requests to `host` (a name, an IP address, `[v6]`) go direct.
    pub fn matches(&self, host: &str) -> bool {
        if self.all {
            return true;
        }
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        if let Ok(ip) = bare.parse::<IpAddr>() {
            return self
                .ranges
                .iter()
                .any(|(net, bits)| in_range(ip, *net, *bits));
        }
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        self.domains.iter().any(|d| {
            host == *d
                || host
                    .strip_suffix(d.as_str())
                    .is_some_and(|rest| rest.ends_with('.'))
        })
    }
}

/// `ip` or `ip/bits`.
fn parse_range(entry: &str) -> Option<(IpAddr, u8)> {
    let (addr, bits) = match entry.split_once('/') {
        Some((a, b)) => (a, Some(b.parse::<u8>().ok()?)),
        None => (entry, None),
    };
    let ip: IpAddr = addr.parse().ok()?;
    let max = if ip.is_ipv4() { 32 } else { 128 };
    let bits = bits.unwrap_or(max);
    (bits <= max).then_some((ip, bits))
}

fn in_range(ip: IpAddr, net: IpAddr, bits: u8) -> bool {
    let prefix = |a: u128, width: u32| {
        let shift = width - u32::from(bits);
        if shift >= 128 { 0 } else { a >> shift }
    };
    match (ip, net) {
        (IpAddr::V4(a), IpAddr::V4(n)) => {
            prefix(u128::from(u32::from(a)), 32) == prefix(u128::from(u32::from(n)), 32)
        }
        (IpAddr::V6(a), IpAddr::V6(n)) => prefix(u128::from(a), 128) == prefix(u128::from(n), 128),
        _ => false,
    }
}

/// `application/x-www-form-urlencoded` of `value`, as a query parameter is written.
pub fn form_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'*' | b'-' | b'.' | b'_' => {
                out.push(char::from(b))
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_proxy_matches_domains_with_subdomains_ips_and_ranges() {
        let n = NoProxy::parse(" example.com, .corp.test,10.0.0.0/8, 192.168.1.5,::1 ,, ");
        for direct in [
            "example.com",
            "EXAMPLE.com",
            "a.example.com",
            "x.corp.test",
            "corp.test",
            "10.1.2.3",
            "192.168.1.5",
            "[::1]",
        ] {
            assert!(n.matches(direct), "{direct}");
        }
        for proxied in [
            "badexample.com",
            "example.com.evil",
            "11.0.0.1",
            "192.168.1.6",
            "[::2]",
            "localhost",
        ] {
            assert!(!n.matches(proxied), "{proxied}");
        }
        assert!(NoProxy::parse("*").matches("anything.test"));
        assert!(!NoProxy::parse("").matches("a.test"));
        assert!(NoProxy::parse("0.0.0.0/0").matches("8.8.8.8"));
    }

    #[test]
    fn locations_resolve_against_the_request() {
        let base = "https://r.test:8443/v2/a/blobs/sha256:1?x=1";
        assert_eq!(
            resolve(base, "https://cdn.test/b").as_deref(),
            Some("https://cdn.test/b")
        );
        assert_eq!(
            resolve(base, "//cdn.test/b").as_deref(),
            Some("https://cdn.test/b")
        );
        assert_eq!(
            resolve(base, "/other?y=2").as_deref(),
            Some("https://r.test:8443/other?y=2")
        );
        assert_eq!(
            resolve(base, "next").as_deref(),
            Some("https://r.test:8443/v2/a/blobs/next")
        );
        assert_eq!(Origin::of("http://r.test/"), None);
        assert_eq!(Origin::of("/path"), None);
        assert_eq!(
            Origin::of("HTTPS://R.test/x"),
            Some(Origin {
                host: "r.test".into(),
                port: 443
            })
        );
    }

    #[test]
    fn query_values_are_form_encoded() {
        assert_eq!(
            form_encode("repository:ns/app name:pull"),
            "repository%3Ans%2Fapp+name%3Apull"
        );
        assert_eq!(form_encode("a-b_c.d*"), "a-b_c.d*");
    }
}
