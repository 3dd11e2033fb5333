//! Versions and the two range grammars OLM uses.
//!
//! Input: version and range text from a File-Based Catalog (`olm.package` versions,
//! `skipRange`) or from `platform-operators.yaml` (`version`). Output: [`semver::Version`]s,
//! an ordering, and range predicates. Source of truth: `reference/catalogs-and-conversion.md`
//! §3 (range grammars, with a table measured on the real Go libraries) and §4.3 (ordering).
//!
//! OLM reads ranges with two unrelated Go libraries, and they disagree on almost everything:
//!
//! | | [`blang`] (blang/semver v4.0.0 `ParseRange`) | [`masterminds`] (Masterminds/semver v3.5 `NewConstraint`) |
//! |---|---|---|
//! | used for | FBC `skipRange`, OLM v0 `versionRange` | OLM v1 `ClusterExtension` `version` |
//! | AND | space | space and/or comma |
//! | OR | ` \|\| ` (spaces required) | `\|\|` |
//! | partial `1.2` | error | wildcard `1.2.x` |
//! | `~`, `^`, `a - b` | error / silently wrong | supported |
//! | prereleases | plain precedence | only with a prerelease in the same AND group |
//!
//! Surprising corners, all copied on purpose and tested in the submodules:
//! - blang drops one-character tokens (`"<2.0.0 | >=3.0.0"` is an AND), expands `1.x.x` to
//!   `>=1.0.0 <1.1.0`, and makes `!=1.2.x` always false.
//! - Masterminds matches `=1.2.3` against `1.2.3+anything`, reads `>1.2` as `>=1.3.0`, and
//!   rejects ranges over 512 bytes or with more than 32 `||` groups.
//! - Both compare by SemVer precedence ([`semver::Version::cmp_precedence`]), never by
//!   `Ord` (which counts build metadata).

/// `check`, `err` and `assert_matches` over the `Range` of the test module it is expanded in;
/// both grammars' tests share them.
#[cfg(test)]
macro_rules! range_test_helpers {
    () => {
        #[track_caller]
        fn check(range: &str, version: &str) -> bool {
            let parsed =
                Range::parse(range).unwrap_or_else(|e| panic!("{range:?} should parse:\n{e}"));
            parsed.matches(&Version::parse(version).unwrap())
        }

        #[track_caller]
        fn err(range: &str) -> RangeParseError {
            match Range::parse(range) {
                Ok(_) => panic!("{range:?} should not parse"),
                Err(e) => e,
            }
        }

        #[track_caller]
        #[allow(dead_code)]
        fn assert_matches(range: &str, yes: &[&str], no: &[&str]) {
            for v in yes {
                assert!(check(range, v), "{range:?} should match {v}");
            }
            for v in no {
                assert!(!check(range, v), "{range:?} should not match {v}");
            }
        }
    };
}

pub mod blang;
mod error;
pub mod masterminds;

use std::cmp::Ordering;

pub use error::{Grammar, RangeParseError, VersionParseError};

/// Parse a bundle version strictly (`X.Y.Z[-pre][+build]`, no `v`, no leading zeros, no
/// partial versions), as blang `Parse` does.
///
/// Like blang, a numeric prerelease identifier must fit in 64 bits.
pub fn parse_bundle_version(text: &str) -> Result<semver::Version, VersionParseError> {
    parse_strict(text).map_err(|problem| VersionParseError::new(text, problem))
}

/// blang v4.0.0 `Parse`: `semver::Version::parse` accepts exactly the same strings, except
/// that blang also parses numeric prerelease identifiers into a `uint64`.
pub(crate) fn parse_strict(text: &str) -> Result<semver::Version, String> {
    let version = semver::Version::parse(text).map_err(|e| e.to_string())?;
    if !version.pre.is_empty() {
        for id in version.pre.as_str().split('.') {
            if id.bytes().all(|b| b.is_ascii_digit()) && id.parse::<u64>().is_err() {
                return Err(format!(
                    "prerelease identifier {id} does not fit in a 64-bit number"
                ));
            }
        }
    }
    Ok(version)
}

