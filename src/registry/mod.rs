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
//! * Every answer is bounded: a manifest at [`manifest::MAX_MANIFEST_BYTES`] (4 MiB, as registries and
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
//!   rule's `source` matches it ([`reference::source_matches`]); `mirror` and `check`, above,
//!   read both.
//!
//! Its files, one job each: [`reference`](mod@reference) (image references and digests),
//! [`location`] (mirror rules and where to pull from), [`puller`] (cache, layouts, registries;
//! unpacking into the cache), [`manifest`] (manifests, indexes, platform choice, digest checks),
//! [`layout`] (OCI layouts on disk), [`distribution`] (a registry's API with retries and backoff),
//! [`token`] and [`auth`] (authentication and credentials), [`layer`] (safe unpacking of one layer)
//! and [`error`] (every way a pull fails, with its hint).
//!
//! Source of truth for the bundle layout: `reference/catalogs-and-conversion.md` §2.2 and §5.1.

pub mod auth;
pub mod distribution;
pub mod error;
pub mod layer;
pub mod layout;
pub mod location;
pub mod manifest;
pub mod puller;
pub mod reference;
pub mod token;

pub use auth::Credentials;
pub use error::Error;
pub use layer::Limits;
pub use location::{MirrorRule, covering_rule, mirror_rules};
pub use puller::{Puller, Settings, Unpacked};
pub use reference::{ImageRef, source_matches, split_domain};
