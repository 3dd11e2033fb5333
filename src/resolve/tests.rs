//! Resolution rules on small in-memory catalogs.

use super::*;
use crate::catalog::model::{Channel, ChannelEntry, Origin, Property};

/// A bundle: version, channels, extra properties `(type, json)`.
fn bundle(pkg: &str, version: &str, channels: &[&str], props: &[(&str, &str)]) -> Bundle {
    let mut properties = vec![Property {
        ty: "olm.package".into(),
        value: crate::catalog::property::PropertyValue::json(&format!(
            r#"{{"packageName":"{pkg}","version":"{version}"}}"#
        ))
        .unwrap(),
    }];
    properties.extend(props.iter().map(|(t, v)| Property {
        ty: t.to_string(),
        value: crate::catalog::property::PropertyValue::json(v).unwrap(),
    }));
    Bundle {
        name: format!("{pkg}.v{version}"),
        package: pkg.into(),
        image: format!("quay.io/x/{pkg}-bundle:v{version}"),
        version_text: version.into(),
        release: None,
        version: crate::version::parse_bundle_version(version).ok(),
        properties,
        related_images: vec![],
        channels: channels.iter().map(|c| c.to_string()).collect(),
        deprecation: None,
        origin: Origin::default(),
        csv: Default::default(),
    }
}

fn package(name: &str, mut bundles: Vec<Bundle>) -> Package {
    bundles.sort_by(|a, b| a.name.cmp(&b.name));
    let mut channel_names: Vec<String> = bundles.iter().flat_map(|b| b.channels.clone()).collect();
    channel_names.sort();
    channel_names.dedup();
    let channels = channel_names
        .iter()
        .map(|c| Channel {
            name: c.clone(),
            entries: bundles
                .iter()
                .filter(|b| b.channels.contains(c))
                .map(|b| ChannelEntry {
                    name: b.name.clone(),
                    ..Default::default()
                })
                .collect(),
            deprecation: None,
            origin: Origin::default(),
        })
        .collect();
    Package {
        name: name.into(),
        default_channel: "stable".into(),
        channels,
        bundles,
        ..Default::default()
    }
}

fn catalog(name: &str, priority: i32, packages: Vec<Package>) -> LoadedCatalog {
    let mut packages = packages;
    packages.sort_by(|a, b| a.name.cmp(&b.name));
    LoadedCatalog {
        name: name.into(),
        priority,
        image: None,
        location: format!("/catalogs/{name}"),
        catalog: Catalog {
            packages,
            others_count: 0,
            skipped_packages: vec![],
            ..Catalog::default()
        },
    }
}

fn cert_manager() -> Package {
    package(
        "cert-manager",
        vec![
            bundle("cert-manager", "1.10.0", &["stable"], &[]),
            bundle("cert-manager", "1.11.2", &["stable"], &[]),
            bundle("cert-manager", "1.12.1", &["stable"], &[]),
            bundle("cert-manager", "1.13.0", &["tech-preview"], &[]),
            bundle(
                "cert-manager",
                "1.14.0",
                &["stable"],
                &[("olm.maxOpenShiftVersion", "\"4.13\"")],
            ),
        ],
    )
}

fn cluster(v: &str) -> Cluster {
    Cluster {
        version: Some(ClusterVersion::parse(v).unwrap()),
    }
}

fn req<'a>(
    channels: &'a [String],
    range: Option<(&'a str, &'a masterminds::Range)>,
) -> Request<'a> {
    Request {
        package: "cert-manager",
        channels,
        range,
        catalog: None,
    }
}

#[test]
fn highest_version_in_all_channels_wins_without_filters() {
    let cats = [catalog("c", 0, vec![cert_manager()])];
    let r = resolve(&req(&[], None), &cats, &Cluster::default()).unwrap();
    assert_eq!(r.bundle.version_text, "1.14.0");
    assert!(r.warnings.iter().any(|w| w.0.contains("no clusterVersion")));
}

