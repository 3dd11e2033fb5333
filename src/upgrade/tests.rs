//! Upgrade planning scenarios over small catalogs shaped like Red Hat's.

use super::*;
use crate::resolve;
use crate::resolve::testcat::{Fbc, entry};

/// Package `po`, channel `stable`:
///
/// ```text
/// 1.0.0 (max 4.13) ← 1.0.1 (max 4.13) ← 1.0.2 (max 4.14) ← 1.1.0 (max 4.15) ← 1.1.1 ← 2.0.0
/// ```
///
/// each entry `replaces` the previous one, with a `skipRange` over its own minor from `.0`
/// (1.1.0 and 2.0.0 over the previous minor too), like Red Hat's catalogs.
fn po() -> Fbc {
    Fbc::new("po")
        .bundle("1.0.0", Some("4.13"))
        .bundle("1.0.1", Some("4.13"))
        .bundle("1.0.2", Some("4.14"))
        .bundle("1.1.0", Some("4.15"))
        .bundle("1.1.1", None)
        .bundle("2.0.0", None)
        .channel(
            "stable",
            vec![
                entry("po.v1.0.0", None, &[], None),
                entry("po.v1.0.1", Some("po.v1.0.0"), &[], Some(">=1.0.0 <1.0.1")),
                entry("po.v1.0.2", Some("po.v1.0.1"), &[], Some(">=1.0.0 <1.0.2")),
                entry("po.v1.1.0", Some("po.v1.0.2"), &[], Some(">=1.0.0 <1.1.0")),
                entry("po.v1.1.1", Some("po.v1.1.0"), &[], Some(">=1.1.0 <1.1.1")),
                entry("po.v2.0.0", Some("po.v1.1.1"), &[], Some(">=1.1.0 <2.0.0")),
            ],
        )
}

fn operator(installed: Option<&str>, policy: UpgradePolicy) -> Operator {
    Operator {
        name: "storage".into(),
        package: "po".into(),
        channels: vec!["stable".into()],
        range: None,
        catalog: None,
        policy,
        constraint: UpgradeConstraintPolicy::CatalogProvided,
        installed: installed.map(|v| BundleRef {
            bundle: format!("po.v{v}"),
            version: v.into(),
            catalog: Some("c".into()),
        }),
        subscription: None,
        bootstrap: false,
    }
}

fn cv(text: &str) -> ClusterVersion {
    ClusterVersion::parse(text).unwrap()
}

fn run(cat: &Fbc, ops: &[Operator], from: &str, to: &str) -> Plan {
    plan(ops, &[cat.load("c")], &cv(from), &cv(to)).unwrap()
}

fn versions(chain: &[BundleRef]) -> Vec<&str> {
    chain.iter().map(|b| b.version.as_str()).collect()
}

fn planned(p: &Plan) -> &str {
    p.operators[0].planned.as_ref().unwrap().version.as_str()
}

#[test]
fn patch_upgrade_moves_only_patches() {
    let p = run(
        &po(),
        &[operator(Some("1.0.0"), UpgradePolicy::FollowCluster)],
        "4.13.3",
        "4.13.4",
    );
    assert_eq!(p.change, Change::PatchUpgrade);
    assert!(p.upgradeable);
    let [hop] = p.hops.as_slice() else { panic!() };
    assert!(hop.before.is_empty());
    let [step] = hop.after.as_slice() else {
        panic!("{hop:?}")
    };
    // 1.0.2's skipRange contains 1.0.0: one reconcile; 1.1.0 is a new minor.
    assert_eq!(versions(&step.chain), ["1.0.0", "1.0.2"]);
    assert_eq!(step.version.as_deref(), Some(">=1.0.0 <1.1.0-0"));
    assert_eq!(planned(&p), "1.0.2");
    let last = step.reconciles.last().unwrap();
    let v110 = last.iter().find(|c| c.version == "1.1.0").unwrap();
    assert!(matches!(
        &v110.verdict,
        resolve::Verdict::Rejected(resolve::Rejection::OutsideUpgradePolicy { .. })
    ));
}

