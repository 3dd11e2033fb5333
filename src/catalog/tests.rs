//! Tests over whole catalogs: the real ones in `shared/realdata` (read in place, skipped when
//! absent) and small ones written here.

use std::path::{Path, PathBuf};

use super::validate::{self, Options};
use super::{PackageFilter, files, graph, load, loader};

/// The shared realdata folder, or `None` when it is absent, after the note every test of the
/// real data prints then (the integration tests' `common::realdata` prints the same sentence).
pub(crate) fn realdata(test: &str) -> Option<PathBuf> {
    let p = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/realdata"));
    if p.is_dir() {
        Some(p.to_path_buf())
    } else {
        eprintln!("skipped {test}: ../shared/realdata is not there");
        None
    }
}

/// (catalog path relative to realdata, opm validate accepts it, has skipRange).
const CATALOGS: &[(&str, bool, bool)] = &[
    // The v4.16 and v4.20 fragments define the same packages twice.
    ("community-fbc-small", false, false),
    ("community-fbc-small/v4.16", true, false),
    ("community-fbc-small/v4.20", true, false),
    ("redhat-catalog-excerpts/jaeger-product", true, true),
    (
        "redhat-catalog-excerpts/aws-load-balancer-operator",
        true,
        false,
    ),
    (
        "redhat-catalog-excerpts/node-observability-operator",
        true,
        false,
    ),
    (
        "redhat-catalog-excerpts/node-observability-operator-v4.14",
        true,
        true,
    ),
    (
        "redhat-catalog-excerpts/cluster-kube-descheduler-operator-v4.16",
        true,
        true,
    ),
    (
        "redhat-catalog-excerpts/cluster-kube-descheduler-operator-v4.20",
        true,
        true,
    ),
    // Channels alpha and beta of package test have several heads.
    (
        "olmv1-e2e-test-catalog/catalogs/test-catalog/v1/configs",
        false,
        false,
    ),
    (
        "olmv1-e2e-test-catalog/catalogs/test-catalog/v2/configs",
        true,
        false,
    ),
    ("opm-diff-oracle/index-declcfgs/old", true, true),
    ("opm-diff-oracle/index-declcfgs/latest", true, true),
    ("opm-diff-oracle/index-declcfgs/exp-latest", true, true),
    ("opm-diff-oracle/index-declcfgs/exp-headsonly", true, true),
    ("opm-diff-oracle/index-declcfgs/exp-include-pkg", true, true),
    (
        "opm-diff-oracle/index-declcfgs/exp-include-channel",
        true,
        true,
    ),
    ("opm-diff-oracle/list-index", true, true),
    ("opm-diff-oracle/foo-index-v0.2.0-declcfg", true, true),
    ("opm-diff-oracle/fbc-dir-file-based-catalog", true, false),
    ("opm-diff-oracle/catalogd-test-catalog", true, false),
];

mod realdata {
    use super::*;

    #[test]
    fn loads_every_catalog() {
        let Some(root) = realdata("loads_every_catalog") else {
            return;
        };
        for (rel, valid, _) in CATALOGS {
            if !valid {
                // Only the duplicate-package union; linking problems expected.
                let e = load(&root.join(rel), &PackageFilter::All);
                if rel.starts_with("community") {
                    assert!(
                        matches!(e, Err(crate::catalog::Error::Link { .. })),
                        "{rel}"
                    );
                    continue;
                }
            }
            let path = root.join(rel);
            let dc = loader::load(&path, &PackageFilter::All)
                .unwrap_or_else(|e| panic!("{rel}: {e}: {:?}", std::error::Error::source(&e)));
            assert!(!dc.packages.is_empty(), "{rel}");
            let (cat, problems) =
                super::super::link::build(dc, &super::super::link::BuildOptions::default())
                    .unwrap();
            assert!(problems.is_empty(), "{rel}: {problems:?}");
            assert!(!cat.packages.is_empty());
            assert_eq!(
                cat.digest().unwrap(),
                super::super::content_digest(&path).unwrap(),
                "{rel}"
            );
            let loaded = load(&path, &PackageFilter::All).unwrap();
            assert_eq!(loaded.packages.len(), cat.packages.len());
        }
    }

