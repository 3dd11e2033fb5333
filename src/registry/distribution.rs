//! A registry over the OCI distribution API (Docker Registry v2): `GET`s of manifests and
//! blobs for one repository at one location, authenticated once ([`super::token`]), every
//! answer bounded (a manifest at [`MAX_MANIFEST_BYTES`], a blob at its descriptor's size, an
//! announced `Content-Length` above either refused before the body is read), with bounded
//! retries and exponential backoff on connection errors, timeouts, 429 and 5xx.

use std::io::Read as _;
use std::path::PathBuf;
use std::time::Duration;

use sha2::{Digest as _, Sha256};

use super::auth::{Credential, Credentials};
use super::error::ErrorKind;
use super::location::Location;
use super::manifest::{Blobs, Descriptor, MANIFEST_TYPES, MAX_MANIFEST_BYTES, Spool};
use super::token;
use crate::fetch;

/// A registry location with a client.
pub(super) struct RegistryBlobs<'a> {
    /// Bounded GETs of manifests, blobs and tokens.
    http: fetch::HttpsClient,
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
    /// `location` through `http` (the puller's client).
    pub(super) fn new(
        http: fetch::HttpsClient,
        options: &'a fetch::Options,
        credentials: &'a Credentials,
        location: &'a Location,
    ) -> RegistryBlobs<'a> {
        let found = credentials.find(&location.registry, &location.repository);
        let host = match location.registry.as_str() {
            "docker.io" => "index.docker.io".to_string(),
            other => other.to_string(),
        };
        RegistryBlobs {
            http,
            authorization: std::cell::OnceCell::new(),
            location,
            host,
            credential: found.map(|(c, _)| c),
            credential_origin: found.map(|(_, origin)| origin.to_string()),
            unreadable: credentials.unreadable(),
            options,
        }
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

    pub(super) fn resolve_tag(&mut self, tag: &str) -> Result<String, ErrorKind> {
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
    ) -> Result<fetch::Response, ErrorKind> {
        let host = &self.host;
        let url = format!(
            "https://{host}/v2/{}/{kind}/{reference}",
            self.location.repository
        );
        let mut request = self.http.get(&url);
        if let Some(a) = accept {
            request = request.header("accept", a);
        }
        if let Some(auth) = self.authorization()? {
            request = request.header("authorization", auth);
        }
        let response = request.send().map_err(|e| {
            ErrorKind::from_fetch(
                fetch::request_error(&e, host, self.options),
                &self.location.registry,
            )
        })?;
        if response.is_success() {
            return Ok(response);
        }
        let code = response.status();
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
        let header = response.header("docker-content-digest").map(str::to_string);
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

fn backoff(base: Duration, attempt: u32) -> Duration {
    base.saturating_mul(1u32 << attempt.min(10))
}

impl Blobs for RegistryBlobs<'_> {
    fn manifest(&mut self, digest: &str) -> Result<Vec<u8>, ErrorKind> {
        let (bytes, _) = self.retry(|s| s.get_manifest(digest, digest), || {})?;
        Ok(bytes)
    }

    fn blob(&mut self, desc: &Descriptor, out: &mut Spool, limit: u64) -> Result<(), ErrorKind> {
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
                let _ = file.borrow_mut().clear();
            },
        )
    }
}