/// blang v4.0.0 `ParseTolerant`, which OLM v0 reads a bundle's version with (its cache
/// entries, `newOperatorFromBundle`) and `semver_compare` its arguments: surrounding spaces and
/// one leading `v` are dropped, leading zeros are cut from each of the first three dot-separated
/// parts, and a version of one or two parts is filled up with `.0` (unless its last part has
/// prerelease or build metadata); what is left must then parse strictly.
pub fn parse_tolerant(text: &str) -> Result<semver::Version, String> {
    let text = text.trim();
    let text = text.strip_prefix('v').unwrap_or(text);
    let mut parts: Vec<String> = text.splitn(3, '.').map(str::to_owned).collect();
    for part in &mut parts {
        if part.len() > 1 {
            let trimmed = part.trim_start_matches('0');
            *part = if trimmed.is_empty() || !trimmed.as_bytes()[0].is_ascii_digit() {
                format!("0{trimmed}")
            } else {
                trimmed.to_owned()
            };
        }
    }
    if parts.len() < 3 {
        if parts.last().is_some_and(|p| p.contains(['+', '-'])) {
            return Err("Short version cannot contain PreRelease/Build meta data".into());
        }
        while parts.len() < 3 {
            parts.push("0".into());
        }
    }
    parse_strict(&parts.join("."))
}

/// OLM v1 bundle order (`reference` §4.3): SemVer precedence on `major.minor.patch-pre`, then
/// build metadata read as a "release".
///
/// A release is build metadata of at most 20 characters made of valid prerelease identifiers
/// (no leading zeros in numeric ones). Releases compare with prerelease rules (`+10 > +2`,
/// alphanumerics above numbers), and any release sorts above no release:
/// `1.0.0+2 > 1.0.0+1 > 1.0.0`. Build metadata that is not a valid release counts as no
/// release, so `1.0.0+001` and `1.0.0` are equal here.
pub fn cmp_olm(a: &semver::Version, b: &semver::Version) -> Ordering {
    a.cmp_precedence(b)
        .then_with(|| release(&a.build).cmp(&release(&b.build)))
}

/// The longest release operator-controller accepts.
const MAX_RELEASE_LEN: usize = 20;

/// Build metadata read as a release, if it is a valid one.
fn release(build: &semver::BuildMetadata) -> Option<semver::Prerelease> {
    let text = build.as_str();
    if text.is_empty() || text.len() > MAX_RELEASE_LEN {
        return None;
    }
    // Prerelease parsing enforces exactly the release rules: non-empty identifiers of
    // [0-9A-Za-z-], numeric ones without leading zeros.
    semver::Prerelease::new(text).ok()
}

#[cfg(test)]
mod tests {
    fn v(text: &str) -> semver::Version {
        semver::Version::parse(text).unwrap()
    }

    mod parse_bundle_version {
        use super::super::*;

        #[test]
        fn accepts_full_versions() {
            let parsed = parse_bundle_version("1.42.0-5+0.1687199951.p").unwrap();
            assert_eq!(parsed.to_string(), "1.42.0-5+0.1687199951.p");
            assert!(parse_bundle_version("0.0.0").is_ok());
            // Leading zeros are fine in build metadata (blang accepts them too).
            assert!(parse_bundle_version("1.0.0+001").is_ok());
        }

        #[test]
        fn rejects_what_blang_parse_rejects() {
            for text in [
                "",
                "v1.2.3",
                "1.2",
                "1",
                "01.2.3",
                "1.02.3",
                "1.2.03",
                "1.2.3-01",
                "1.2.3-",
                "1.2.3+",
                "1.2.3-a..b",
                " 1.2.3",
                "1.2.3 ",
                "=1.2.3",
                "1.2.x",
                "1.2.3+a+b",
                "18446744073709551616.0.0",
                "1.0.0-18446744073709551616",
            ] {
                assert!(parse_bundle_version(text).is_err(), "{text:?} should fail");
            }
        }

        #[test]
        fn error_says_what_is_wrong() {
            let err = parse_bundle_version("v1.2.3").unwrap_err();
            assert_eq!(err.input(), "v1.2.3");
            assert_eq!(
                err.to_string(),
                "invalid version \"v1.2.3\": unexpected character 'v' while parsing major version number"
            );
            let err = parse_bundle_version("1.0.0-18446744073709551616").unwrap_err();
            assert_eq!(
                err.to_string(),
                "invalid version \"1.0.0-18446744073709551616\": prerelease identifier \
                 18446744073709551616 does not fit in a 64-bit number"
            );
        }
    }

    mod parse_tolerant {
        use super::super::*;

