//! The registry's authentication, bounded like every other answer: `GET /v2/` names how to
//! authenticate (`WWW-Authenticate`); a `Bearer` challenge names a token service (its realm),
//! which is asked for a pull token for one repository, sending the registry's credentials
//! when there are any (distribution's token authentication, docker/distribution
//! `docs/spec/auth/token.md`); a `Basic` challenge (or none) means the credentials go to the
//! registry itself.
//!
//! Credentials only ever travel over HTTPS: a realm that is not `https://` is refused before
//! any request (naming it), and so is a token service that redirects to plain HTTP (the client
//! is HTTPS-only). A token answer is a small JSON document: at most [`MAX_TOKEN_BYTES`] are
//! read, and the whole answer must arrive within `--timeout`.

use std::io::Read as _;
use std::time::Instant;

use super::auth::Credential;
use super::error::ErrorKind;
use crate::fetch;

/// The largest token answer read. Real ones (Quay, Docker Hub, registry.redhat.io, the
/// distribution registry) are one or two JWTs of 1 to 3 KB each (`token` and `access_token`
/// often both), with `expires_in` and `issued_at`; 32 KiB leaves room for the largest while a
/// hostile token service cannot fill memory.
pub const MAX_TOKEN_BYTES: u64 = 32 * 1024;

/// The most of an answer read only to be thrown away (`/v2/`'s body, a refusal).
const MAX_DISCARDED_BYTES: u64 = 4 * 1024;

/// How a registry asks to be authenticated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Challenge {
    /// No challenge (or an unknown scheme): anonymous, or basic credentials when there are any.
    None,
    /// `Basic`: the credentials go to the registry.
    Basic,
    /// `Bearer`: ask the token service at `realm` for a token.
    Bearer {
        /// The token service's URL, as the registry wrote it.
        realm: String,
        /// The `service` parameter, sent back to the token service.
        service: Option<String>,
    },
}

/// The challenge of `WWW-Authenticate` header values: the first `Bearer` challenge with a
/// realm, else `Basic` if one is offered, else none.
pub fn parse_challenge<'a>(headers: impl IntoIterator<Item = &'a str>) -> Challenge {
    let mut basic = false;
    for header in headers {
        let Ok(challenges) = http_auth::parse_challenges(header) else {
            continue;
        };
        for c in challenges {
            if c.scheme.eq_ignore_ascii_case("bearer") {
                let param = |name: &str| {
                    c.params
                        .iter()
                        .find(|(k, _)| k.eq_ignore_ascii_case(name))
                        .map(|(_, v)| v.to_unescaped())
                };
                if let Some(realm) = param("realm") {
                    return Challenge::Bearer {
                        realm,
                        service: param("service"),
                    };
                }
            } else if c.scheme.eq_ignore_ascii_case("basic") {
                basic = true;
            }
        }
    }
    if basic {
        Challenge::Basic
    } else {
        Challenge::None
    }
}

/// `realm` as a URL credentials may be sent to: `https://` only.
pub fn check_realm(realm: &str) -> Result<(), ErrorKind> {
    let https = realm
        .get(..8)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://"));
    if !https || fetch::client::host_of(realm).is_empty() {
        return Err(ErrorKind::InsecureRealm {
            realm: realm.to_string(),
            redirected_from: None,
        });
    }
    Ok(())
}

/// `realm` with the query parameters of a pull token for `repository` added.
fn token_url(realm: &str, repository: &str, service: Option<&str>) -> String {
    let realm = realm.split_once('#').map_or(realm, |(before, _)| before);
    let mut url = realm.to_string();
    if !url.ends_with(['?', '&']) {
        url.push(if url.contains('?') { '&' } else { '?' });
    }
    url.push_str("scope=");
    url.push_str(&fetch::client::form_encode(&format!(
        "repository:{repository}:pull"
    )));
    if let Some(s) = service {
        url.push_str("&service=");
        url.push_str(&fetch::client::form_encode(s));
    }
    url
}

/// What a token service answers (`token`, or OAuth2's `access_token`).
#[derive(serde::Deserialize)]
struct TokenAnswer {
    #[serde(default)]
    token: Option<String>,
    #[serde(default)]
    access_token: Option<String>,
}