#[test]
fn minor_upgrade_moves_minors_but_not_majors() {
    let p = run(
        &po(),
        &[operator(Some("1.0.2"), UpgradePolicy::FollowCluster)],
        "4.13.9",
        "4.14.2",
    );
    assert_eq!(p.change, Change::MinorUpgrade);
    let [hop] = p.hops.as_slice() else { panic!() };
    assert!(hop.before.is_empty(), "1.0.2 supports 4.14");
    let [step] = hop.after.as_slice() else {
        panic!()
    };
    assert_eq!(versions(&step.chain), ["1.0.2", "1.1.0", "1.1.1"]);
    assert_eq!(step.version.as_deref(), Some(">=1.0.2 <2.0.0-0"));
}

#[test]
fn capped_operator_with_a_successor_for_both_releases_is_upgraded_first() {
    let p = run(
        &po(),
        &[operator(Some("1.0.2"), UpgradePolicy::FollowCluster)],
        "4.14.5",
        "4.15.0",
    );
    assert!(p.upgradeable);
    let [hop] = p.hops.as_slice() else { panic!() };
    let [before] = hop.before.as_slice() else {
        panic!("{hop:?}")
    };
    assert_eq!(versions(&before.chain), ["1.0.2", "1.1.0", "1.1.1"]);
    assert!(matches!(
        &before.reason,
        Reason::IncompatibleWithTarget { compatibility: Compatibility::MaxOpenShiftVersion { max }, .. } if max == "4.14"
    ));
    assert!(hop.after.is_empty(), "{:?}", hop.after);
    let text = render::text(&p, false, crate::table::Width::Full);
    assert!(text.contains("Before the cluster upgrade:"), "{text}");
    assert!(
        text.find("Before the cluster upgrade:").unwrap()
            < text.find("Cluster: 4.14.5 → 4.15.0").unwrap(),
        "{text}"
    );
}

#[test]
fn capped_operator_without_such_a_successor_blocks_with_an_actionable_message() {
    let cat = Fbc::new("po")
        .bundle("1.0.0", Some("4.14"))
        .bundle("1.0.1", Some("4.14"))
        .channel(
            "stable",
            vec![
                entry("po.v1.0.0", None, &[], None),
                entry("po.v1.0.1", Some("po.v1.0.0"), &[], Some(">=1.0.0 <1.0.1")),
            ],
        );
    let p = run(
        &cat,
        &[operator(Some("1.0.1"), UpgradePolicy::FollowCluster)],
        "4.14.5",
        "4.15.0",
    );
    assert!(!p.upgradeable);
    let [b] = p.blockers().collect::<Vec<_>>()[..] else {
        panic!()
    };
    assert_eq!(b.max_open_shift_version.as_deref(), Some("4.14"));
    assert_eq!(
        b.message,
        "Upgradeable=False: platform operator \"storage\" (package po) blocks the upgrade from 4.14.5 to 4.15.0: \
         the installed po.v1.0.1 1.0.1 has olm.maxOpenShiftVersion 4.14, and no version reachable from it supports both 4.14.5 and 4.15.0. \
         To unblock: a release of po that supports OpenShift 4.15 (olm.maxOpenShiftVersion absent or at least 4.15) and upgrades from po.v1.0.1 must be published in the catalog; \
         or remove operator \"storage\" before upgrading, or stay on OpenShift 4.14"
    );
    assert!(p.hops[0].after.is_empty());
    assert_eq!(planned(&p), "1.0.1");
}

#[test]
fn blocker_names_a_compatible_bundle_that_the_graph_does_not_reach() {
    // 1.1.0 supports 4.15 but replaces nothing: not reachable from 1.0.0.
    let cat = Fbc::new("po")
        .bundle("1.0.0", Some("4.14"))
        .bundle("1.1.0", None)
        .channel(
            "stable",
            vec![
                entry("po.v1.0.0", None, &[], None),
                entry("po.v1.1.0", None, &[], None),
            ],
        );
    let mut op = operator(Some("1.0.0"), UpgradePolicy::FollowCluster);
    let p = run(&cat, std::slice::from_ref(&op), "4.14", "4.15");
    let b = p.blockers().next().unwrap();
    assert!(
        b.unblock[0].contains("1.1.0 (po.v1.1.0)") && b.unblock[0].contains("SelfCertified"),
        "{:?}",
        b.unblock
    );
    // Following the hint unblocks it.
    op.constraint = UpgradeConstraintPolicy::SelfCertified;
    let p = run(&cat, &[op], "4.14", "4.15");
    assert!(p.upgradeable);
    assert_eq!(versions(&p.hops[0].before[0].chain), ["1.0.0", "1.1.0"]);
}