        #[test]
        fn fills_trims_and_strips_as_blang_does() {
            for (text, want) in [
                ("1.2.3", "1.2.3"),
                ("v1.2.3", "1.2.3"),
                (" v1.2 ", "1.2.0"),
                ("1", "1.0.0"),
                ("01.002.0003", "1.2.3"),
                ("1.0.0-rc.1+b", "1.0.0-rc.1+b"),
                ("00.0.0", "0.0.0"),
            ] {
                assert_eq!(parse_tolerant(text).unwrap().to_string(), want, "{text:?}");
            }
        }

        #[test]
        fn refuses_what_blang_refuses() {
            for text in ["", "v", "1.2-rc", "1+b", "vv1.0.0", "1.2.3.4", "a.b.c"] {
                assert!(parse_tolerant(text).is_err(), "{text:?} should fail");
            }
            // The third part loses its leading zeros as a whole, prerelease and all.
            assert_eq!(parse_tolerant("1.2.03-x").unwrap().to_string(), "1.2.3-x");
        }
    }

    mod cmp_olm {
        use super::super::*;
        use super::v;
        use std::cmp::Ordering::*;

        #[test]
        fn build_metadata_is_a_release() {
            // reference §4.3: 1.0.0+2 > 1.0.0+1 > 1.0.0
            assert_eq!(cmp_olm(&v("1.0.0+2"), &v("1.0.0+1")), Greater);
            assert_eq!(cmp_olm(&v("1.0.0+1"), &v("1.0.0")), Greater);
            assert_eq!(cmp_olm(&v("1.0.0"), &v("1.0.0+1")), Less);
        }

        #[test]
        fn releases_compare_like_prereleases() {
            assert_eq!(cmp_olm(&v("1.0.0+10"), &v("1.0.0+2")), Greater);
            assert_eq!(cmp_olm(&v("1.0.0+a"), &v("1.0.0+99")), Greater);
            assert_eq!(cmp_olm(&v("1.0.0+1.1"), &v("1.0.0+1")), Greater);
            assert_eq!(cmp_olm(&v("1.0.0+beta"), &v("1.0.0+alpha")), Greater);
        }

        #[test]
        fn precedence_comes_first() {
            assert_eq!(cmp_olm(&v("1.0.1"), &v("1.0.0+99")), Greater);
            assert_eq!(cmp_olm(&v("1.0.0"), &v("1.0.0-rc.1+99")), Greater);
            assert_eq!(cmp_olm(&v("1.0.0-rc.2"), &v("1.0.0-rc.1+5")), Greater);
        }

        #[test]
        fn real_catalog_versions() {
            // jaeger-product in oc-mirror's test data: 1.42.0-5+0.1687199951.p
            let with_release = v("1.42.0-5+0.1687199951.p");
            assert_eq!(cmp_olm(&with_release, &v("1.42.0-5")), Greater);
            assert_eq!(
                cmp_olm(&with_release, &v("1.42.0-5+0.1687199950.p")),
                Greater
            );
            assert_eq!(cmp_olm(&with_release, &v("1.42.0-6")), Less);
            assert_eq!(cmp_olm(&with_release, &v("1.47.1-5")), Less);
            assert_eq!(cmp_olm(&with_release, &v("1.34.1-5")), Greater);
            let mut versions = [
                v("1.42.0-5"),
                v("1.51.0-1"),
                with_release.clone(),
                v("1.30.2"),
                v("1.34.1-5"),
            ];
            versions.sort_by(cmp_olm);
            let sorted: Vec<String> = versions.iter().map(ToString::to_string).collect();
            assert_eq!(
                sorted,
                [
                    "1.30.2",
                    "1.34.1-5",
                    "1.42.0-5",
                    "1.42.0-5+0.1687199951.p",
                    "1.51.0-1"
                ]
            );
        }

        #[test]
        fn invalid_release_stays_build() {
            // Leading zero: not a release, so equal to no build at all.
            assert_eq!(cmp_olm(&v("1.0.0+001"), &v("1.0.0")), Equal);
            assert_eq!(cmp_olm(&v("1.0.0+001"), &v("1.0.0+1")), Less);
            // Longer than 20 characters.
            assert_eq!(
                cmp_olm(&v("1.0.0+123456789012345678901"), &v("1.0.0")),
                Equal
            );
            assert_eq!(
                cmp_olm(&v("1.0.0+12345678901234567890"), &v("1.0.0")),
                Greater
            );
            // Two invalid releases tie even though their text differs.
            assert_eq!(cmp_olm(&v("1.0.0+01"), &v("1.0.0+02")), Equal);
        }
    }
}

#[cfg(test)]
mod proptests;
