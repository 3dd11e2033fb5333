//! Resolution rules on small in-memory catalogs.

use super::*;
use crate::catalog::model::{Channel, ChannelEntry, Origin, Property};

/// A bundle: version, channels, extra properties `(type, json)`.
fn bundle(pkg: &str, version: &str, channels: &[&str], props: &[(&str, &str)]) -> Bundle {
    let mut properties = vec![Property {
        ty: "olm.package".into(),
        value: crate::catalog::fbc::PropertyValue::json(&format!(
            r#"{{"packageName":"{pkg}","version":"{version}"}}"#
        ))
        .unwrap(),
    }];
    properties.extend(props.iter().map(|(t, v)| Property {
        ty: t.to_string(),
        value: crate::catalog::fbc::PropertyValue::json(v).unwrap(),
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
    assert!(
        r.candidates
            .iter()
            .any(|c| c.verdict == Verdict::Rejected(Rejection::InvalidVersion))
    );
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