#[test]
fn blocker_names_a_new_major_that_latest_would_allow() {
    let cat = Fbc::new("po")
        .bundle("1.0.0", Some("4.14"))
        .bundle("2.0.0", None)
        .channel(
            "stable",
            vec![
                entry("po.v1.0.0", None, &[], None),
                entry("po.v2.0.0", Some("po.v1.0.0"), &[], None),
            ],
        );
    let p = run(
        &cat,
        &[operator(Some("1.0.0"), UpgradePolicy::FollowCluster)],
        "4.14",
        "4.15",
    );
    let b = p.blockers().next().unwrap();
    assert!(b.unblock[0].contains("upgrade: latest"), "{:?}", b.unblock);
    let p = run(
        &cat,
        &[operator(Some("1.0.0"), UpgradePolicy::Latest)],
        "4.14",
        "4.15",
    );
    assert!(p.upgradeable);
    assert_eq!(planned(&p), "2.0.0");
}

#[test]
fn pinned_stays_unless_it_must_move_and_then_moves_least() {
    let p = run(
        &po(),
        &[operator(Some("1.0.0"), UpgradePolicy::Pinned)],
        "4.13.3",
        "4.13.4",
    );
    assert!(p.hops[0].after.is_empty() && p.hops[0].before.is_empty());
    assert_eq!(planned(&p), "1.0.0");
    // 1.0.1 is capped at 4.13: the least move compatible with 4.13 and 4.14 is 1.0.2.
    let p = run(
        &po(),
        &[operator(Some("1.0.1"), UpgradePolicy::Pinned)],
        "4.13.3",
        "4.14.0",
    );
    let hop = &p.hops[0];
    assert_eq!(versions(&hop.before[0].chain), ["1.0.1", "1.0.2"]);
    assert_eq!(hop.before[0].version.as_deref(), Some(">=1.0.1 <=1.0.2"));
    assert!(hop.after.is_empty());
    assert_eq!(planned(&p), "1.0.2");
}

#[test]
fn latest_takes_the_newest_compatible_version_majors_included() {
    let p = run(
        &po(),
        &[operator(Some("1.0.2"), UpgradePolicy::Latest)],
        "4.13.3",
        "4.14.0",
    );
    let step = &p.hops[0].after[0];
    // 2.0.0's skipRange contains 1.1.0, so OLM jumps over 1.1.1.
    assert_eq!(versions(&step.chain), ["1.0.2", "1.1.0", "2.0.0"]);
    assert_eq!(step.version, None);
}

#[test]
fn patch_rollback_stays_where_it_fits_and_moves_back_where_it_does_not() {
    let p = run(
        &po(),
        &[operator(Some("1.0.2"), UpgradePolicy::FollowCluster)],
        "4.13.4",
        "4.13.3",
    );
    assert_eq!(p.change, Change::PatchRollback);
    assert!(p.hops[0].after.is_empty());
    assert_eq!(planned(&p), "1.0.2");
    // The 4.13.3 snapshot no longer has 1.0.2: re-resolve to the newest that fits, no higher.
    let older = Fbc::new("po")
        .bundle("1.0.0", Some("4.13"))
        .bundle("1.0.1", Some("4.13"))
        .channel(
            "stable",
            vec![
                entry("po.v1.0.0", None, &[], None),
                entry("po.v1.0.1", Some("po.v1.0.0"), &[], None),
            ],
        );
    let p = run(
        &older,
        &[operator(Some("1.0.2"), UpgradePolicy::FollowCluster)],
        "4.13.4",
        "4.13.3",
    );
    let step = &p.hops[0].after[0];
    assert_eq!(versions(&step.chain), ["1.0.2", "1.0.1"]);
    assert!(step.requires.as_deref().unwrap().contains("SelfCertified"));
    assert!(matches!(step.reason, Reason::NoLongerFits { .. }));
}