/// The release a capped bundle blocks comes from the release table: 4.23 and 5.0 are
/// co-released and both upgrade to 5.1 only (cluster-olm-operator release-5.0
/// `versionutils.NextOCPMinorVersion`, `IsOperatorMaxOCPVersionCompatibleWithCluster`).
#[test]
fn max_openshift_version_warning_names_the_next_release() {
    let capped = |max: &str| {
        package(
            "cert-manager",
            vec![bundle(
                "cert-manager",
                "1.14.0",
                &["stable"],
                &[("olm.maxOpenShiftVersion", max)],
            )],
        )
    };
    let warning = |max: &str, v: &str| {
        let cats = [catalog("c", 0, vec![capped(max)])];
        let r = resolve(&req(&[], None), &cats, &cluster(v)).unwrap();
        r.warnings
            .iter()
            .find(|w| w.0.contains("will block the upgrade"))
            .map(|w| w.0.clone())
    };
    assert!(
        warning("\"4.22\"", "4.22.1")
            .unwrap()
            .ends_with("upgrade to 4.23")
    );
    assert!(
        warning("\"4.23\"", "4.23.0")
            .unwrap()
            .ends_with("upgrade to 5.1")
    );
    // 5.0 is 4.23's equal: a bundle capped at 5.0 still blocks a 4.23 cluster.
    assert!(
        warning("\"5.0\"", "4.23.0")
            .unwrap()
            .ends_with("upgrade to 5.1")
    );
    assert!(
        warning("\"5.0\"", "5.0.2")
            .unwrap()
            .ends_with("upgrade to 5.1")
    );
    assert!(
        warning("\"5.1\"", "5.1")
            .unwrap()
            .ends_with("upgrade to 5.2")
    );
    assert_eq!(warning("\"5.1\"", "4.23"), None);
    assert_eq!(warning("\"4.23\"", "4.22"), None);
}

#[test]
fn max_openshift_version_below_target_is_rejected() {
    let cats = [catalog("c", 0, vec![cert_manager()])];
    let r = resolve(&req(&[], None), &cats, &cluster("4.14.8")).unwrap();
    assert_eq!(r.bundle.version_text, "1.13.0");
    let rejected = r.candidates.iter().find(|c| c.version == "1.14.0").unwrap();
    assert_eq!(
        rejected.verdict,
        Verdict::Rejected(Rejection::MaxOpenShiftVersion {
            max: "4.13".into(),
            cluster: "4.14.8".into()
        })
    );
}

#[test]
fn max_openshift_version_equal_to_target_warns() {
    let cats = [catalog("c", 0, vec![cert_manager()])];
    let r = resolve(&req(&[], None), &cats, &cluster("4.13.2")).unwrap();
    assert_eq!(r.bundle.version_text, "1.14.0");
    assert!(
        r.warnings
            .iter()
            .any(|w| w.0.contains("block the upgrade to 4.14")),
        "{:?}",
        r.warnings
    );
}

#[test]
fn channel_and_range_filter() {
    let cats = [catalog("c", 0, vec![cert_manager()])];
    let channels = vec!["stable".to_string()];
    let range = masterminds::Range::parse(">=1.11.0 <1.14.0").unwrap();
    let r = resolve(
        &req(&channels, Some((">=1.11.0 <1.14.0", &range))),
        &cats,
        &cluster("4.14"),
    )
    .unwrap();
    assert_eq!(r.bundle.version_text, "1.12.1");
    let verdict = |v: &str| {
        r.candidates
            .iter()
            .find(|c| c.version == v)
            .unwrap()
            .verdict
            .clone()
    };
    assert_eq!(
        verdict("1.13.0"),
        Verdict::Rejected(Rejection::NotInChannel {
            requested: channels.clone()
        })
    );
    assert_eq!(
        verdict("1.11.2"),
        Verdict::Rejected(Rejection::Outranked {
            by: "cert-manager.v1.12.1".into()
        })
    );
    assert_eq!(
        verdict("1.10.0"),
        Verdict::Rejected(Rejection::OutsideRange {
            range: ">=1.11.0 <1.14.0".into()
        })
    );
}

#[test]
fn no_candidate_keeps_the_table_and_hints_at_the_other_channel() {
    let cats = [catalog("c", 0, vec![cert_manager()])];
    let channels = vec!["stable".to_string()];
    let range = masterminds::Range::parse(">=1.13.0 <1.14.0").unwrap();
    let e = resolve(
        &req(&channels, Some((">=1.13.0 <1.14.0", &range))),
        &cats,
        &cluster("4.14"),
    )
    .unwrap_err();
    let Error::NoCandidate {
        candidates, hints, ..
    } = &e
    else {
        panic!("{e}")
    };
    assert_eq!(candidates.len(), 5);
    assert!(
        hints
            .iter()
            .any(|h| h.contains("1.13.0") && h.contains("only in channel tech-preview")),
        "{hints:?}"
    );
}

