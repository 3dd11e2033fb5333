//! Digest pins for bundle images given by tag only. A PlatformOperator's BundleDeployment pins
//! what the cluster unpacks, so the catalog's `repo:tag` is resolved to `repo@sha256:…` through
//! `--oci-layout` or the registry (its mirrors first). When that cannot be done (offline, or the
//! registry refuses), the image is refused unless `--allow-tags`, and then the lock says it is
//! not a pin.

use crate::registry::ImageRef;
use crate::registry::Puller;

/// A bundle image as it is written into the manifests and the lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinnedImage {
    /// The reference written: by digest whenever the digest is known.
    pub image: String,
    /// Set when `image` is still a tag: the lock's note that it is not a pin.
    pub not_a_pin: Option<String>,
}

/// `repo:tag` → `repo@digest` (any tag dropped); a digest reference is kept as written.
pub fn with_digest(image: &str, digest: &str) -> String {
    let name = image.split('@').next().unwrap_or(image);
    // A tag follows the last `:` after the last `/` (a `:` before it is a registry port).
    let name = match name.rfind(':') {
        Some(i) if !name[i..].contains('/') => &name[..i],
        _ => name,
    };
    format!("{name}@{digest}")
}

/// Pin `image` by digest when it has only a tag.
pub fn bundle_image(puller: &Puller, image: &str, allow_tags: bool) -> Result<PinnedImage, String> {
    match ImageRef::parse(image) {
        Ok(r) if r.digest.is_some() => {
            return Ok(PinnedImage {
                image: image.to_string(),
                not_a_pin: None,
            });
        }
        Ok(_) => {}
        Err(e) => {
            return Err(format!(
                "bundle image {image:?} is not a valid reference: {e}"
            ));
        }
    }
    match puller.resolve_digest(image) {
        Ok(digest) => Ok(PinnedImage {
            image: with_digest(image, &digest),
            not_a_pin: None,
        }),
        Err(_) if allow_tags => Ok(PinnedImage {
            image: image.to_string(),
            not_a_pin: Some(
                "the catalog gives this bundle image by tag only and its digest could not be looked up; a tag can be moved, so this is not a pin".into(),
            ),
        }),
        Err(e) => Err(format!(
            "bundle image {image} is given by tag only, and a BundleDeployment must pin it by digest, but the digest could not be looked up: {}",
            crate::error_chain(&e)
        )),
    }
}

/// A bundle image as the lock records it for an operator whose objects do not pin it (a
/// ClusterExtension, a Subscription, a bootstrap operator's own objects): as the catalog gives
/// it, marked not a pin when that is a tag. No digest is looked up, since the cluster (or the
/// conversion, for a bootstrap operator) reads the reference the catalog gives.
pub fn unpinned_bundle_image(image: &str) -> PinnedImage {
    let by_digest = ImageRef::parse(image).is_ok_and(|r| r.digest.is_some());
    PinnedImage {
        image: image.to_string(),
        not_a_pin: (!image.is_empty() && !by_digest).then(|| NOT_PINNED_BY_OLM.to_string()),
    }
}

/// The lock's note for a tag-only bundle image of an operator whose objects do not pin it.
pub const NOT_PINNED_BY_OLM: &str = "the catalog gives this bundle image by tag only, and only a PlatformOperator's BundleDeployment pins a digest; a tag can be moved, so this is not a pin";

/// A bundle image as `images` and `mirror-config` report it: by digest when it can be looked
/// up. `pins` says whether `create` pins this operator's image (a PlatformOperator's
/// BundleDeployment); only then is a tag that cannot be looked up refused without `allow_tags`,
/// as `create` refuses it. Any other tag that stays a tag is noted as not a pin.
pub fn reported_bundle_image(
    puller: &Puller,
    operator: &str,
    image: &str,
    pins: bool,
    allow_tags: bool,
) -> Result<PinnedImage, String> {
    bundle_image(puller, image, allow_tags || !pins)
        .map_err(|m| format!("operator \"{operator}\": {m}"))
}

/// The hint for a refused tag.
pub const TAG_HINT: &str = "make the registry reachable (or give --oci-layout with the image), or pass --allow-tags to write the tag, which the lock then records as not a pin";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unpinned_tag_is_marked_and_a_digest_is_not() {
        let tag = unpinned_bundle_image("quay.io/acme/op-bundle:1.2.0");
        assert_eq!(tag.image, "quay.io/acme/op-bundle:1.2.0");
        assert_eq!(tag.not_a_pin.as_deref(), Some(NOT_PINNED_BY_OLM));
        let digest = format!("quay.io/acme/op-bundle@sha256:{}", "a".repeat(64));
        assert_eq!(unpinned_bundle_image(&digest).not_a_pin, None);
        assert_eq!(unpinned_bundle_image("").not_a_pin, None);
    }

    #[test]
    fn with_digest_drops_the_tag_and_keeps_a_port() {
        let d = "sha256:0123";
        assert_eq!(
            with_digest("quay.io/ns/coherence-operator:3.5.7", d),
            "quay.io/ns/coherence-operator@sha256:0123"
        );
        assert_eq!(
            with_digest("registry.local:5000/ns/trident-operator:26.2.1", d),
            "registry.local:5000/ns/trident-operator@sha256:0123"
        );
        assert_eq!(
            with_digest("registry.local:5000/ns/op", d),
            "registry.local:5000/ns/op@sha256:0123"
        );
    }
}