#[test]
fn skipping_a_minor_is_planned_as_two_checked_hops() {
    let p = run(
        &po(),
        &[operator(Some("1.0.0"), UpgradePolicy::Pinned)],
        "4.12.7",
        "4.14.1",
    );
    assert!(p.upgradeable);
    let hops: Vec<(&str, &str)> = p
        .hops
        .iter()
        .map(|h| (h.from.as_str(), h.to.as_str()))
        .collect();
    assert_eq!(hops, [("4.12.7", "4.13"), ("4.13", "4.14.1")]);
    // 1.0.0 (max 4.13) is fine for the first hop and must move before the second.
    assert!(p.hops[0].before.is_empty());
    assert_eq!(versions(&p.hops[1].before[0].chain), ["1.0.0", "1.0.2"]);
}

#[test]
fn a_blocked_hop_stops_the_plan() {
    let p = run(
        &po(),
        &[operator(Some("1.0.0"), UpgradePolicy::Pinned)],
        "4.14.0",
        "4.16.0",
    );
    // 1.0.0 (max 4.13) is already past its maximum: before 4.15 it moves to 1.1.0 (the least
    // supporting 4.14 and 4.15), before 4.16 to 1.1.1.
    assert!(p.upgradeable);
    assert_eq!(versions(&p.hops[0].before[0].chain), ["1.0.0", "1.1.0"]);
    assert_eq!(versions(&p.hops[1].before[0].chain), ["1.1.0", "1.1.1"]);
    let p = run(
        &Fbc::new("po")
            .bundle("1.0.0", Some("4.14"))
            .channel("stable", vec![entry("po.v1.0.0", None, &[], None)]),
        &[operator(Some("1.0.0"), UpgradePolicy::FollowCluster)],
        "4.13.0",
        "4.16.0",
    );
    assert!(!p.upgradeable);
    assert_eq!(p.hops.len(), 2, "4.13 → 4.14 then blocked at 4.14 → 4.15");
    assert_eq!(p.hops[1].blockers[0].target, "4.15");
}

#[test]
fn minor_downgrade_is_refused() {
    let e = plan(
        &[operator(Some("1.0.0"), UpgradePolicy::FollowCluster)],
        &[po().load("c")],
        &cv("4.14.2"),
        &cv("4.13.9"),
    )
    .unwrap_err();
    assert_eq!(
        e,
        Error::MinorDowngrade {
            from: "4.14.2".into(),
            to: "4.13.9".into()
        }
    );
    assert!(
        e.to_string()
            .contains("does not support minor version downgrades")
    );
}

#[test]
fn an_operator_not_installed_yet_is_installed_after_the_upgrade() {
    let p = run(
        &po(),
        &[operator(None, UpgradePolicy::FollowCluster)],
        "4.14.0",
        "4.15.0",
    );
    let step = &p.hops[0].after[0];
    assert_eq!(step.from, None);
    assert_eq!(step.to.version, "2.0.0");
}

#[test]
fn plan_serializes_as_data() {
    let p = run(
        &po(),
        &[operator(Some("1.0.2"), UpgradePolicy::FollowCluster)],
        "4.14.5",
        "4.15.0",
    );
    let v = serde_json::to_value(&p).unwrap();
    assert_eq!(v["upgradeable"], true);
    assert_eq!(v["change"], "minorUpgrade");
    assert_eq!(
        v["hops"][0]["before"][0]["reason"]["rule"],
        "incompatibleWithTarget"
    );
    assert_eq!(v["operators"][0]["policy"], "follow-cluster");
    assert_eq!(v["operators"][0]["planned"]["version"], "1.1.1");
}