#[test]
fn unknown_channel_is_named_with_the_existing_ones() {
    let cats = [catalog("c", 0, vec![cert_manager()])];
    let channels = vec!["stabel".to_string()];
    let e = resolve(&req(&channels, None), &cats, &cluster("4.14")).unwrap_err();
    let Error::NoCandidate { hints, .. } = &e else {
        panic!()
    };
    assert!(
        hints[0].contains("no channel \"stabel\"; its channels are: stable, tech-preview"),
        "{hints:?}"
    );
}

#[test]
fn unknown_package_suggests_close_names() {
    let cats = [catalog("c", 0, vec![cert_manager()])];
    let e = resolve(
        &Request {
            package: "cert-manger",
            channels: &[],
            range: None,
            catalog: None,
        },
        &cats,
        &cluster("4.14"),
    )
    .unwrap_err();
    let Error::UnknownPackage { suggestions, .. } = &e else {
        panic!()
    };
    assert_eq!(suggestions, &["cert-manager"]);
    assert_eq!(
        e.to_string(),
        "package \"cert-manger\" is not in catalog \"c\""
    );
}

#[test]
fn deprecated_bundles_sort_last() {
    let mut p = cert_manager();
    for b in &mut p.bundles {
        if b.version_text == "1.13.0" || b.version_text == "1.14.0" {
            b.deprecation = Some("use 1.12".into());
        }
    }
    let cats = [catalog("c", 0, vec![p])];
    let r = resolve(&req(&[], None), &cats, &cluster("4.14")).unwrap();
    assert_eq!(r.bundle.version_text, "1.12.1");
}

#[test]
fn priority_breaks_ties_across_catalogs_and_equal_priority_is_an_error() {
    let cats = [
        catalog("low", 0, vec![cert_manager()]),
        catalog("high", 10, vec![cert_manager()]),
    ];
    let r = resolve(&req(&[], None), &cats, &cluster("4.14")).unwrap();
    assert_eq!(r.catalog.name, "high");
    assert!(r.candidates.iter().any(|c| c.verdict
        == Verdict::Rejected(Rejection::OtherCatalog {
            catalog: "high".into()
        })));
    let tied = [
        catalog("a", 1, vec![cert_manager()]),
        catalog("b", 1, vec![cert_manager()]),
    ];
    assert!(matches!(
        resolve(&req(&[], None), &tied, &cluster("4.14")),
        Err(Error::Ambiguous { .. })
    ));
}

#[test]
fn a_non_deprecated_pick_beats_a_higher_priority_deprecated_one() {
    let mut deprecated = cert_manager();
    for b in &mut deprecated.bundles {
        b.deprecation = Some("gone".into());
    }
    let cats = [
        catalog("old", 100, vec![deprecated]),
        catalog("new", 0, vec![cert_manager()]),
    ];
    assert_eq!(
        resolve(&req(&[], None), &cats, &cluster("4.14"))
            .unwrap()
            .catalog
            .name,
        "new"
    );
}