    fn parity(with_skip_range: bool) {
        let root = realdata("parity").unwrap();
        for (rel, valid, has_range) in CATALOGS {
            if *has_range != with_skip_range {
                continue;
            }
            let report = validate::validate_path(&root.join(rel), &Options::default()).unwrap();
            assert_eq!(report.is_valid(), *valid, "{rel}:\n{report}");
        }
    }

    /// Verdict parity with `opm validate` on catalogs without skipRange.
    #[test]
    fn opm_validate_parity_without_skip_range() {
        if realdata("opm_validate_parity_without_skip_range").is_some() {
            parity(false);
        }
    }

    /// Verdict parity with `opm validate` on catalogs with skipRange (blang parser).
    #[test]
    fn opm_validate_parity_with_skip_range() {
        if realdata("opm_validate_parity_with_skip_range").is_some() {
            parity(true);
        }
    }

    #[test]
    fn olmv1_v1_multi_head_is_an_error_and_a_warning_for_olm_v1() {
        let Some(root) = realdata("olmv1_v1_multi_head") else {
            return;
        };
        let path = root.join("olmv1-e2e-test-catalog/catalogs/test-catalog/v1/configs");
        let report = validate::validate_path(&path, &Options::default()).unwrap();
        let errors: Vec<String> = report.errors().map(|p| p.to_string()).collect();
        assert!(
            errors
                .iter()
                .any(|e| e.contains("channel \"alpha\"") && e.contains("multiple channel heads")),
            "{report}"
        );
        assert!(
            errors.iter().all(|e| e.contains("multiple channel heads")),
            "{report}"
        );
        let lenient = validate::validate_path(&path, &Options::olm_v1()).unwrap();
        assert!(lenient.is_valid(), "{lenient}");
        assert!(lenient.warnings().count() >= 2);
        // Loading works on multi-head channels.
        let cat = load(&path, &PackageFilter::All).unwrap();
        let test = cat.package("test").unwrap();
        assert!(graph::heads(test.channel("alpha").unwrap()).len() > 1);
    }

    /// oc-mirror's heads-only expectation: the heads of every channel of `latest` are exactly
    /// the bundles of `exp-headsonly`.
    #[test]
    fn opm_diff_heads_only_matches_exp_headsonly() {
        let Some(root) = realdata("opm_diff_heads_only") else {
            return;
        };
        let latest = load(
            &root.join("opm-diff-oracle/index-declcfgs/latest"),
            &PackageFilter::All,
        )
        .unwrap();
        let expected = loader::load(
            &root.join("opm-diff-oracle/index-declcfgs/exp-headsonly"),
            &PackageFilter::All,
        )
        .unwrap();
        let mut heads: Vec<(String, String)> = latest
            .packages
            .iter()
            .flat_map(|p| {
                p.channels.iter().flat_map(move |c| {
                    graph::heads(c)
                        .into_iter()
                        .map(move |h| (p.name.clone(), h.to_owned()))
                })
            })
            .collect();
        // oc-mirror also keeps the dependencies of the heads (the file's comments say so:
        // "Added because foo.v0.3.1 depends on Bar, test.bar/v1alpha1"): every bundle that
        // provides a GVK a head requires.
        let required: Vec<_> = heads
            .iter()
            .flat_map(|(p, b)| {
                latest
                    .package(p)
                    .and_then(|p| p.bundle(b))
                    .map(|b| b.required_gvks().unwrap())
                    .unwrap_or_default()
            })
            .collect();
        for p in &latest.packages {
            for b in &p.bundles {
                if b.provided_gvks()
                    .unwrap()
                    .iter()
                    .any(|g| required.contains(g))
                {
                    heads.push((p.name.clone(), b.name.clone()));
                }
            }
        }
        heads.sort();
        heads.dedup();
        let mut want: Vec<(String, String)> = expected
            .bundles
            .iter()
            .map(|b| (b.item.package.clone(), b.item.name.clone()))
            .collect();
        want.sort();
        assert_eq!(heads, want);
    }

