//! Resolver cases built from OLM v0's documented behaviour (`reference/olm-v0.md` §1): channel
//! heads, skips, default channels, dependencies by package, API, label and constraint, catalog
//! preference, startingCSV and the walk to the head, Subscriptions sharing a dependency, and
//! the failures.

use serde_json::{Value, json};

use super::*;
use crate::resolve::LoadedCatalog;
use crate::resolve::testcat::{Fbc, entry, load_packages};

const MARKETPLACE: &str = "openshift-marketplace";
const NS: &str = "operators";

fn pkg_required(name: &str, range: &str) -> Value {
    json!({"type": "olm.package.required", "value": {"packageName": name, "versionRange": range}})
}

fn gvk(group: &str, version: &str, kind: &str) -> Value {
    json!({"type": "olm.gvk", "value": {"group": group, "version": version, "kind": kind}})
}

fn gvk_required(group: &str, version: &str, kind: &str) -> Value {
    json!({"type": "olm.gvk.required", "value": {"group": group, "version": version, "kind": kind}})
}

fn constraint(value: Value) -> Value {
    json!({"type": "olm.constraint", "value": value})
}

struct World {
    catalogs: Vec<(LoadedCatalog, SourceKey, i32)>,
}

impl World {
    fn new() -> World {
        World {
            catalogs: Vec::new(),
        }
    }

    fn catalog(mut self, name: &str, priority: i32, packages: &[Fbc]) -> World {
        let loaded = load_packages(name, packages);
        self.catalogs
            .push((loaded, SourceKey::new(name, MARKETPLACE), priority));
        self
    }

    fn sources(&self) -> Vec<Source<'_>> {
        self.catalogs
            .iter()
            .map(|(c, key, priority)| Source {
                key: key.clone(),
                priority: *priority,
                catalog: Some(&c.catalog),
            })
            .collect()
    }

    fn resolve(&self, subs: &[Subscription]) -> Result<Vec<String>, Failure> {
        let sources = self.sources();
        let r = resolve(&Query {
            namespace: NS,
            sources: &sources,
            subscriptions: subs,
            installed: &[],
        })?;
        Ok(r.picks
            .iter()
            .map(|p| format!("{} ({}/{})", p.bundle.name, p.catalog.name, p.channel))
            .collect())
    }
}

fn sub(name: &str, package: &str, channel: &str, catalog: &str) -> Subscription {
    Subscription {
        name: name.into(),
        package: package.into(),
        channel: channel.into(),
        starting_csv: String::new(),
        source: SourceKey::new(catalog, MARKETPLACE),
        installed: None,
    }
}

fn chain3(package: &str) -> Fbc {
    Fbc::new(package)
        .bundle("1.0.0", None)
        .bundle("1.1.0", None)
        .bundle("1.2.0", None)
        .channel(
            "stable",
            vec![
                entry(&format!("{package}.v1.0.0"), None, &[], None),
                entry(
                    &format!("{package}.v1.1.0"),
                    Some(&format!("{package}.v1.0.0")),
                    &[],
                    None,
                ),
                entry(
                    &format!("{package}.v1.2.0"),
                    Some(&format!("{package}.v1.1.0")),
                    &[],
                    None,
                ),
            ],
        )
}

#[test]
fn the_channel_head_is_installed() {
    let w = World::new().catalog("cat", 0, &[chain3("etcd")]);
    assert_eq!(
        w.resolve(&[sub("etcd", "etcd", "stable", "cat")]).unwrap(),
        ["etcd.v1.2.0 (cat/stable)"]
    );
    // No channel: every channel, the default one first.
    assert_eq!(
        w.resolve(&[sub("etcd", "etcd", "", "cat")]).unwrap(),
        ["etcd.v1.2.0 (cat/stable)"]
    );
}

