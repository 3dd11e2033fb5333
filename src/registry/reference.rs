//! Image references: a reference parsed and normalised as `ParseNormalizedNamed` does it (over
//! [`crate::catalog::image`]'s grammar), how a mirror rule's `source` matches one by whole path
//! components, and the one check of a `sha256:` digest that every blob path goes through.

use crate::catalog::image::{ImageRefError, check_reference};

use super::error::{Attempt, Error, ErrorKind};

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

/// `image` parsed, or the error a pull or lookup of it reports.
pub(super) fn parse_reference(image: &str) -> Result<ImageRef, Error> {
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

#[cfg(test)]
mod tests {
    use super::*;

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

    const D: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn digests() {
        assert!(sha256_hex(D).is_some());
        assert!(sha256_hex("sha256:../../etc").is_none());
        assert!(sha256_hex(&D.to_uppercase()).is_none());
    }
}