#[test]
fn min_kube_version_above_the_cluster_is_rejected() {
    let p = package(
        "cert-manager",
        vec![
            bundle(
                "cert-manager",
                "2.0.0",
                &["stable"],
                &[("olm.csv.metadata", r#"{"minKubeVersion":"1.29.0"}"#)],
            ),
            bundle(
                "cert-manager",
                "1.0.0",
                &["stable"],
                &[("olm.csv.metadata", r#"{"minKubeVersion":"1.27.0"}"#)],
            ),
        ],
    );
    let cats = [catalog("c", 0, vec![p])];
    let r = resolve(&req(&[], None), &cats, &cluster("4.14")).unwrap();
    assert_eq!(r.bundle.version_text, "1.0.0");
    assert!(r.candidates.iter().any(|c| c.verdict
        == Verdict::Rejected(Rejection::MinKubeVersion {
            min: "1.29.0".into(),
            cluster: "1.27".into()
        })));
}

#[test]
fn invalid_versions_are_rejected_not_fatal() {
    let mut p = cert_manager();
    p.bundles[0].version = None;
    p.bundles[0].version_text = "v1".into();
    let cats = [catalog("c", 0, vec![p])];
    let r = resolve(&req(&[], None), &cats, &cluster("4.14")).unwrap();
    assert!(r.candidates.iter().any(|c| matches!(
        c.verdict,
        Verdict::Rejected(Rejection::UnparsableRankedLast { .. })
    )));
}

/// A catalog with one bundle whose `olm.package` version does not parse (`v1.7.0`), resolved
/// as operator-controller `resolve/catalog.go` does: `InSemverRange` is false for it,
/// `compare.ByVersionAndRelease` sorts it last, and only when it is the pick does
/// resolution fail, with "error getting resolved bundle version for bundle …". Upgrades use
/// `SuccessorsOf`: the broken bundle can be a successor by `replaces`, never the installed
/// version (`ExactVersionRelease`).
mod broken_bundle {
    use super::*;
    use crate::resolve::installed::{Installed, resolve_installed};
    use crate::resolve::testcat::{Fbc, entry};

    /// stable: op.v1.0.0 ← op.v1.1.0 ← op.v1.7.0 (version text `v1.7.0`); edge: only
    /// op.v1.7.0, which replaces op.v1.1.0.
    fn broken() -> LoadedCatalog {
        Fbc::new("op")
            .bundle("1.0.0", None)
            .bundle("1.1.0", None)
            .bundle_named("op.v1.7.0", "v1.7.0", Vec::new())
            .channel(
                "stable",
                vec![
                    entry("op.v1.0.0", None, &[], None),
                    entry("op.v1.1.0", Some("op.v1.0.0"), &[], None),
                    entry("op.v1.7.0", Some("op.v1.1.0"), &[], None),
                ],
            )
            .channel(
                "edge",
                vec![entry("op.v1.7.0", Some("op.v1.1.0"), &[], None)],
            )
            .load("c")
    }

    fn request<'a>(
        channels: &'a [String],
        range: Option<&'a (String, masterminds::Range)>,
    ) -> Request<'a> {
        Request {
            package: "op",
            channels,
            range: range.map(|(t, r)| (t.as_str(), r)),
            catalog: None,
        }
    }

    fn verdict<'a>(cands: &'a [Candidate], bundle: &str) -> &'a Verdict {
        &cands.iter().find(|c| c.bundle == bundle).unwrap().verdict
    }

    #[test]
    fn the_catalog_loads_and_keeps_the_bundle_unversioned() {
        let cat = broken();
        let b = cat.catalog.package("op").unwrap();
        let broken = b.bundles.iter().find(|b| b.name == "op.v1.7.0").unwrap();
        assert_eq!(broken.version, None);
        assert_eq!(broken.version_text, "v1.7.0");
    }

    #[test]
    fn without_a_range_it_ranks_last_and_the_highest_valid_version_wins() {
        let cats = [broken()];
        let r = resolve(&request(&[], None), &cats, &cluster("4.18")).unwrap();
        assert_eq!(r.bundle.name, "op.v1.1.0");
        assert!(matches!(
            verdict(&r.candidates, "op.v1.7.0"),
            Verdict::Rejected(Rejection::UnparsableRankedLast { by, .. }) if by == "op.v1.1.0"
        ));
        // Ranked last, so listed last.
        assert_eq!(r.candidates.last().unwrap().bundle, "op.v1.7.0");
    }

    #[test]
    fn it_never_matches_a_range() {
        let cats = [broken()];
        let range = (
            ">=1.0.0".to_string(),
            masterminds::Range::parse(">=1.0.0").unwrap(),
        );
        let r = resolve(&request(&[], Some(&range)), &cats, &cluster("4.18")).unwrap();
        assert_eq!(r.bundle.name, "op.v1.1.0");
        assert!(matches!(
            verdict(&r.candidates, "op.v1.7.0"),
            Verdict::Rejected(Rejection::InvalidVersion { reason }) if !reason.is_empty()
        ));
    }

    #[test]
    fn it_is_an_error_only_when_it_would_be_the_answer() {
        let cats = [broken()];
        let edge = ["edge".to_string()];
        let e = resolve(&request(&edge, None), &cats, &cluster("4.18")).unwrap_err();
        assert!(matches!(e, Error::UnparsableVersion { ref bundle, .. } if bundle == "op.v1.7.0"));
        assert!(
            e.to_string()
                .starts_with("error getting resolved bundle version for bundle \"op.v1.7.0\""),
            "{e}"
        );
        // With a range it is no candidate at all.
        let range = (
            ">=1.0.0".to_string(),
            masterminds::Range::parse(">=1.0.0").unwrap(),
        );
        let e = resolve(&request(&edge, Some(&range)), &cats, &cluster("4.18")).unwrap_err();
        assert!(matches!(e, Error::NoCandidate { .. }), "{e}");
    }

    #[test]
    fn one_warning_names_the_file_line_and_what_is_wrong() {
        let cats = [broken()];
        let r = resolve(&request(&[], None), &cats, &cluster("4.18")).unwrap();
        let w: Vec<&Warning> = r
            .warnings
            .iter()
            .filter(|w| w.0.contains("op.v1.7.0"))
            .collect();
        assert_eq!(w.len(), 1, "{:?}", r.warnings);
        assert!(w[0].0.contains("catalog.json:"), "{}", w[0]);
        assert!(
            w[0].0.contains("version \"v1.7.0\" does not parse"),
            "{}",
            w[0]
        );
    }

    #[test]
    fn explain_shows_it_and_why_it_was_skipped() {
        let cats = [broken()];
        let r = resolve(&request(&[], None), &cats, &cluster("4.18")).unwrap();
        let table = explain::table(&r.candidates, crate::table::Width::Full);
        let line = table.lines().find(|l| l.contains("op.v1.7.0")).unwrap();
        assert!(line.contains("v1.7.0"), "{table}");
        assert!(
            line.contains("ranked last, as its version does not parse"),
            "{table}"
        );
    }

    fn installed(version: &str) -> Installed {
        Installed {
            bundle: format!("op.v{version}"),
            version: version.parse().unwrap(),
            policy: crate::config::UpgradeConstraintPolicy::CatalogProvided,
            bound: None,
        }
    }

    #[test]
    fn upgrade_from_its_predecessor_stays_when_a_valid_candidate_remains() {
        // From 1.1.0 the candidates are 1.1.0 itself and its successor op.v1.7.0, which sorts
        // last: the cluster stays on 1.1.0.
        let cats = [broken()];
        let r = resolve_installed(
            &request(&[], None),
            &installed("1.1.0"),
            &cats,
            &cluster("4.18"),
        )
        .unwrap();
        assert_eq!(r.bundle.name, "op.v1.1.0");
        assert!(matches!(
            verdict(&r.candidates, "op.v1.7.0"),
            Verdict::Rejected(Rejection::UnparsableRankedLast { .. })
        ));
    }

    #[test]
    fn upgrade_towards_it_alone_is_the_version_error() {
        // In `edge` the only successor of 1.1.0 is the broken bundle, and 1.1.0 is not there.
        let cats = [broken()];
        let edge = ["edge".to_string()];
        let e = resolve_installed(
            &request(&edge, None),
            &installed("1.1.0"),
            &cats,
            &cluster("4.18"),
        )
        .unwrap_err();
        assert!(matches!(e, Error::UnparsableVersion { .. }), "{e}");
    }

    #[test]
    fn upgrade_from_further_back_does_not_reach_it() {
        let cats = [broken()];
        let r = resolve_installed(
            &request(&[], None),
            &installed("1.0.0"),
            &cats,
            &cluster("4.18"),
        )
        .unwrap();
        assert_eq!(r.bundle.name, "op.v1.1.0");
        assert!(matches!(
            verdict(&r.candidates, "op.v1.7.0"),
            Verdict::Rejected(Rejection::NotASuccessor { .. })
        ));
    }
}