#[test]
fn without_a_channel_the_default_channel_wins_over_a_newer_one() {
    let p = Fbc::new("op")
        .bundle("1.0.0", None)
        .bundle("2.0.0", None)
        .channel("stable", vec![entry("op.v1.0.0", None, &[], None)])
        .channel(
            "alpha",
            vec![
                entry("op.v1.0.0", None, &[], None),
                entry("op.v2.0.0", Some("op.v1.0.0"), &[], None),
            ],
        );
    let w = World::new().catalog("cat", 0, &[p]);
    assert_eq!(
        w.resolve(&[sub("op", "op", "", "cat")]).unwrap(),
        ["op.v1.0.0 (cat/stable)"]
    );
    assert_eq!(
        w.resolve(&[sub("op", "op", "alpha", "cat")]).unwrap(),
        ["op.v2.0.0 (cat/alpha)"]
    );
}

#[test]
fn a_dependency_by_package_comes_from_the_dependents_own_catalog_first() {
    let app = Fbc::new("app")
        .bundle_with("1.0.0", vec![pkg_required("lib", ">=1.0.0 <2.0.0")])
        .channel("stable", vec![entry("app.v1.0.0", None, &[], None)]);
    let lib_old = Fbc::new("lib")
        .bundle("1.0.0", None)
        .channel("stable", vec![entry("lib.v1.0.0", None, &[], None)]);
    let lib_new = Fbc::new("lib")
        .bundle("1.0.0", None)
        .bundle("1.5.0", None)
        .channel(
            "stable",
            vec![
                entry("lib.v1.0.0", None, &[], None),
                entry("lib.v1.5.0", Some("lib.v1.0.0"), &[], None),
            ],
        );
    // The other catalog has a higher priority and a newer version; the own catalog still wins.
    let w = World::new()
        .catalog("own", 0, &[app, lib_old])
        .catalog("other", 10, &[lib_new]);
    assert_eq!(
        w.resolve(&[sub("app", "app", "stable", "own")]).unwrap(),
        ["app.v1.0.0 (own/stable)", "lib.v1.0.0 (own/stable)"]
    );
}

#[test]
fn a_dependency_missing_from_the_own_catalog_comes_from_the_higher_priority_one() {
    let app = Fbc::new("app")
        .bundle_with("1.0.0", vec![pkg_required("lib", ">=1.0.0")])
        .channel("stable", vec![entry("app.v1.0.0", None, &[], None)]);
    let lib = |v: &str| {
        Fbc::new("lib")
            .bundle(v, None)
            .channel("stable", vec![entry(&format!("lib.v{v}"), None, &[], None)])
    };
    let w = World::new()
        .catalog("own", 0, &[app])
        .catalog("low", -5, &[lib("1.9.0")])
        .catalog("high", 5, &[lib("1.1.0")])
        .catalog("zero", 0, &[lib("1.2.0")]);
    assert_eq!(
        w.resolve(&[sub("app", "app", "stable", "own")]).unwrap(),
        ["app.v1.0.0 (own/stable)", "lib.v1.1.0 (high/stable)"]
    );
}

#[test]
fn a_dependency_by_api() {
    let app = Fbc::new("app")
        .bundle_with("1.0.0", vec![gvk_required("acme.io", "v1", "Widget")])
        .channel("stable", vec![entry("app.v1.0.0", None, &[], None)]);
    let provider = Fbc::new("widgets")
        .bundle_with("0.1.0", vec![gvk("acme.io", "v1", "Widget")])
        .channel("stable", vec![entry("widgets.v0.1.0", None, &[], None)]);
    let decoy = Fbc::new("gadgets")
        .bundle_with("0.1.0", vec![gvk("acme.io", "v2", "Widget")])
        .channel("stable", vec![entry("gadgets.v0.1.0", None, &[], None)]);
    let w = World::new().catalog("cat", 0, &[app, provider, decoy]);
    assert_eq!(
        w.resolve(&[sub("app", "app", "stable", "cat")]).unwrap(),
        ["app.v1.0.0 (cat/stable)", "widgets.v0.1.0 (cat/stable)"]
    );
}