#[test]
fn no_panic_on_extreme_versions() {
    let cat = po().load("c");
    let huge = u64::MAX.to_string();
    let releases = [
        "4.0".to_string(),
        "4.13".into(),
        "4.13.0-rc.1".into(),
        format!("4.{huge}"),
        format!("4.{huge}.{huge}"),
        format!("{huge}.1"),
        "5.0".into(),
    ];
    let installed = [
        "1.0.0".to_string(),
        format!("{huge}.{huge}.{huge}"),
        "0.0.0-0".into(),
        "1.0.0+build".into(),
        "not-a-version".into(),
    ];
    for policy in [
        UpgradePolicy::FollowCluster,
        UpgradePolicy::Pinned,
        UpgradePolicy::Latest,
    ] {
        for v in &installed {
            let mut op = operator(Some("1.0.0"), policy);
            op.installed.as_mut().unwrap().version = v.clone();
            for from in &releases {
                for to in &releases {
                    let _ = plan(
                        std::slice::from_ref(&op),
                        std::slice::from_ref(&cat),
                        &cv(from),
                        &cv(to),
                    )
                    .map(|p| render::text(&p, true, crate::table::Width::Full));
                }
            }
        }
    }
}

mod compatibility {
    use super::*;
    use serde_json::json;

    /// The one bundle, `po.v1.0.0`, of a one-channel package.
    fn first(fbc: Fbc) -> Bundle {
        fbc.channel("stable", vec![entry("po.v1.0.0", None, &[], None)])
            .load("c")
            .catalog
            .packages
            .swap_remove(0)
            .bundles
            .swap_remove(0)
    }

    #[test]
    fn max_openshift_version_not_below_the_minor_is_compatible() {
        let b = first(Fbc::new("po").bundle("1.0.0", Some("4.14")));
        assert!(compat::check(&b, &cv("4.14.9")).is_compatible());
        assert_eq!(
            compat::check(&b, &cv("4.15")),
            Compatibility::MaxOpenShiftVersion { max: "4.14".into() }
        );
        // Read from its text: 4.10 is not 4.1.
        let b = first(Fbc::new("po").bundle_with(
            "1.0.0",
            vec![json!({"type": "olm.maxOpenShiftVersion", "value": "4.10"})],
        ));
        assert!(compat::check(&b, &cv("4.9")).is_compatible());
        assert!(!compat::check(&b, &cv("4.11")).is_compatible());
        // 4.23 is 5.0 under another name: a bundle capped at 4.23 runs on 5.0, not on 5.1.
        let b = first(Fbc::new("po").bundle("1.0.0", Some("4.23")));
        assert!(compat::check(&b, &cv("5.0.2")).is_compatible());
        assert!(!compat::check(&b, &cv("5.1")).is_compatible());
    }

    #[test]
    fn min_kube_version_above_the_release_kubernetes_is_not() {
        let b = first(Fbc::new("po").bundle_with(
            "1.0.0",
            vec![json!({"type": "olm.csv.metadata", "value": {"minKubeVersion": "1.28.0", "installModes": [{"type": "AllNamespaces", "supported": true}]}})],
        ));
        // OpenShift 4.15 ships Kubernetes 1.28.
        assert!(compat::check(&b, &cv("4.15.0")).is_compatible());
        assert_eq!(
            compat::check(&b, &cv("4.14.0")),
            Compatibility::MinKubeVersion {
                min: "1.28.0".into(),
                kube: "1.27".into()
            }
        );
    }

    #[test]
    fn an_unreadable_max_blocks_with_its_reason() {
        let b = first(Fbc::new("po").bundle("1.0.0", Some("4.14.1")));
        let c = compat::check(&b, &cv("4.14"));
        assert!(
            matches!(c, Compatibility::InvalidMaxOpenShiftVersion { .. }),
            "{c:?}"
        );
        let p = run(
            &Fbc::new("po")
                .bundle("1.0.0", Some("4.14.1"))
                .channel("stable", vec![entry("po.v1.0.0", None, &[], None)]),
            &[operator(Some("1.0.0"), UpgradePolicy::FollowCluster)],
            "4.14",
            "4.15",
        );
        let b = p.blockers().next().unwrap();
        assert!(
            b.message
                .contains("has an unusable olm.maxOpenShiftVersion"),
            "{}",
            b.message
        );
        assert!(!b.message.contains("declares no"), "{}", b.message);
    }
}

