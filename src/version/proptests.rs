//! Property tests across both range grammars and the version helpers.

use proptest::prelude::*;
use semver::Version;

use super::{blang, cmp_olm, masterminds, parse_bundle_version};

/// Small numbers so that generated versions often collide; identifiers without `x`, which
/// would trigger blang's wildcard expansion.
fn version() -> impl Strategy<Value = Version> {
    let pre = prop::sample::select(vec![
        "", "0", "1", "2", "10", "alpha", "alpha.1", "beta", "rc.1", "a-b",
    ]);
    let build = prop::sample::select(vec!["", "1", "build.7", "001"]);
    (0u64..3, 0u64..3, 0u64..3, pre, build).prop_map(|(major, minor, patch, pre, build)| {
        let mut text = format!("{major}.{minor}.{patch}");
        if !pre.is_empty() {
            text.push('-');
            text.push_str(pre);
        }
        if !build.is_empty() {
            text.push('+');
            text.push_str(build);
        }
        Version::parse(&text).unwrap()
    })
}

fn release() -> impl Strategy<Value = Version> {
    version().prop_map(|mut v| {
        v.pre = semver::Prerelease::EMPTY;
        v
    })
}

/// Text made mostly of range syntax, so that the parsers get past their first check.
fn rangeish() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9xX*.|<>=!~^, v+\\-abc\t\n]{0,40}",
        any::<String>(),
        "[0-9.|<>= \\-]{400,600}",
        "(1\\|\\|){20,40}",
        "[ -~é≥\u{0b}\u{85}]{0,30}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn parsers_never_panic(text in rangeish(), v in version()) {
        match masterminds::Range::parse(&text) {
            Ok(range) => {
                let _ = range.matches(&v);
                prop_assert_eq!(range.to_string(), text.clone());
            }
            Err(e) => {
                let _ = e.to_string();
                prop_assert!(e.span().end <= text.len());
                prop_assert_eq!(e.input(), text.as_str());
            }
        }
        match blang::Range::parse(&text) {
            Ok(range) => {
                let _ = range.matches(&v);
                prop_assert_eq!(range.to_string(), text.clone());
            }
            Err(e) => {
                let _ = e.to_string();
                prop_assert!(e.span().end <= text.len());
            }
        }
        if let Err(e) = parse_bundle_version(&text) {
            let _ = e.to_string();
        }
    }

    #[test]
    fn half_open_range_is_precedence(a in version(), b in version(), v in version()) {
        let inside = v.cmp_precedence(&a).is_ge() && v.cmp_precedence(&b).is_lt();
        let range = format!(">={a} <{b}");
        // blang: plain precedence, prereleases included.
        prop_assert_eq!(blang::Range::parse(&range).unwrap().matches(&v), inside);
        // Masterminds: the same, except that a prerelease needs a prerelease in the group.
        let admits_pre = v.pre.is_empty() || !a.pre.is_empty() || !b.pre.is_empty();
        prop_assert_eq!(
            masterminds::Range::parse(&range).unwrap().matches(&v),
            inside && admits_pre
        );
    }

    #[test]
    fn hyphen_range_is_inclusive_and(a in version(), b in version(), v in version()) {
        let hyphen = masterminds::Range::parse(&format!("{a} - {b}")).unwrap();
        let explicit = masterminds::Range::parse(&format!(">={a}, <={b}")).unwrap();
        prop_assert_eq!(hyphen.matches(&v), explicit.matches(&v));
    }

    #[test]
    fn equal_is_equal_precedence(a in version(), v in version()) {
        let same = v.cmp_precedence(&a).is_eq();
        prop_assert_eq!(masterminds::Range::parse(&format!("={a}")).unwrap().matches(&v), same);
        prop_assert_eq!(masterminds::Range::parse(&a.to_string()).unwrap().matches(&v), same);
        prop_assert_eq!(blang::Range::parse(&format!("={a}")).unwrap().matches(&v), same);
        prop_assert_eq!(blang::Range::parse(&format!("=={a}")).unwrap().matches(&v), same);
    }

    #[test]
    fn grammars_agree_on_release_ranges(a in release(), b in release(), v in release()) {
        let range = format!(">={a} <{b}");
        prop_assert_eq!(
            blang::Range::parse(&range).unwrap().matches(&v),
            masterminds::Range::parse(&range).unwrap().matches(&v)
        );
    }

    #[test]
    fn bundle_versions_round_trip(v in version()) {
        prop_assert_eq!(parse_bundle_version(&v.to_string()).unwrap(), v);
    }

    #[test]
    fn cmp_olm_is_antisymmetric_and_refines_precedence(a in version(), b in version()) {
        prop_assert_eq!(cmp_olm(&a, &b), cmp_olm(&b, &a).reverse());
        let precedence = a.cmp_precedence(&b);
        if precedence.is_ne() {
            prop_assert_eq!(cmp_olm(&a, &b), precedence);
        }
    }
}