#[test]
fn cel_and_compound_constraints() {
    let lib = Fbc::new("lib")
        .bundle_with("1.0.0", vec![json!({"type": "certified", "value": false})])
        .bundle_with("2.0.0", vec![json!({"type": "certified", "value": true})])
        .bundle_with("3.0.0", vec![json!({"type": "certified", "value": true})])
        .channel(
            "stable",
            vec![
                entry("lib.v1.0.0", None, &[], None),
                entry("lib.v2.0.0", Some("lib.v1.0.0"), &[], None),
                entry("lib.v3.0.0", Some("lib.v2.0.0"), &[], None),
            ],
        );
    let rule = |r: &str| {
        constraint(json!({"cel": {"rule": r}, "failureMessage": "needs a certified lib"}))
    };
    let app = |name: &str, c: Value| {
        Fbc::new(name).bundle_with("1.0.0", vec![c]).channel(
            "stable",
            vec![entry(&format!("{name}.v1.0.0"), None, &[], None)],
        )
    };
    let w = World::new().catalog(
        "cat",
        0,
        &[
            lib,
            app(
                "cel",
                rule(r#"properties.exists(p, p.type == "olm.package" && p.value.packageName == "lib" && semver_compare(p.value.version, "3.0.0") < 0) && properties.exists(p, p.type == "certified" && p.value == true)"#),
            ),
            app(
                "all",
                constraint(json!({"all": {"constraints": [
                    {"package": {"packageName": "lib", "versionRange": ">=1.0.0"}},
                    {"not": {"constraints": [{"package": {"packageName": "lib", "versionRange": ">=2.0.0"}}]}}
                ]}})),
            ),
            app(
                "any",
                constraint(json!({"any": {"constraints": [
                    {"gvk": {"group": "nowhere.io", "version": "v1", "kind": "None"}},
                    {"package": {"packageName": "lib", "versionRange": "<3.0.0"}}
                ]}})),
            ),
        ],
    );
    assert_eq!(
        w.resolve(&[sub("s", "cel", "stable", "cat")]).unwrap(),
        ["cel.v1.0.0 (cat/stable)", "lib.v2.0.0 (cat/stable)"]
    );
    assert_eq!(
        w.resolve(&[sub("s", "all", "stable", "cat")]).unwrap(),
        ["all.v1.0.0 (cat/stable)", "lib.v1.0.0 (cat/stable)"]
    );
    assert_eq!(
        w.resolve(&[sub("s", "any", "stable", "cat")]).unwrap(),
        ["any.v1.0.0 (cat/stable)", "lib.v2.0.0 (cat/stable)"]
    );
}

#[test]
fn when_the_heads_dependencies_fail_an_older_entry_is_installed() {
    let app = Fbc::new("app")
        .bundle("1.0.0", None)
        .bundle_with("2.0.0", vec![pkg_required("missing", ">=1.0.0")])
        .channel(
            "stable",
            vec![
                entry("app.v1.0.0", None, &[], None),
                entry("app.v2.0.0", Some("app.v1.0.0"), &[], None),
            ],
        );
    let w = World::new().catalog("cat", 0, &[app]);
    assert_eq!(
        w.resolve(&[sub("app", "app", "stable", "cat")]).unwrap(),
        ["app.v1.0.0 (cat/stable)"]
    );
}

#[test]
fn a_bundle_reached_only_through_skips_never_satisfies_a_dependency() {
    let lib = Fbc::new("lib")
        .bundle("1.0.0", None)
        .bundle("2.0.0", None)
        .channel(
            "stable",
            vec![
                entry("lib.v1.0.0", None, &[], None),
                entry("lib.v2.0.0", None, &["lib.v1.0.0"], None),
            ],
        );
    let app = Fbc::new("app")
        .bundle_with("1.0.0", vec![pkg_required("lib", "<2.0.0")])
        .channel("stable", vec![entry("app.v1.0.0", None, &[], None)]);
    let w = World::new().catalog("cat", 0, &[lib, app]);
    let e = w
        .resolve(&[sub("app", "app", "stable", "cat")])
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "constraints not satisfiable: subscription app exists, subscription app requires cat/openshift-marketplace/stable/app.v1.0.0, bundle app.v1.0.0 requires an operator with package: lib and with version in range: <2.0.0"
    );
}