/// Hops follow the release table across majors: 4.22 → 4.23 → 5.1, 4.22 → 5.0 (4.23's other
/// name), 5.0 → 5.1; 4.23 and 5.0 do not update to each other; a major past the table is not
/// planned.
#[test]
fn hops_follow_the_release_table_across_majors() {
    let v = |t: &str| ClusterVersion::parse(t).unwrap();
    let names = |from: &str, to: &str| -> Vec<String> {
        super::hops(&v(from), &v(to))
            .unwrap()
            .into_iter()
            .map(|(a, b, _)| format!("{a}→{b}"))
            .collect()
    };
    assert_eq!(names("4.22.3", "5.0.1"), ["4.22.3→5.0.1"]);
    assert_eq!(names("4.22.3", "4.23.1"), ["4.22.3→4.23.1"]);
    assert_eq!(
        names("4.21.2", "5.1.0"),
        ["4.21.2→4.22", "4.22→4.23", "4.23→5.1.0"]
    );
    assert_eq!(names("5.0.2", "5.1.4"), ["5.0.2→5.1.4"]);
    assert_eq!(names("4.23.2", "5.1.4"), ["4.23.2→5.1.4"]);
    assert!(matches!(
        super::hops(&v("4.23.1"), &v("5.0.1")),
        Err(Error::MajorChange { .. })
    ));
    assert!(matches!(
        super::hops(&v("5.1.1"), &v("4.22.1")),
        Err(Error::MinorDowngrade { .. })
    ));
    assert!(matches!(
        super::hops(&v("5.1.1"), &v("6.0.1")),
        Err(Error::MajorChange { .. })
    ));
    assert_eq!(names("4.14.1", "4.16.2"), ["4.14.1→4.15", "4.15→4.16.2"]);
}

/// A bootstrap operator that cannot move stays with a warning that does not blame OLM, which
/// never manages it; an OLM v1 operator's warning names OLM v1.
#[test]
fn a_bootstrap_operator_that_cannot_move_is_not_said_to_be_olms() {
    let mut op = operator(Some("1.0.0"), UpgradePolicy::FollowCluster);
    op.channels = vec!["gone".into()];
    let p = run(&po(), std::slice::from_ref(&op), "4.13.3", "4.13.4");
    assert!(
        p.warnings
            .iter()
            .any(|w| w.contains("OLM v1 cannot resolve")),
        "{:?}",
        p.warnings
    );
    op.bootstrap = true;
    let p = run(&po(), &[op], "4.13.3", "4.13.4");
    assert!(!p.warnings.is_empty());
    for w in &p.warnings {
        assert!(!w.contains("OLM v1"), "{w}");
        assert!(w.contains("a bootstrap operator"), "{w}");
    }
}

/// A chain of patch updates too long to plan says patch updates, and each
/// count gets its own word and number.
#[test]
fn too_many_hops_counts_patch_updates_and_minor_upgrades_apart() {
    let nodes: Vec<serde_json::Value> = (0..=40)
        .map(|p| {
            serde_json::json!({"version": format!("4.16.{p}"), "payload": format!("quay.io/x@sha256:{p}"),
                "metadata": {graph::CHANNELS_KEY: "stable-4.16"}})
        })
        .collect();
    let edges: Vec<[usize; 2]> = (0..40).map(|i| [i, i + 1]).collect();
    let doc = serde_json::to_vec(&serde_json::json!({"nodes": nodes, "edges": edges})).unwrap();
    let mut b = graph::Builder::new();
    b.add("chain.json", &doc, None).unwrap();
    let g = b.finish();
    let (from, to) = (cv("4.16.0"), cv("4.16.40"));
    let path = g
        .path(&graph::Query {
            from: &from,
            to: &to,
            channel: None,
            allow_not_recommended: false,
        })
        .unwrap();
    assert_eq!(path.hops.len(), 40);
    let route = Route {
        path: Some(path),
        ..Default::default()
    };
    let e = plan_route(&[], &[], &from, &to, &route, Options { explain: false }).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot plan 4.16.0 → 4.16.40: that is 40 patch updates; po-manifests plans at most 32 hops"
    );
    assert_eq!(hop_words(1, 0), "1 minor upgrade");
    assert_eq!(hop_words(0, 1), "1 patch update");
    assert_eq!(
        hop_words(3, 199_991),
        "3 minor upgrades and 199991 patch updates"
    );
    assert_eq!(hop_words(40, 2), "40 minor upgrades and 2 patch updates");
}
