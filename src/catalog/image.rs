//! Docker image reference check, as `reference.ParseNormalizedNamed` (distribution/reference,
//! `normalize.go`, `regexp.go`, `reference.go`) accepts them: `name[:tag][@digest]`.
//!
//! Grammar:
//! ```text
//! name            := [domain '/'] path-component ('/' path-component)*
//! domain          := host [':' port]      host := domain-component ('.' domain-component)* | '[' ipv6 ']'
//! domain-component:= [a-zA-Z0-9] | [a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]
//! path-component  := [a-z0-9]+ (separator [a-z0-9]+)*     separator := '.' | '_' | '__' | '-'+
//! tag             := [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}
//! digest          := algorithm ':' hex    (sha256: 64, sha384: 96, sha512: 128 lowercase hex)
//! ```
//! Normalisation: the first component is a domain only if it contains `.` or `:`, is
//! `localhost`, or has an upper-case letter; otherwise `docker.io` is implied (and `library/`
//! for a single component). The repository must be lower case; a bare 64-hex string is
//! refused; the whole name is at most 255 characters.

/// Why an image reference is invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ImageRefError {
    /// Empty reference.
    #[error("reference is empty")]
    Empty,
    /// A 64-hex identifier is not a name.
    #[error("cannot specify 64-byte hexadecimal strings")]
    HexIdentifier,
    /// Upper case in the repository path.
    #[error("repository name must be lowercase")]
    NotLowercase,
    /// The domain part is malformed.
    #[error("invalid domain {0:?}")]
    Domain(String),
    /// A path component is malformed.
    #[error("invalid path component {0:?}")]
    PathComponent(String),
    /// The tag is malformed.
    #[error("invalid tag {0:?}")]
    Tag(String),
    /// The digest is malformed or uses an unknown algorithm.
    #[error("invalid digest {0:?}")]
    Digest(String),
    /// The name is longer than 255 characters.
    #[error("repository name must not be more than 255 characters")]
    NameTooLong,
}