#[test]
fn starting_csv_installs_that_bundle_then_automatic_approval_walks_to_the_head() {
    let w = World::new().catalog("cat", 0, &[chain3("etcd")]);
    let mut s = sub("etcd", "etcd", "stable", "cat");
    s.starting_csv = "etcd.v1.0.0".into();
    assert_eq!(
        w.resolve(std::slice::from_ref(&s)).unwrap(),
        ["etcd.v1.0.0 (cat/stable)"]
    );
    let sources = w.sources();
    let walked = walk::walk(
        &Query {
            namespace: NS,
            sources: &sources,
            subscriptions: std::slice::from_ref(&s),
            installed: &[],
        },
        walk::MAX_STEPS,
    )
    .unwrap();
    let hops: Vec<Vec<String>> = walked
        .steps
        .iter()
        .map(|s| s.iter().map(|p| p.bundle.name.clone()).collect())
        .collect();
    assert_eq!(hops, [["etcd.v1.0.0"], ["etcd.v1.1.0"], ["etcd.v1.2.0"]]);
    assert_eq!(walked.steps[1][0].replaces.as_deref(), Some("etcd.v1.0.0"));
    assert_eq!(walked.ends_at("etcd").unwrap().name, "etcd.v1.2.0");
    assert!(walked.stopped.is_none());
    // A startingCSV not in the channel matches nothing.
    s.starting_csv = "etcd.v9.0.0".into();
    assert_eq!(
        w.resolve(&[s]).unwrap_err().to_string(),
        "constraints not satisfiable: subscription etcd exists, no operators found with name etcd.v9.0.0 in channel stable of package etcd in the catalog referenced by subscription etcd"
    );
}

#[test]
fn a_skip_range_takes_the_walk_straight_to_the_head() {
    let p = Fbc::new("op")
        .bundle("1.0.0", None)
        .bundle("1.1.0", None)
        .bundle("1.2.0", None)
        .channel(
            "stable",
            vec![
                entry("op.v1.0.0", None, &[], None),
                entry("op.v1.1.0", Some("op.v1.0.0"), &[], None),
                entry("op.v1.2.0", Some("op.v1.1.0"), &[], Some(">=1.0.0 <1.2.0")),
            ],
        );
    let w = World::new().catalog("cat", 0, &[p]);
    let mut s = sub("op", "op", "stable", "cat");
    s.starting_csv = "op.v1.0.0".into();
    let sources = w.sources();
    let walked = walk::walk(
        &Query {
            namespace: NS,
            sources: &sources,
            subscriptions: &[s],
            installed: &[],
        },
        walk::MAX_STEPS,
    )
    .unwrap();
    let hops: Vec<&str> = walked
        .steps
        .iter()
        .map(|s| s[0].bundle.name.as_str())
        .collect();
    assert_eq!(hops, ["op.v1.0.0", "op.v1.2.0"]);
}