mod check_installable {
    use super::*;

    #[test]
    fn own_namespace_only_webhooks_apiservices_and_dependencies_are_problems() {
        let b = bundle(
            "x",
            "1.0.0",
            &["stable"],
            &[
                (
                    "olm.csv.metadata",
                    r#"{"installModes":[{"type":"OwnNamespace","supported":true},{"type":"AllNamespaces","supported":false}],"apiservicedefinitions":{"owned":[{"name":"v1.x.io"}]},"webhookdefinitions":[{"type":"ValidatingAdmissionWebhook","generateName":"vx.io"}]}"#,
                ),
                (
                    "olm.gvk.required",
                    r#"{"group":"a.io","kind":"A","version":"v1"}"#,
                ),
            ],
        );
        let (problems, _) = check_installable(&b);
        let rules: Vec<&str> = problems.iter().map(|p| p.rule.as_str()).collect();
        assert_eq!(
            rules,
            ["installModes", "webhooks", "apiServices", "dependencies"]
        );
        assert!(problems[0].message.contains("supports: OwnNamespace"));
    }

    /// Issue 34 item 11: a chosen bundle's name must be a DNS-1123 subdomain, its package a
    /// label; the problem names the field and shows the name escaped.
    #[test]
    fn a_bundle_name_that_is_no_kubernetes_name_is_a_problem() {
        assert!(name_problems(&bundle("x", "1.0.0", &[], &[])).is_empty());
        let mut b = bundle("x", "1.0.0", &[], &[]);
        b.name = "x\u{1b}[2J\nv1".into();
        let p = name_problems(&b);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].rule, "bundleName");
        assert!(p[0].message.contains("field `name`") && !p[0].message.contains('\u{1b}'));
        b.name = "a".repeat(5000);
        assert!(name_problems(&b)[0].message.contains("5000 characters"));
        b.name = "x.v1".into();
        b.package = "X_pkg".into();
        assert_eq!(name_problems(&b)[0].rule, "packageName");
    }

    /// What the catalog names (the bundle, its webhooks, APIServices and dependencies) reaches
    /// the messages escaped.
    #[test]
    fn catalog_text_in_the_problems_is_escaped() {
        let mut b = bundle(
            "x",
            "1.0.0",
            &["stable"],
            &[
                (
                    "olm.csv.metadata",
                    r#"{"installModes":[{"type":"OwnNamespace\u001b[2J","supported":true}],"apiservicedefinitions":{"owned":[{"name":"v1.x.io\u001b]0;t\u0007"}]},"webhookdefinitions":[{"type":"ValidatingAdmissionWebhook","generateName":"vx.io\u001b[31m"}]}"#,
                ),
                (
                    "olm.gvk.required",
                    r#"{"group":"a.io\u001b[1m","kind":"A","version":"v1"}"#,
                ),
            ],
        );
        b.name = "x\u{1b}[2J.v1".into();
        let (problems, _) = check_installable(&b);
        assert_eq!(problems.len(), 4, "{problems:?}");
        for p in &problems {
            assert!(
                !p.message.chars().any(|c| c.is_control()),
                "{}: {:?}",
                p.rule,
                p.message
            );
            assert!(p.message.contains(r"\u{1b}"), "{}: {:?}", p.rule, p.message);
        }
    }

    #[test]
    fn unknown_csv_is_a_warning() {
        let (problems, warnings) = check_installable(&bundle("x", "1.0.0", &[], &[]));
        assert!(problems.is_empty());
        assert_eq!(warnings.len(), 1);
    }
}