    /// catalogd's `expected_all.json` is the JSON lines form of its `catalog.yaml`.
    #[test]
    fn catalogd_expected_all_equals_catalog_yaml() {
        let Some(root) = realdata("catalogd_expected_all") else {
            return;
        };
        let dir = root.join("opm-diff-oracle/catalogd-test-catalog");
        let from_yaml = loader::load(&dir.join("catalog.yaml"), &PackageFilter::All).unwrap();
        let from_json = loader::load(&dir.join("expected_all.json"), &PackageFilter::All).unwrap();
        let strip = |dc: &loader::DeclarativeConfig| {
            (
                dc.packages
                    .iter()
                    .map(|x| x.item.clone())
                    .collect::<Vec<_>>(),
                dc.channels
                    .iter()
                    .map(|x| x.item.clone())
                    .collect::<Vec<_>>(),
                dc.bundles
                    .iter()
                    .map(|x| x.item.clone())
                    .collect::<Vec<_>>(),
            )
        };
        assert_eq!(strip(&from_yaml), strip(&from_json));
        // The directory itself ignores expected_all.json through .indexignore.
        let whole = loader::load(&dir, &PackageFilter::All).unwrap();
        assert_eq!(whole.documents_read, 3);
        let files = files::catalog_files(&dir).unwrap();
        let names: Vec<&str> = files.files.iter().map(|(_, r)| r.as_str()).collect();
        assert_eq!(names, ["catalog.yaml"]);
    }

    #[test]
    fn package_filter_keeps_only_requested_packages() {
        let Some(root) = realdata("package_filter") else {
            return;
        };
        let path = root.join("community-fbc-small/v4.16");
        let only = PackageFilter::Only(vec!["kube-green".to_owned()]);
        let cat = load(&path, &only).unwrap();
        let names: Vec<&str> = cat.packages.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["kube-green"]);
        let all = load(&path, &PackageFilter::All).unwrap();
        assert_eq!(all.digest().unwrap(), cat.digest().unwrap());
        assert!(all.packages.len() > 1);
    }

    #[test]
    fn jaeger_build_metadata_and_bundle_objects() {
        let Some(root) = realdata("jaeger") else {
            return;
        };
        let cat = load(
            &root.join("redhat-catalog-excerpts/jaeger-product"),
            &PackageFilter::All,
        )
        .unwrap();
        let pkg = &cat.packages[0];
        assert!(
            pkg.bundles
                .iter()
                .any(|b| b.version.as_ref().is_some_and(|v| !v.build.is_empty()))
        );
        let b = &pkg.bundles[0];
        assert!(b.has_bundle_objects());
        let objs = b.bundle_objects().unwrap();
        assert!(objs.iter().any(|o| o["kind"] == "ClusterServiceVersion"));
    }
}

/// `olm.bundle.object` values stay in JSON files; the model reads them back.
mod lazy_bundle_objects {
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;

    use super::*;
    use crate::catalog::model::BundleObjectError;