#[test]
fn two_subscriptions_share_a_dependency() {
    let lib = chain3("lib");
    let a = Fbc::new("a")
        .bundle_with("1.0.0", vec![pkg_required("lib", ">=1.0.0")])
        .channel("stable", vec![entry("a.v1.0.0", None, &[], None)]);
    let b = Fbc::new("b")
        .bundle_with("1.0.0", vec![pkg_required("lib", ">=1.1.0 <1.2.0")])
        .channel("stable", vec![entry("b.v1.0.0", None, &[], None)]);
    let w = World::new().catalog("cat", 0, &[lib, a, b]);
    // a alone takes the head of lib; with b, the one lib both accept. OLM's answer then depends
    // on which Subscription it takes first: a first picks lib 1.2.0, which b refuses, so the
    // search backtracks to 1.1.0; b first picks 1.1.0 directly. Both end the same.
    assert_eq!(
        w.resolve(&[sub("a", "a", "stable", "cat")]).unwrap(),
        ["a.v1.0.0 (cat/stable)", "lib.v1.2.0 (cat/stable)"]
    );
    assert_eq!(
        w.resolve(&[
            sub("a", "a", "stable", "cat"),
            sub("b", "b", "stable", "cat")
        ])
        .unwrap(),
        [
            "a.v1.0.0 (cat/stable)",
            "b.v1.0.0 (cat/stable)",
            "lib.v1.1.0 (cat/stable)"
        ]
    );
}

#[test]
fn preferences_that_pull_apart_depend_on_order_and_are_reported() {
    // a prefers lib 1.2.0, then 1.1.0; b needs an API that lib 1.1.0 and another package
    // provide, lib first (package names in order). Taken a first, lib 1.2.0 and the other
    // package; b first, lib 1.1.0 alone: OLM's answer depends on the order of a Go map.
    let lib = Fbc::new("lib")
        .bundle_with("1.1.0", vec![gvk("acme.io", "v1", "Thing")])
        .bundle("1.2.0", None)
        .channel(
            "stable",
            vec![
                entry("lib.v1.1.0", None, &[], None),
                entry("lib.v1.2.0", Some("lib.v1.1.0"), &[], None),
            ],
        );
    let other = Fbc::new("zzz-things")
        .bundle_with("1.0.0", vec![gvk("acme.io", "v1", "Thing")])
        .channel("stable", vec![entry("zzz-things.v1.0.0", None, &[], None)]);
    let a = Fbc::new("a")
        .bundle_with("1.0.0", vec![pkg_required("lib", ">=1.0.0")])
        .channel("stable", vec![entry("a.v1.0.0", None, &[], None)]);
    let b = Fbc::new("b")
        .bundle_with("1.0.0", vec![gvk_required("acme.io", "v1", "Thing")])
        .channel("stable", vec![entry("b.v1.0.0", None, &[], None)]);
    let w = World::new().catalog("cat", 0, &[lib, other, a, b]);
    let e = w
        .resolve(&[
            sub("a", "a", "stable", "cat"),
            sub("b", "b", "stable", "cat"),
        ])
        .unwrap_err();
    assert!(matches!(e, Failure::OrderDependent { .. }), "{e}");
}

#[test]
fn two_providers_of_one_api_cannot_both_be_installed() {
    let one = Fbc::new("one")
        .bundle_with("1.0.0", vec![gvk("acme.io", "v1", "Widget")])
        .channel("stable", vec![entry("one.v1.0.0", None, &[], None)]);
    let two = Fbc::new("two")
        .bundle_with("1.0.0", vec![gvk("acme.io", "v1", "Widget")])
        .channel("stable", vec![entry("two.v1.0.0", None, &[], None)]);
    let w = World::new().catalog("cat", 0, &[one, two]);
    let e = w
        .resolve(&[
            sub("one", "one", "stable", "cat"),
            sub("two", "two", "stable", "cat"),
        ])
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "constraints not satisfiable: subscription one exists, subscription one requires cat/openshift-marketplace/stable/one.v1.0.0, subscription two exists, subscription two requires cat/openshift-marketplace/stable/two.v1.0.0, cat/openshift-marketplace/stable/one.v1.0.0 and cat/openshift-marketplace/stable/two.v1.0.0 provide Widget (acme.io/v1)"
    );
}

