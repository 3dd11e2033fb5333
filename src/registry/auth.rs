//! Registry credentials in the containers-auth.json format, as install-config `pullSecret` and
//! `--authfile` (podman, skopeo, `oc registry login`) write them:
//!
//! ```json
//! {"auths": {"quay.io": {"auth": "base64(user:password)"},
//!            "registry.example.com:5000/team": {"username": "u", "password": "p"}}}
//! ```
//!
//! Keys are a registry (`host[:port]`) or a registry plus a repository prefix; the most
//! specific key matching an image's repository wins (containers-auth.json(5)). Old Docker keys
//! written as URLs (`https://index.docker.io/v1/`) are read as their host. Secrets never appear
//! in `Debug` output or error messages.

use base64::Engine as _;
use serde_json::Value;

/// A user name and password (or token) for one registry.
#[derive(Clone, PartialEq, Eq)]
pub struct Credential {
    /// The user name.
    pub username: String,
    /// The password or token.
    pub password: String,
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Credential {{ username: {:?}, password: <hidden> }}",
            self.username
        )
    }
}

/// Credentials for many registries, in the order they were added (earlier sources win ties).
#[derive(Debug, Clone, Default)]
pub struct Credentials {
    entries: Vec<(String, Credential, String)>,
    unreadable: Vec<String>,
}

/// A credentials file that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("{origin}: {detail}")]
pub struct AuthError {
    /// Where the credentials came from (`--authfile F`, `pullSecret in F`).
    pub origin: String,
    /// What is wrong (never the secret itself).
    pub detail: String,
}

impl Credentials {
    /// Parse a containers-auth.json document; `origin` names it in errors.
    pub fn parse(json: &str, origin: &str) -> Result<Credentials, AuthError> {
        let err = |detail: String| AuthError {
            origin: origin.to_string(),
            detail,
        };
        let doc: Value = serde_json::from_str(json).map_err(|e| {
            err(format!(
                "not JSON in the containers-auth format (line {}, column {})",
                e.line(),
                e.column()
            ))
        })?;
        let auths = match doc.get("auths") {
            Some(Value::Object(m)) => m,
            None | Some(Value::Null) => return Ok(Credentials::default()),
            Some(_) => return Err(err("`auths` must be a mapping".into())),
        };
        let mut out = Credentials::default();
        for (key, entry) in auths {
            let Some(entry) = entry.as_object() else {
                return Err(err(format!("auths[{key:?}] must be a mapping")));
            };
            let text = |k: &str| entry.get(k).and_then(Value::as_str).unwrap_or("");
            let credential = if !text("auth").is_empty() {
                let raw = base64::engine::general_purpose::STANDARD
                    .decode(text("auth").trim())
                    .map_err(|_| err(format!("auths[{key:?}].auth is not base64")))?;
                let decoded = String::from_utf8(raw)
                    .map_err(|_| err(format!("auths[{key:?}].auth is not UTF-8")))?;
                let Some((user, password)) = decoded.split_once(':') else {
                    return Err(err(format!(
                        "auths[{key:?}].auth must encode \"user:password\""
                    )));
                };
                Credential {
                    username: user.to_string(),
                    password: password.to_string(),
                }
            } else if !text("username").is_empty() {
                Credential {
                    username: text("username").to_string(),
                    password: text("password").to_string(),
                }
            } else {
                continue;
            };
            out.entries
                .push((normalize_key(key), credential, origin.to_string()));
        }
        Ok(out)
    }

    /// Add `other`'s entries after these (ours win when both match equally).
    pub fn extend(&mut self, other: Credentials) {
        self.entries.extend(other.entries);
        self.unreadable.extend(other.unreadable);
    }

    /// Remember a credentials source that could not be read, to name it if access is denied
    /// (an install-config `pullSecret` is only needed when a registry asks for credentials).
    pub fn note_unreadable(&mut self, error: &AuthError) {
        self.unreadable.push(error.to_string());
    }

    /// The sources that could not be read.
    pub fn unreadable(&self) -> &[String] {
        &self.unreadable
    }

    /// Whether there are no credentials.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The credential for `registry` (`host[:port]`) and `repository` (the path below it), and
    /// where it came from: the longest matching key.
    pub fn find(&self, registry: &str, repository: &str) -> Option<(&Credential, &str)> {
        let registry = normalize_key(registry);
        let full = format!("{registry}/{repository}");
        let mut best: Option<(&Credential, &str, usize)> = None;
        for (key, cred, origin) in &self.entries {
            let matches = *key == registry
                || *key == full
                || full
                    .strip_prefix(key.as_str())
                    .is_some_and(|rest| rest.starts_with('/'));
            if matches && best.is_none_or(|(_, _, len)| key.len() > len) {
                best = Some((cred, origin, key.len()));
            }
        }
        best.map(|(c, o, _)| (c, o))
    }
}

/// `https://index.docker.io/v1/` → `docker.io`; `registry-1.docker.io` → `docker.io`.
fn normalize_key(key: &str) -> String {
    let k = key
        .trim()
        .trim_start_matches("https://")
        .trim_start_matches("http://");
    let k = k
        .strip_suffix("/v1/")
        .or(k.strip_suffix("/v2/"))
        .unwrap_or(k);
    let k = k.trim_end_matches('/');
    let (host, rest) = match k.split_once('/') {
        Some((h, r)) => (h, Some(r)),
        None => (k, None),
    };
    let host = match host {
        "index.docker.io" | "registry-1.docker.io" => "docker.io",
        h => h,
    };
    match rest {
        Some(r) => format!("{host}/{r}"),
        None => host.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn most_specific_key_wins_and_secrets_stay_hidden() {
        let json = r#"{"auths":{
            "quay.io":{"auth":"dXNlcjpwYXNz"},
            "quay.io/team":{"username":"t","password":"s"},
            "https://index.docker.io/v1/":{"auth":"ZDpw"},
            "empty.example":{}}}"#;
        let c = Credentials::parse(json, "pullSecret").unwrap();
        assert_eq!(c.find("quay.io", "other/x").unwrap().0.username, "user");
        assert_eq!(c.find("quay.io", "team/x").unwrap().0.username, "t");
        assert_eq!(c.find("quay.io", "teamx/y").unwrap().0.username, "user");
        assert_eq!(c.find("docker.io", "library/x").unwrap().0.password, "p");
        assert!(c.find("empty.example", "x").is_none());
        assert!(!format!("{c:?}").contains("\"pass\""));
        assert!(!format!("{:?}", c.find("quay.io", "a").unwrap().0).contains("\"pass\""));
    }

    #[test]
    fn bad_files_name_the_origin_not_the_secret() {
        let e = Credentials::parse(r#"{"auths":{"q":{"auth":"bm9jb2xvbg=="}}}"#, "--authfile a")
            .unwrap_err();
        assert!(e.to_string().starts_with("--authfile a: "), "{e}");
        assert!(!e.to_string().contains("nocolon"));
        assert!(Credentials::parse("nope", "x").is_err());
        assert!(Credentials::parse("{}", "x").unwrap().is_empty());
    }
}