    fn catalog(dir: &Path, data: &str, ext: &str) -> PathBuf {
        let csv =
            STANDARD.encode(r#"{"kind":"ClusterServiceVersion","metadata":{"name":"a.v1.0.0"}}"#);
        let text = format!(
            r#"{{"schema":"olm.package","name":"a","defaultChannel":"s"}}
{{"schema":"olm.channel","package":"a","name":"s","entries":[{{"name":"a.v1.0.0"}}]}}
{{"schema":"olm.bundle","package":"a","name":"a.v1.0.0","image":"","properties":[
  {{"type":"olm.package","value":{{"packageName":"a","version":"1.0.0"}}}},
  {{"type":"olm.bundle.object","value":{{"data":"{csv}"}}}},
  {{"type":"olm.bundle.object","value":{{"data":"{data}"}}}}]}}
"#
        );
        let text = if ext == "yaml" {
            // The same documents as YAML (flow style is YAML too).
            text.replace("}\n{", "}\n---\n{")
        } else {
            text
        };
        let path = dir.join(format!("catalog.{ext}"));
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn json_values_stay_in_the_file_and_read_back() {
        let d = tempfile::tempdir().unwrap();
        let crd = STANDARD.encode(r#"{"kind":"CustomResourceDefinition"}"#);
        let path = catalog(d.path(), &crd, "json");
        let cat = load(&path, &PackageFilter::All).unwrap();
        let b = &cat.packages[0].bundles[0];
        assert!(b.properties[1].value.in_file().is_some());
        assert!(b.has_bundle_objects());
        let kinds: Vec<_> = b
            .bundle_objects()
            .unwrap()
            .iter()
            .map(|o| o["kind"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(kinds, ["ClusterServiceVersion", "CustomResourceDefinition"]);
        assert_eq!(b.csv_object().unwrap()["metadata"]["name"], "a.v1.0.0");
        // Validation checks the values without keeping them.
        let report = validate::validate_path(&path, &Options::default()).unwrap();
        assert!(report.problems.is_empty(), "{report}");
        // The file changed under the catalog: an error, not wrong objects.
        std::fs::write(&path, "{}").unwrap();
        assert!(matches!(
            b.bundle_objects(),
            Err(super::super::Error::BundleObject {
                kind: BundleObjectError::Unreadable { .. },
                index: 1,
                ..
            })
        ));
    }

    #[test]
    fn yaml_values_stay_in_memory() {
        let d = tempfile::tempdir().unwrap();
        let crd = STANDARD.encode(r#"{"kind":"CustomResourceDefinition"}"#);
        let path = catalog(d.path(), &crd, "yaml");
        let cat = load(&path, &PackageFilter::All).unwrap();
        let b = &cat.packages[0].bundles[0];
        assert!(b.properties[1].value.in_file().is_none());
        assert_eq!(b.bundle_objects().unwrap().len(), 2);
    }

    #[test]
    fn invalid_base64_is_reported_as_before() {
        let d = tempfile::tempdir().unwrap();
        let json = catalog(d.path(), "e30", "json");
        let yaml = catalog(d.path(), "e30", "yaml");
        let lines = |p: &Path| {
            validate::validate_path(p, &Options::default())
                .unwrap()
                .problems
                .iter()
                .map(|p| p.to_string().replace("catalog.yaml", "catalog.json"))
                .map(|l| l.split(" (").next().unwrap().to_owned())
                .collect::<Vec<_>>()
        };
        let from_json = lines(&json);
        assert_eq!(from_json.len(), 1, "{from_json:?}");
        assert!(from_json[0].contains("property #2"), "{from_json:?}");
        assert_eq!(from_json, lines(&yaml));
    }
}

mod digest {
    use super::*;

    #[test]
    fn computed_on_first_use_and_equal_to_content_digest() {
        let dir = tempfile::tempdir().unwrap();
        let text = concat!(
            "schema: olm.package\nname: a\ndefaultChannel: s\n---\n",
            "schema: olm.channel\npackage: a\nname: s\nentries: [{name: a.v1}]\n---\n",
            "schema: olm.bundle\npackage: a\nname: a.v1\nimage: quay.io/a:1\n",
            "properties: [{type: olm.package, value: {packageName: a, version: 1.0.0}}]\n",
        );
        std::fs::write(dir.path().join("catalog.yaml"), text).unwrap();
        let cat = load(dir.path(), &PackageFilter::All).unwrap();
        assert!(
            cat.digest.lock().unwrap().is_none(),
            "loading does not hash"
        );
        let want = super::super::content_digest(dir.path()).unwrap();
        assert_eq!(cat.digest().unwrap(), want);
        assert_eq!(cat.digest.lock().unwrap().as_ref(), Some(&want));
    }
}

/// The fast YAML road (the fast reader's JSON text, decoded as a JSON file is) gives exactly
/// what serde-saphyr's road gives: every item, property value text and error message, in a
/// typed load and in a walk of the documents' JSON text.
mod fast_yaml_road {
    use std::path::Path;

    use super::{PackageFilter, realdata};
    use crate::catalog::{loader, read, yamlstream};

    /// The load of `path` under `filter`, fast road on or off, as text (`Debug` of the whole
    /// result, or the error).
    fn loaded(path: &Path, filter: &PackageFilter, fast: bool) -> String {
        yamlstream::set_fast_yaml(fast);
        let got = loader::load(path, filter);
        // The walk keeps each document as its routing keys and JSON text (`Meta`).
        let mut metas = Vec::new();
        let walked = read::walk(path, filter, |m| {
            metas.push(m);
            Ok(())
        });
        yamlstream::set_fast_yaml(true);
        let walked = match walked {
            Ok(digest) => format!("{digest} {metas:?}"),
            Err(e) => format!("error: {e}"),
        };
        match got {
            Ok(dc) => format!("{dc:?}\n{walked}"),
            Err(e) => format!("error: {e}\n{walked}"),
        }
    }

    #[track_caller]
    fn same_both_ways(path: &Path, filter: &PackageFilter) {
        let fast = loaded(path, filter, true);
        let slow = loaded(path, filter, false);
        assert_eq!(fast, slow, "{}", path.display());
    }

    #[test]
    fn on_every_real_catalog() {
        let Some(root) = realdata("fast YAML road on real catalogs") else {
            return;
        };
        for (rel, _, _) in super::CATALOGS {
            let path = root.join(rel);
            same_both_ways(&path, &PackageFilter::All);
            same_both_ways(
                &path,
                &PackageFilter::Only(vec!["jaeger-product".into(), "etcd".into()]),
            );
        }
    }

    #[test]
    fn on_documents_that_need_the_value() {
        let docs = [
            // Plain documents of every schema, an unknown schema and property values of
            // every kind (numbers, booleans, nulls inside, escapes, non-ASCII text).
            "schema: olm.package\nname: p\ndefaultChannel: stable\n",
            "schema: olm.channel\npackage: p\nname: stable\nentries:\n- name: p.v1.0.0\n",
            "schema: olm.bundle\npackage: p\nname: p.v1.0.0\nimage: quay.io/p@sha256:0\nproperties:\n- type: olm.package\n  value:\n    packageName: p\n    version: 1.0.0\n- type: olm.csv.metadata\n  value:\n    annotations:\n      a: \"tab\\there \\\"q\\\" é\"\n      n: 12\n      f: 1.5e3\n      b: yes\n      z: ~\n    description: |\n      line one\n      line two\n",
            "schema: acme.custom\nname: x\nanything:\n  deep: [ ]\n",
            "schema: olm.deprecations\npackage: p\nentries:\n- reference:\n    schema: olm.package\n  message: gone\n",
            // Routing keys late, in another case, or repeated in another case.
            "name: p2\nSchema: olm.package\n",
            "schema: olm.package\nname: p3\nSCHEMA: olm.package\n",
            // Wrong types and missing fields: errors worded by the value's road.
            "schema: olm.bundle\npackage: p\nname: p.v2\nproperties:\n- type: olm.package\n",
            "schema: olm.channel\npackage: p\nname: c\nentries: 5\n",
            "schema: 5\nname: x\n",
            "name: no-schema\n",
            "- a\n- b\n",
        ];
        let dir = tempfile::tempdir().unwrap();
        for (i, doc) in docs.iter().enumerate() {
            let path = dir.path().join(format!("c{i}.yaml"));
            std::fs::write(&path, doc).unwrap();
            same_both_ways(&path, &PackageFilter::All);
            same_both_ways(&path, &PackageFilter::Only(vec!["p".into()]));
            same_both_ways(&path, &PackageFilter::Only(vec!["q".into()]));
        }
        // All of them in one file, as one stream.
        let path = dir.path().join("all.yaml");
        std::fs::write(&path, docs[..5].join("---\n")).unwrap();
        same_both_ways(&path, &PackageFilter::All);
    }
}

/// `catalog validate` checks csv metadata as it reads it and keeps only the outcome; its
/// report is exactly the report of a load that keeps the values.
mod csv_metadata_checked_not_kept {
    use std::path::Path;

    use super::realdata;
    use super::validate::{self, Options};
    use crate::catalog::property::PropertyValue;
    use crate::catalog::{PackageFilter, loader};

    #[track_caller]
    fn same_report(path: &Path) {
        let checked = validate::validate_path(path, &Options::default()).map(|r| r.problems);
        let kept = validate::load_and_validate(path, &Options::default()).map(|(_, r)| r.problems);
        assert_eq!(
            format!("{checked:?}"),
            format!("{kept:?}"),
            "{}",
            path.display()
        );
    }

    /// A package is checked as soon as its file is read when all its blobs are in that file;
    /// spread over files, it is checked from all of them: the report is the same either way.
    #[test]
    fn on_packages_spread_over_files() {
        let dir = tempfile::tempdir().unwrap();
        let write =
            |rel: &str, text: &str| crate::catalog::tests::written::write(dir.path(), rel, text);
        let bundle = |p: &str, n: &str, image: &str| {
            format!(
                "schema: olm.bundle\npackage: {p}\nname: {n}\nimage: {image}\nproperties:\n- type: olm.package\n  value:\n    packageName: {p}\n    version: {}\n- type: olm.csv.metadata\n  value:\n    displayName: {n}\n",
                n.rsplit(".v").next().unwrap()
            )
        };
        // `p`: its package and channel in one file, its bundles and deprecations in others.
        write(
            "a/package.yaml",
            "schema: olm.package\nname: p\ndefaultChannel: c\n---\nschema: olm.channel\npackage: p\nname: c\nentries:\n- name: p.v1.0.0\n- name: p.v2.0.0\n  replaces: p.v1.0.0\n",
        );
        write(
            "b/bundles.yaml",
            &[
                bundle("p", "p.v1.0.0", "quay.io/p:1"),
                bundle("p", "p.v2.0.0", "quay.io/p:2"),
            ]
            .join("---\n"),
        );
        write(
            "b/deprecations.yaml",
            "schema: olm.deprecations\npackage: p\nentries:\n- reference:\n    schema: olm.bundle\n    name: p.v1.0.0\n  message: old\n",
        );
        // `q`: whole in one file, and once more (a duplicate) in another.
        let q = format!(
            "schema: olm.package\nname: q\ndefaultChannel: c\n---\nschema: olm.channel\npackage: q\nname: c\nentries:\n- name: q.v1.0.0\n---\n{}",
            bundle("q", "q.v1.0.0", "quay.io/q:1")
        );
        write("c/catalog.yaml", &q);
        write(
            "d/catalog.yaml",
            "schema: olm.package\nname: q\ndefaultChannel: d\n",
        );
        // `r`: whole in one file, with problems of its own; `z`: no package at all.
        write(
            "e/catalog.yaml",
            &format!(
                "schema: olm.package\nname: r\ndefaultChannel: c\n---\nschema: olm.channel\npackage: r\nname: c\nentries:\n- name: r.v1.0.0\n- name: r.v9.0.0\n---\n{}---\n{}",
                bundle("r", "r.v1.0.0", "not an image"),
                bundle("r", "r.v2.0.0", "quay.io/r:2")
            ),
        );
        write(
            "f/catalog.json",
            r#"{"schema":"olm.channel","package":"z","name":"c","entries":[]}"#,
        );
        same_report(dir.path());
        let report = validate::validate_path(dir.path(), &Options::default()).unwrap();
        let text = report.to_string();
        for expected in ["DuplicatePackage", "InvalidImage", "UnknownPackage"] {
            assert!(
                report
                    .problems
                    .iter()
                    .any(|p| format!("{:?}", p.kind).starts_with(expected)),
                "{expected}:\n{text}"
            );
        }
    }

    #[test]
    fn on_every_real_catalog() {
        let Some(root) = realdata("csv metadata checked on real catalogs") else {
            return;
        };
        for (rel, _, _) in super::CATALOGS {
            same_report(&root.join(rel));
        }
    }

    #[test]
    fn on_values_that_are_no_object() {
        let values = [
            r#"{"displayName":"A","n":12,"x":[1,{"y":null}]}"#,
            "5",
            r#""text""#,
            "[1,2]",
            "true",
            r#"{"big":1e400}"#,
            r#"{"s":"\ud800"}"#,
            "{}",
            "null",
        ];
        let dir = tempfile::tempdir().unwrap();
        for (i, v) in values.iter().enumerate() {
            let json = format!(
                concat!(
                    r#"{{"schema":"olm.package","name":"p","defaultChannel":"c"}}"#,
                    "\n",
                    r#"{{"schema":"olm.channel","package":"p","name":"c","entries":[{{"name":"p.v1.0.0"}}]}}"#,
                    "\n",
                    r#"{{"schema":"olm.bundle","package":"p","name":"p.v1.0.0","image":"quay.io/p:1","properties":[{{"type":"olm.package","value":{{"packageName":"p","version":"1.0.0"}}}},{{"value":{v},"type":"olm.csv.metadata"}}]}}"#,
                    "\n"
                ),
                v = v
            );
            let path = dir.path().join(format!("c{i}.json"));
            std::fs::write(&path, &json).unwrap();
            same_report(&path);
            // The same as YAML (the value as flow JSON goes to serde-saphyr; a block value
            // takes the fast road).
            let yaml = format!(
                "schema: olm.package\nname: p\ndefaultChannel: c\n---\nschema: olm.channel\npackage: p\nname: c\nentries:\n- name: p.v1.0.0\n---\nschema: olm.bundle\npackage: p\nname: p.v1.0.0\nimage: quay.io/p:1\nproperties:\n- type: olm.package\n  value:\n    packageName: p\n    version: 1.0.0\n- type: olm.csv.metadata\n  value: {v}\n- type: olm.csv.metadata\n  value:\n    displayName: B\n    keywords:\n    - a\n"
            );
            let path = dir.path().join(format!("c{i}.yaml"));
            std::fs::write(&path, &yaml).unwrap();
            same_report(&path);
        }
        // Loaded for validation, the valid value is not kept; for anything else it is.
        let path = dir.path().join("c0.json");
        let options = |keep| loader::LoadOptions {
            digest: false,
            lazy_bundle_objects: true,
            keep_csv_metadata: keep,
            lazy_documents: false,
        };
        let value = |keep| {
            let dc = loader::load_with(&path, &PackageFilter::All, &options(keep)).unwrap();
            dc.bundles[0].item.properties[1].value.clone()
        };
        assert_eq!(value(false), PropertyValue::Checked(Ok(())));
        assert_eq!(
            value(true).text(),
            Some(r#"{"displayName":"A","n":12,"x":[1,{"y":null}]}"#)
        );
    }
}

/// A catalog loaded for some packages is pinned by the files that held their documents:
/// another package's file may change, theirs may not, and a file that comes to hold one of
/// their documents counts.
#[test]
fn the_read_digest_covers_the_files_of_the_packages_read() {
    use written::write;
    let d = tempfile::tempdir().unwrap();
    let package = |p: &str| {
        format!(
            "{{\"schema\":\"olm.package\",\"name\":\"{p}\",\"defaultChannel\":\"s\"}}\n{{\"schema\":\"olm.channel\",\"package\":\"{p}\",\"name\":\"s\",\"entries\":[{{\"name\":\"{p}.v1\"}}]}}\n{{\"schema\":\"olm.bundle\",\"package\":\"{p}\",\"name\":\"{p}.v1\",\"image\":\"quay.io/{p}:v1\",\"properties\":[{{\"type\":\"olm.package\",\"value\":{{\"packageName\":\"{p}\",\"version\":\"1.0.0\"}}}}]}}\n"
        )
    };
    write(d.path(), "a/catalog.json", &package("a"));
    write(d.path(), "b/catalog.json", &package("b"));
    let deprecation = r#"{"schema":"olm.deprecations","package":"a","entries":[{"reference":{"schema":"olm.package"},"message":"gone"}]}"#;
    write(d.path(), "c/deprecations.json", deprecation);
    let only_a = PackageFilter::Only(vec!["a".into()]);
    let read = |filter: &PackageFilter| load(d.path(), filter).unwrap().read_digest().unwrap();
    let first = read(&only_a);
    // The whole catalog: every file held a document.
    let all = load(d.path(), &PackageFilter::All).unwrap();
    assert_eq!(all.read_digest().unwrap(), all.digest().unwrap());
    assert_ne!(first, all.digest().unwrap());
    // Another package's file changes: the same.
    write(
        d.path(),
        "b/catalog.json",
        &package("b").replace("1.0.0", "1.0.1"),
    );
    assert_eq!(read(&only_a), first);
    // A file of its own changes, its deprecation included: another.
    write(
        d.path(),
        "c/deprecations.json",
        &deprecation.replace("gone", "going"),
    );
    let second = read(&only_a);
    assert_ne!(second, first);
    // A new file holding one of its documents: another.
    write(
        d.path(),
        "d/more.json",
        r#"{"schema":"olm.channel","package":"a","name":"t","entries":[{"name":"a.v1"}]}"#,
    );
    assert_ne!(read(&only_a), second);
    // A load that hashes every file (a `sha256:` pin) has the read digest from the same
    // hashes, before anyone asks: the same as the files read again give.
    let pinned = super::load_and_digest(d.path(), &only_a).unwrap();
    let kept = pinned.read_digest.lock().unwrap().clone();
    assert_eq!(kept.as_deref(), Some(read(&only_a).as_str()));
    assert_eq!(pinned.read_digest().unwrap(), read(&only_a));
    assert_eq!(
        pinned.digest().unwrap(),
        super::content_digest(d.path()).unwrap()
    );
    assert!(
        load(d.path(), &only_a)
            .unwrap()
            .read_digest
            .lock()
            .unwrap()
            .is_none()
    );
    // A single-file catalog read for one of its packages: the file's own sha256, as whole.
    let single = d.path().join("a/catalog.json");
    let one = load(&single, &only_a).unwrap();
    assert_eq!(one.read_digest().unwrap(), one.digest().unwrap());
    let one = super::load_and_digest(&single, &only_a).unwrap();
    assert_eq!(one.read_digest().unwrap(), one.digest().unwrap());
}

/// Small catalogs written for a test: a file writer, the two documents most tests start from,
/// and a load of one file's text.
pub(crate) mod written {
    use std::path::Path;

    use crate::catalog::loader::{DeclarativeConfig, load};
    use crate::catalog::{Error, PackageFilter};

    /// Write `text` to `dir/rel`, creating its directories.
    pub(crate) fn write(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// Name and line of every package, channel and bundle, sorted.
    pub(crate) fn names(dc: &DeclarativeConfig) -> Vec<(String, usize)> {
        let mut v: Vec<(String, usize)> = dc
            .packages
            .iter()
            .map(|p| (p.item.name.clone(), p.origin.line))
            .chain(
                dc.channels
                    .iter()
                    .map(|c| (c.item.name.clone(), c.origin.line)),
            )
            .chain(
                dc.bundles
                    .iter()
                    .map(|b| (b.item.name.clone(), b.origin.line)),
            )
            .collect();
        v.sort();
        v
    }

    /// Load `text` written as file `name`.
    pub(crate) fn load_text(name: &str, text: &str) -> Result<DeclarativeConfig, Error> {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), name, text);
        load(&dir.path().join(name), &PackageFilter::All)
    }

    /// A package `a` with default channel `s`.
    pub(crate) const P: &str = r#"{"schema":"olm.package","name":"a","defaultChannel":"s"}"#;
    /// Channel `s` of package `a` with one entry.
    pub(crate) const C: &str =
        r#"{"schema":"olm.channel","package":"a","name":"s","entries":[{"name":"a.v1"}]}"#;
}