/// The token in a token service's answer `body`: a non-empty string of visible ASCII (it goes
/// into a header).
pub fn parse_token(body: &[u8], realm: &str) -> Result<String, ErrorKind> {
    let bad = |why: &str| ErrorKind::Protocol {
        detail: format!(
            "the token service {} answered {why}",
            crate::text::escape(realm)
        ),
    };
    let answer: TokenAnswer =
        serde_json::from_slice(body).map_err(|_| bad("something that is not a JSON token"))?;
    let token = answer
        .token
        .filter(|t| !t.is_empty())
        .or(answer.access_token.filter(|t| !t.is_empty()))
        .ok_or_else(|| bad("no token"))?;
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(bad("a token with characters a header cannot carry"));
    }
    Ok(token)
}

/// At most `limit + 1` bytes of `response` (one more than allowed tells that it is too large),
/// all of them within `--timeout` of `started`.
pub(super) fn read_bounded(
    mut response: fetch::Response,
    limit: u64,
    started: Instant,
    options: &fetch::Options,
) -> Result<Vec<u8>, std::io::Error> {
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        if started.elapsed() > options.timeout {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the answer did not end within --timeout",
            ));
        }
        let room = (limit + 1).saturating_sub(out.len() as u64);
        if room == 0 {
            return Ok(out);
        }
        let want = buf.len().min(usize::try_from(room).unwrap_or(buf.len()));
        match response.read(&mut buf[..want]) {
            Ok(0) => return Ok(out),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Who asks for a token, and how.
pub(super) struct TokenClient<'a> {
    /// The HTTPS-only client (timeouts, trust and proxy of `options`).
    pub http: &'a fetch::HttpsClient,
    /// The registry host to talk to (`index.docker.io` for `docker.io`).
    pub host: &'a str,
    /// The repository below it.
    pub repository: &'a str,
    /// The credentials for it, if any.
    pub credential: Option<&'a Credential>,
    /// Where they came from (for "access denied").
    pub credential_origin: Option<&'a str>,
    /// Timeouts and the rest.
    pub options: &'a fetch::Options,
}

impl TokenClient<'_> {
    /// The `Authorization` header value for pulls from the repository: a bearer token from the
    /// registry's token service, basic credentials, or none (anonymous).
    pub fn authorization(&self) -> Result<Option<String>, ErrorKind> {
        let started = Instant::now();
        let url = format!("https://{}/v2/", self.host);
        let response = self
            .http
            .get(&url)
            .send()
            .map_err(|e| self.send_error(&e))?;
        let challenge = parse_challenge(response.headers("www-authenticate"));
        // The body says nothing we need; read a little of it so the connection can be reused.
        let _ = read_bounded(response, MAX_DISCARDED_BYTES, started, self.options);
        match challenge {
            Challenge::Bearer { realm, service } => self.token(&realm, service.as_deref()),
            Challenge::Basic | Challenge::None => Ok(self.credential.map(basic)),
        }
    }

    /// Ask the token service at `realm` for a pull token.
    fn token(&self, realm: &str, service: Option<&str>) -> Result<Option<String>, ErrorKind> {
        check_realm(realm)?;
        let url = token_url(realm, self.repository, service);
        let started = Instant::now();
        let mut request = self.http.get(url);
        if let Some(c) = self.credential {
            request = request.header("authorization", basic(c));
        }
        let response = request.send().map_err(|e| match e.insecure_redirect() {
            Some(to) => ErrorKind::InsecureRealm {
                realm: to.to_string(),
                redirected_from: Some(realm.to_string()),
            },
            None => self.send_error(&e),
        })?;
        if !response.is_success() {
            let status = response.status();
            let text = read_bounded(response, MAX_DISCARDED_BYTES, started, self.options)
                .unwrap_or_default();
            return Err(match status {
                401 | 403 => ErrorKind::Unauthorized {
                    credential: self.credential_origin.map(str::to_string),
                    unreadable: Vec::new(),
                },
                code => ErrorKind::Server {
                    status: code,
                    detail: format!(
                        "from the token service {}: {}",
                        crate::text::escape(realm),
                        crate::text::printable(
                            String::from_utf8_lossy(&text)
                                .trim()
                                .chars()
                                .take(200)
                                .collect::<String>()
                                .as_str()
                        )
                    ),
                },
            });
        }
        let too_large = |reason: String| ErrorKind::TooLarge {
            what: format!(
                "the answer of the token service {}",
                crate::text::escape(realm)
            ),
            limit: MAX_TOKEN_BYTES,
            reason,
        };
        if let Some(len) = response.content_length()
            && len > MAX_TOKEN_BYTES
        {
            return Err(too_large(format!(
                "it announces {len} bytes (Content-Length); a token answer is a small JSON document"
            )));
        }
        let body = read_bounded(response, MAX_TOKEN_BYTES, started, self.options)
            .map_err(|e| self.read_error(&e, realm))?;
        if body.len() as u64 > MAX_TOKEN_BYTES {
            return Err(too_large(
                "a token answer is a small JSON document".to_string(),
            ));
        }
        parse_token(&body, realm).map(|t| Some(format!("Bearer {t}")))
    }

    fn send_error(&self, e: &fetch::RequestError) -> ErrorKind {
        ErrorKind::from_fetch(fetch::request_error(e, self.host, self.options), self.host)
    }

    fn read_error(&self, e: &std::io::Error, realm: &str) -> ErrorKind {
        if e.kind() == std::io::ErrorKind::TimedOut || crate::error_chain(e).contains("timed out") {
            ErrorKind::Timeout {
                detail: format!(
                    "the token service {} did not finish its answer within --timeout {:?}",
                    crate::text::escape(realm),
                    self.options.timeout
                ),
            }
        } else {
            ErrorKind::Connect {
                detail: format!(
                    "the answer of the token service {} broke off: {}",
                    crate::text::escape(realm),
                    crate::error_chain(e)
                ),
            }
        }
    }
}