#[test]
fn a_deprecated_property_makes_a_bundle_prohibited() {
    let p = Fbc::new("op")
        .bundle("1.0.0", None)
        .bundle_with(
            "1.1.0",
            vec![json!({"type": "olm.deprecated", "value": {}})],
        )
        .channel(
            "stable",
            vec![
                entry("op.v1.0.0", None, &[], None),
                entry("op.v1.1.0", Some("op.v1.0.0"), &[], None),
            ],
        );
    let w = World::new().catalog("cat", 0, &[p]);
    assert_eq!(
        w.resolve(&[sub("op", "op", "stable", "cat")]).unwrap(),
        ["op.v1.0.0 (cat/stable)"]
    );
}

#[test]
fn fbc_deprecations_do_not_change_the_pick() {
    let w = World::new().catalog("cat", 0, &[chain3("etcd").deprecate("1.2.0")]);
    assert_eq!(
        w.resolve(&[sub("etcd", "etcd", "stable", "cat")]).unwrap(),
        ["etcd.v1.2.0 (cat/stable)"]
    );
}

#[test]
fn errors_that_fail_the_whole_resolution() {
    // Two heads in a channel of the Subscription's package.
    let p = Fbc::new("op")
        .bundle("1.0.0", None)
        .bundle("1.1.0", None)
        .channel(
            "stable",
            vec![
                entry("op.v1.0.0", None, &[], None),
                entry("op.v1.1.0", None, &[], None),
            ],
        );
    let w = World::new().catalog("cat", 0, &[p]);
    let e = w.resolve(&[sub("op", "op", "stable", "cat")]).unwrap_err();
    assert!(matches!(e, Failure::Invalid(_)), "{e}");
    assert!(
        e.to_string()
            .contains("2 replacement chains were found in channel \"stable\" of package \"op\""),
        "{e}"
    );
    // A dependency range that does not parse.
    let app = Fbc::new("app")
        .bundle_with("1.0.0", vec![pkg_required("lib", "1.0")])
        .channel("stable", vec![entry("app.v1.0.0", None, &[], None)]);
    let w = World::new().catalog("cat", 0, &[app]);
    assert!(matches!(
        w.resolve(&[sub("app", "app", "stable", "cat")])
            .unwrap_err(),
        Failure::Invalid(_)
    ));
}

#[test]
fn a_subscription_to_a_catalog_that_is_not_there() {
    let w = World::new().catalog("cat", 0, &[chain3("etcd")]);
    assert_eq!(
        w.resolve(&[sub("etcd", "etcd", "stable", "nowhere")])
            .unwrap_err()
            .to_string(),
        "constraints not satisfiable: subscription etcd exists, no operators found from catalog nowhere in namespace openshift-marketplace referenced by subscription etcd"
    );
    assert_eq!(
        w.resolve(&[sub("etcd", "etcd", "beta", "cat")])
            .unwrap_err()
            .to_string(),
        "constraints not satisfiable: subscription etcd exists, no operators found in channel beta of package etcd in the catalog referenced by subscription etcd"
    );
}

#[test]
fn dependencies_get_subscriptions_of_their_own_and_walk_too() {
    let app = Fbc::new("app")
        .bundle_with("1.0.0", vec![pkg_required("lib", ">=1.0.0")])
        .channel("stable", vec![entry("app.v1.0.0", None, &[], None)]);
    let w = World::new().catalog("cat", 0, &[app, chain3("lib")]);
    let sources = w.sources();
    let walked = walk::walk(
        &Query {
            namespace: NS,
            sources: &sources,
            subscriptions: &[sub("app", "app", "stable", "cat")],
            installed: &[],
        },
        walk::MAX_STEPS,
    )
    .unwrap();
    assert_eq!(walked.steps.len(), 1, "{:?}", walked.steps);
    let names: Vec<&str> = walked
        .subscriptions
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(names, ["app", "lib-stable-cat-openshift-marketplace"]);
    assert_eq!(
        walked
            .ends_at("lib-stable-cat-openshift-marketplace")
            .unwrap()
            .name,
        "lib.v1.2.0"
    );
}