fn is_hex64(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Check an image reference the way `reference.ParseNormalizedNamed` does.
pub fn check_reference(text: &str) -> Result<(), ImageRefError> {
    if text.is_empty() {
        return Err(ImageRefError::Empty);
    }
    if is_hex64(text) {
        return Err(ImageRefError::HexIdentifier);
    }
    // Split off the digest and tag first (only to find the name's first component).
    let (rest, digest) = match text.split_once('@') {
        Some((r, d)) => (r, Some(d)),
        None => (text, None),
    };
    let (name, tag) = match rest.rfind(':') {
        Some(i) if !rest[i..].contains('/') => (&rest[..i], Some(&rest[i + 1..])),
        _ => (rest, None),
    };
    let (domain, remainder) = match name.split_once('/') {
        Some((d, r))
            if d.contains('.') || d.contains(':') || d == "localhost" || d.to_lowercase() != d =>
        {
            (Some(d), r)
        }
        _ => (None, name),
    };
    if remainder.to_lowercase() != remainder {
        return Err(ImageRefError::NotLowercase);
    }
    if let Some(d) = domain {
        check_domain(d)?;
    }
    for c in remainder.split('/') {
        check_path_component(c)?;
    }
    let full_len = match domain {
        Some(d) => d.len() + 1 + remainder.len(),
        None if remainder.contains('/') => "docker.io/".len() + remainder.len(),
        None => "docker.io/library/".len() + remainder.len(),
    };
    if full_len > 255 {
        return Err(ImageRefError::NameTooLong);
    }
    if let Some(t) = tag {
        check_tag(t)?;
    }
    if let Some(d) = digest {
        check_digest(d)?;
    }
    Ok(())
}

fn check_domain(d: &str) -> Result<(), ImageRefError> {
    let bad = || ImageRefError::Domain(d.to_owned());
    let (host, port) = if let Some(stripped) = d.strip_prefix('[') {
        let (v6, after) = stripped.split_once(']').ok_or_else(bad)?;
        if v6.is_empty() || !v6.bytes().all(|b| b.is_ascii_hexdigit() || b == b':') {
            return Err(bad());
        }
        match after {
            "" => (None, None),
            p => (None, Some(p.strip_prefix(':').ok_or_else(bad)?)),
        }
    } else {
        match d.split_once(':') {
            Some((h, p)) => (Some(h), Some(p)),
            None => (Some(d), None),
        }
    };
    if let Some(host) = host {
        for c in host.split('.') {
            let b = c.as_bytes();
            let ok = !b.is_empty()
                && b.iter().all(|x| x.is_ascii_alphanumeric() || *x == b'-')
                && b[0] != b'-'
                && b[b.len() - 1] != b'-';
            if !ok {
                return Err(bad());
            }
        }
    }
    if let Some(p) = port
        && (p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err(bad());
    }
    Ok(())
}

fn check_path_component(c: &str) -> Result<(), ImageRefError> {
    let bad = || ImageRefError::PathComponent(c.to_owned());
    let b = c.as_bytes();
    let alnum = |x: u8| x.is_ascii_lowercase() || x.is_ascii_digit();
    if b.is_empty() || !alnum(b[0]) || !alnum(b[b.len() - 1]) {
        return Err(bad());
    }
    let mut i = 0;
    while i < b.len() {
        if alnum(b[i]) {
            i += 1;
            continue;
        }
        // A separator: '.', '_', '__', or one or more '-'.
        let start = i;
        match b[i] {
            b'.' => i += 1,
            b'_' => {
                i += 1;
                if i < b.len() && b[i] == b'_' {
                    i += 1;
                }
            }
            b'-' => {
                while i < b.len() && b[i] == b'-' {
                    i += 1;
                }
            }
            _ => return Err(bad()),
        }
        if i == start || i >= b.len() || !alnum(b[i]) {
            return Err(bad());
        }
    }
    Ok(())
}

fn check_tag(t: &str) -> Result<(), ImageRefError> {
    let b = t.as_bytes();
    let word = |x: u8| x.is_ascii_alphanumeric() || x == b'_';
    let ok = !b.is_empty()
        && b.len() <= 128
        && word(b[0])
        && b[1..].iter().all(|x| word(*x) || *x == b'.' || *x == b'-');
    if ok {
        Ok(())
    } else {
        Err(ImageRefError::Tag(t.to_owned()))
    }
}

fn check_digest(d: &str) -> Result<(), ImageRefError> {
    let bad = || ImageRefError::Digest(d.to_owned());
    let (alg, hex) = d.split_once(':').ok_or_else(bad)?;
    let len = match alg {
        "sha256" => 64,
        "sha384" => 96,
        "sha512" => 128,
        _ => return Err(bad()),
    };
    if hex.len() == len && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        Ok(())
    } else {
        Err(bad())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_references() {
        for r in [
            "busybox",
            "quay.io/foo/bar:v1.0.0",
            "localhost/testdata/bundles/registry-v1/prometheus-operator:v0.47.0",
            "docker-registry.operator-controller-e2e.svc.cluster.local:5000/bundles/registry-v1/test-operator:v1.0.0",
            "registry.redhat.io/a/b@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "[::1]:5000/x/y:latest",
            "a__b/c---d/e.f_g",
        ] {
            assert_eq!(check_reference(r), Ok(()), "{r}");
        }
    }

    #[test]
    fn invalid_references() {
        for r in [
            "",
            "Foo/Bar",
            "quay.io/Foo/bar",
            "quay.io/foo/bar:",
            "quay.io/foo/bar:-x",
            "quay.io/foo/bar@sha256:abc",
            "quay.io/foo/bar@md5:0123456789abcdef0123456789abcdef",
            "quay.io//bar",
            "quay.io/foo_/bar",
            "quay.io/foo/bar baz",
            "-quay.io/foo",
            "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        ] {
            assert!(check_reference(r).is_err(), "{r}");
        }
    }
}