/// `Basic base64(user:password)`.
fn basic(c: &Credential) -> String {
    use base64::Engine as _;
    let pair =
        base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", c.username, c.password));
    format!("Basic {pair}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_wins_over_basic_and_params_are_unescaped() {
        assert_eq!(
            parse_challenge([
                "Basic realm=\"x\"",
                "Bearer realm=\"https://auth.example/token\",service=\"reg\\\"istry\""
            ]),
            Challenge::Bearer {
                realm: "https://auth.example/token".into(),
                service: Some("reg\"istry".into())
            }
        );
        assert_eq!(
            parse_challenge(["Basic realm=\"x\", Bearer realm=\"https://a/t\""]),
            Challenge::Bearer {
                realm: "https://a/t".into(),
                service: None
            }
        );
        assert_eq!(parse_challenge(["Basic realm=\"test\""]), Challenge::Basic);
        assert_eq!(parse_challenge(["Bearer service=\"x\""]), Challenge::None);
        assert_eq!(parse_challenge(["\u{1}garbage=="]), Challenge::None);
        assert_eq!(parse_challenge([]), Challenge::None);
    }

    #[test]
    fn only_https_realms_are_asked() {
        assert!(check_realm("https://auth.example:8443/token?x=1").is_ok());
        for bad in [
            "http://auth.example/token",
            "HTTP://auth.example/token",
            "ftp://auth.example/token",
            "//auth.example/token",
            "/token",
            "",
        ] {
            let e = check_realm(bad).unwrap_err();
            assert!(
                matches!(&e, ErrorKind::InsecureRealm { realm, .. } if realm == bad),
                "{bad}: {e}"
            );
            assert!(e.to_string().contains("credentials"), "{e}");
        }
    }

    #[test]
    fn the_token_url_asks_for_a_pull_of_the_repository() {
        assert_eq!(
            token_url("https://auth.example/token", "ns/app", Some("reg istry")),
            "https://auth.example/token?scope=repository%3Ans%2Fapp%3Apull&service=reg+istry"
        );
        assert_eq!(
            token_url("https://auth.example/token?x=1#frag", "a", None),
            "https://auth.example/token?x=1&scope=repository%3Aa%3Apull"
        );
    }

    #[test]
    fn tokens_are_small_json_with_a_header_safe_token() {
        assert_eq!(parse_token(br#"{"token":"abc"}"#, "r").unwrap(), "abc");
        assert_eq!(
            parse_token(br#"{"token":"","access_token":"xyz"}"#, "r").unwrap(),
            "xyz"
        );
        assert!(parse_token(b"{}", "r").is_err());
        assert!(parse_token(b"not json", "r").is_err());
        assert!(parse_token(br#"{"token":"a\r\nX-Evil: 1"}"#, "r").is_err());
        assert!(parse_token(br#"{"token":"a b"}"#, "r").is_err());
    }
}