#[test]
fn multi_head_channels_warn_and_resolve() {
    // package() builds channels whose entries have no edges: every entry is a head.
    let cats = [catalog("c", 0, vec![cert_manager()])];
    let channels = vec!["stable".to_string()];
    let r = resolve(&req(&channels, None), &cats, &cluster("4.13")).unwrap();
    assert_eq!(r.bundle.version_text, "1.14.0");
    assert!(
        r.warnings.iter().any(|w| w
            .0
            .contains("channel stable of package cert-manager has 4 heads")),
        "{:?}",
        r.warnings
    );
}

#[test]
fn below_the_winner_cluster_fit_is_not_read() {
    // 1.0.0's maxOpenShiftVersion is unreadable, but it ranks below the winner: it loses by
    // ranking, and its CSV facts are never needed.
    let p = package(
        "cert-manager",
        vec![
            bundle("cert-manager", "2.0.0", &["stable"], &[]),
            bundle(
                "cert-manager",
                "1.0.0",
                &["stable"],
                &[("olm.maxOpenShiftVersion", "true")],
            ),
        ],
    );
    let cats = [catalog("c", 0, vec![p])];
    let r = resolve(&req(&[], None), &cats, &cluster("4.14")).unwrap();
    assert_eq!(r.bundle.version_text, "2.0.0");
    assert_eq!(
        r.candidates[1].verdict,
        Verdict::Rejected(Rejection::Outranked {
            by: "cert-manager.v2.0.0".into()
        })
    );
}
