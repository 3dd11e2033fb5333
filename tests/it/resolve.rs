//! `po-manifests resolve`: prints, writes nothing.

use crate::common::{cmd, example, tree};

#[test]
fn json_shape() {
    let dir = example();
    let out = cmd()
        .args(["resolve", "-o", "json", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let op = &v["operators"][0];
    for key in [
        "name", "package", "catalog", "bundle", "version", "image", "channels", "problems",
    ] {
        assert!(op.get(key).is_some(), "missing {key} in {op}");
    }
    assert_eq!(op["version"], "1.2.0");
    assert_eq!(op["channels"], serde_json::json!(["stable"]));
    assert!(!dir.path().join("manifests").exists());
}

#[test]
fn explain_lists_every_candidate() {
    let dir = example();
    let out = cmd()
        .args(["resolve", "--explain", "-o", "wide", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        stdout.contains("acme-cert-operator.v1.3.0-rc.1")
            && stdout.contains("not in channel stable"),
        "{stdout}"
    );
    assert!(
        stdout.contains("outranked by acme-cert-operator.v1.2.0"),
        "{stdout}"
    );
    insta::assert_snapshot!("resolve_explain", stdout);
}

#[test]
fn failure_sets_error_and_exit_1() {
    let dir = example();
    let config = dir.path().join("platform-operators.yaml");
    std::fs::write(
        &config,
        std::fs::read_to_string(&config)
            .unwrap()
            .replace(">=1.0.0 <2.0.0", ">=3.0.0"),
    )
    .unwrap();
    let before = tree(dir.path());
    let out = cmd()
        .args(["resolve", "-o", "json", "--dir"])
        .arg(dir.path())
        .assert()
        .code(1);
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert!(
        v["operators"][0]["error"]
            .as_str()
            .unwrap()
            .contains("no bundle"),
        "{v}"
    );
    assert_eq!(before, tree(dir.path()));
}

#[test]
fn without_cluster_version_warns_and_skips_cluster_fit() {
    let dir = example();
    let config = dir.path().join("platform-operators.yaml");
    std::fs::write(
        &config,
        std::fs::read_to_string(&config)
            .unwrap()
            .replace("  clusterVersion: \"4.14.8\"\n", ""),
    )
    .unwrap();
    // The cluster checks cannot run: named, and exit 1 unless --allow-unchecked.
    let out = cmd()
        .args(["resolve", "--dir"])
        .arg(dir.path())
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("not checked: the cluster checks"), "{err}");
    assert!(err.contains("--allow-unchecked"), "{err}");
    let out = cmd()
        .args(["resolve", "--allow-unchecked", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("no clusterVersion"), "{err}");
    assert!(err.contains("not checked: the cluster checks"), "{err}");
}

#[test]
fn yaml_output_reads_back_like_json() {
    let dir = example();
    let json = cmd()
        .args(["resolve", "-o", "json", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let yaml = cmd()
        .args(["resolve", "-o", "yaml", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let from_json: serde_json::Value = serde_json::from_slice(&json.get_output().stdout).unwrap();
    let from_yaml: serde_json::Value =
        serde_saphyr::from_str(&String::from_utf8_lossy(&yaml.get_output().stdout)).unwrap();
    assert_eq!(from_json, from_yaml);
}

/// One way to break the example install, for [`every_refusal_of_create_is_a_refusal_of_resolve`].
struct Broken {
    what: &'static str,
    config: fn(&str) -> String,
    install_config: fn(&str) -> String,
    /// Drop the cert operator's embedded bundle content, keeping only `olm.csv.metadata` (as
    /// catalogs from 4.17 on do).
    metadata_only: bool,
    args: &'static [&'static str],
}

fn same(t: &str) -> String {
    t.to_string()
}

fn on_4_18(t: &str) -> String {
    let t = t.replace("\"4.14.8\"", "\"4.18.3\"").replace(
        "    source: catalog\n",
        "    source: catalog\n    image: registry.example.com/acme/operator-index@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n",
    );
    t[..t.find("  - name: cloud-controller").unwrap()].to_string()
}

fn metadata_only(catalog: &std::path::Path) {
    let text = std::fs::read_to_string(catalog).unwrap();
    let docs: Vec<serde_json::Value> = serde_json::Deserializer::from_str(&text)
        .into_iter::<serde_json::Value>()
        .map(|d| d.unwrap())
        .map(|mut d| {
            if let Some(props) = d.get_mut("properties").and_then(|p| p.as_array_mut()) {
                props.retain(|p| p["type"] != "olm.bundle.object");
                props.push(serde_json::json!({"type": "olm.csv.metadata", "value": {
                    "installModes": [{"type": "AllNamespaces", "supported": true}]
                }}));
            }
            d
        })
        .collect();
    let text: Vec<String> = docs.iter().map(|d| d.to_string()).collect();
    std::fs::write(catalog, text.join("\n")).unwrap();
}

#[test]
fn every_refusal_of_create_is_a_refusal_of_resolve() {
    let cases = [
        Broken {
            what: "package not in the catalog",
            config: |t| t.replace("package: acme-cert-operator", "package: acme-cert-operatr"),
            install_config: same,
            metadata_only: false,
            args: &[],
        },
        Broken {
            what: "range matching nothing",
            config: |t| t.replace(">=1.0.0 <2.0.0", ">=2.0.0"),
            install_config: same,
            metadata_only: false,
            args: &[],
        },
        Broken {
            what: "olm.maxOpenShiftVersion below the target",
            config: |t| t.replace(">=1.0.0 <2.0.0", "=1.0.0"),
            install_config: same,
            metadata_only: false,
            args: &[],
        },
        Broken {
            what: "4.16 has no platform operator API",
            config: |t| t.replace("\"4.14.8\"", "\"4.16.3\""),
            install_config: same,
            metadata_only: false,
            args: &[],
        },
        Broken {
            what: "4.17 has no platform operator API",
            config: |t| t.replace("\"4.14.8\"", "\"4.17.1\""),
            install_config: same,
            metadata_only: false,
            args: &[],
        },
        Broken {
            what: "not OpenShift 4",
            config: |t| t.replace("\"4.14.8\"", "\"3.11.0\""),
            install_config: same,
            metadata_only: false,
            args: &[],
        },
        Broken {
            what: "PlatformOperator API without TechPreviewNoUpgrade",
            config: same,
            install_config: |t| t.replace("featureSet: TechPreviewNoUpgrade\n", ""),
            metadata_only: false,
            args: &[],
        },
        Broken {
            what: "DevPreviewNoUpgrade before 4.16",
            config: same,
            install_config: |t| t.replace("TechPreviewNoUpgrade", "DevPreviewNoUpgrade"),
            metadata_only: false,
            args: &[],
        },
        Broken {
            what: "unknown configuration key",
            config: |t| t.replace("    channel: stable", "    chanel: stable"),
            install_config: same,
            metadata_only: false,
            args: &[],
        },
        Broken {
            what: "catalog digest pin mismatch",
            config: |t| {
                t.replace(
                    "    source: catalog\n",
                    &format!("    source: catalog\n    sha256: \"{}\"\n", "0".repeat(64)),
                )
            },
            install_config: same,
            metadata_only: false,
            args: &[],
        },
        Broken {
            what: "images not covered by the mirror rules",
            config: same,
            install_config: |t| {
                format!(
                    "{t}imageDigestSources:\n- source: elsewhere.example.com/nothing\n  mirrors:\n  - mirror.example.com/nothing\n"
                )
            },
            metadata_only: false,
            args: &[],
        },
        Broken {
            what: "4.18 catalog without image that is no default ClusterCatalog",
            config: |t| {
                let t = on_4_18(t);
                let start = t.find("    image: registry.example.com").unwrap();
                let end = start + t[start..].find('\n').unwrap() + 1;
                format!("{}{}", &t[..start], &t[end..])
            },
            install_config: same,
            metadata_only: false,
            args: &[],
        },
        Broken {
            what: "4.18 bundle content that cannot be had offline",
            config: on_4_18,
            install_config: same,
            metadata_only: true,
            args: &["--offline"],
        },
    ];
    for case in cases {
        let dir = example();
        let config = dir.path().join("platform-operators.yaml");
        let text = std::fs::read_to_string(&config).unwrap();
        std::fs::write(&config, (case.config)(&text)).unwrap();
        let ic = dir.path().join("install-config.yaml");
        let text = std::fs::read_to_string(&ic).unwrap();
        std::fs::write(&ic, (case.install_config)(&text)).unwrap();
        if case.metadata_only {
            metadata_only(&dir.path().join("catalog/acme-cert-operator/catalog.json"));
        }
        let cache = tempfile::tempdir().unwrap();
        let before = tree(dir.path());
        let resolve = cmd()
            .arg("resolve")
            .args(case.args)
            .arg("--cache-dir")
            .arg(cache.path())
            .arg("--dir")
            .arg(dir.path())
            .output()
            .unwrap();
        assert_eq!(before, tree(dir.path()), "{}: resolve wrote", case.what);
        let create = cmd()
            .arg("create")
            .args(case.args)
            .arg("--cache-dir")
            .arg(cache.path())
            .arg("--dir")
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(
            !create.status.success(),
            "{}: create accepted it; the case is no refusal",
            case.what
        );
        assert!(
            !resolve.status.success(),
            "{}: create refuses (exit {:?}: {}), resolve exits 0:\n{}",
            case.what,
            create.status.code(),
            String::from_utf8_lossy(&create.stderr),
            String::from_utf8_lossy(&resolve.stderr)
        );
    }
}

#[test]
fn content_that_cannot_be_had_offline_is_named_and_allow_unchecked_accepts_it() {
    let dir = example();
    let config = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, on_4_18(&text)).unwrap();
    metadata_only(&dir.path().join("catalog/acme-cert-operator/catalog.json"));
    let cache = tempfile::tempdir().unwrap();
    let run = |extra: &[&str]| {
        cmd()
            .args(["resolve", "--offline", "-o", "json", "--cache-dir"])
            .arg(cache.path())
            .args(extra)
            .arg("--dir")
            .arg(dir.path())
            .output()
            .unwrap()
    };
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let unchecked = v["operators"][0]["unchecked"][0].as_str().unwrap();
    assert!(
        unchecked.starts_with(
            "bundle content checks for acme-cert-operator.v1.2.0 (conversion, webhooks, APIServices, dependencies)"
        ),
        "{unchecked}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not checked: operator \"cert-operator\""),
        "{err}"
    );
    assert!(err.contains("--allow-unchecked"), "{err}");
    // The closing line says what create does with it: it refuses, --allow-unchecked or not.
    assert!(
        err.contains("could not run, and create refuses an install it cannot check"),
        "{err}"
    );
    for extra in [&[][..], &["--allow-unchecked"]] {
        let create = cmd()
            .args(["create", "--offline", "--cache-dir"])
            .arg(cache.path())
            .args(extra)
            .arg("--dir")
            .arg(dir.path())
            .output()
            .unwrap();
        assert_eq!(create.status.code(), Some(3), "{extra:?}");
    }
    let out = run(&["--allow-unchecked"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!dir.path().join("manifests").exists());
}

/// Issue 22 part 1: a config of several hundred operators written as one line of JSON (as CI
/// systems write it) resolves exactly as the same config pretty-printed, and the diagnostics of
/// the operators that fail, whose labels sit far past column 65,535, are printed, not a panic.
#[test]
fn one_line_json_config_of_900_operators_resolves_like_the_pretty_one() {
    let dir = example();
    let operators: Vec<serde_json::Value> = (0..900)
        .map(|i| {
            if i % 150 == 149 {
                serde_json::json!({"name": format!("missing-{i}"), "package": "acme-no-such-package"})
            } else {
                serde_json::json!({
                    "name": format!("cert-operator-{i}"),
                    "package": "acme-cert-operator",
                    "channel": "stable",
                    "version": ">=1.0.0 <2.0.0"
                })
            }
        })
        .collect();
    let config = serde_json::json!({"platformOperators": {
        "clusterVersion": "4.14.8",
        "catalogs": [{"name": "redhat-operators", "source": "catalog"}],
        "operators": operators,
    }});
    let one_line = dir.path().join("one-line.json");
    let pretty = dir.path().join("pretty.yaml");
    std::fs::write(&one_line, serde_json::to_string(&config).unwrap()).unwrap();
    std::fs::write(&pretty, serde_json::to_string_pretty(&config).unwrap()).unwrap();
    let run = |config: &std::path::Path| {
        let out = cmd()
            .args(["resolve", "-o", "json", "--allow-unchecked", "--config"])
            .arg(config)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!stderr.contains("panicked"), "{stderr}");
        (
            serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap(),
            stderr,
        )
    };
    let (flat, flat_err) = run(&one_line);
    let (nice, _) = run(&pretty);
    assert_eq!(flat, nice);
    let failed: Vec<&serde_json::Value> = flat["operators"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["error"].is_string())
        .collect();
    assert_eq!(failed.len(), 6, "{flat}");
    assert_eq!(flat["operators"][0]["version"], "1.2.0");
    // Every failure is reported with its place in the one line, far past column 65,535.
    assert!(flat_err.contains("acme-no-such-package"), "{flat_err}");
    let last = "one-line.json:1:";
    let columns: Vec<usize> = flat_err
        .match_indices(last)
        .filter_map(|(i, _)| {
            flat_err[i + last.len()..]
                .split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse()
                .ok()
        })
        .collect();
    assert!(columns.iter().any(|&c| c > 65_535), "{flat_err}");
}

/// Issue 22 part 4: hints name our own commands, never a tool the user may not have.
#[test]
fn an_unknown_package_hint_names_our_own_command() {
    let dir = example();
    let config = dir.path().join("platform-operators.yaml");
    std::fs::write(
        &config,
        std::fs::read_to_string(&config).unwrap().replace(
            "package: acme-cert-operator",
            "package: acme-nothing-like-it",
        ),
    )
    .unwrap();
    let out = cmd()
        .args(["resolve", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("po-manifests catalog list packages"), "{err}");
    assert!(!err.contains("opm "), "{err}");
}

/// Issue 22 part 4: a release newer than the table knows is said, with whose rules are used.
#[test]
fn a_release_newer_than_known_is_said() {
    let dir = example();
    let out = cmd()
        .args([
            "resolve",
            "--allow-unchecked",
            "--cluster-version",
            "4.99.0",
            "--dir",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("OpenShift 4.99.0 is newer than the releases po-manifests knows"),
        "{err}"
    );
    assert!(err.contains("its rules are the ones used here"), "{err}");
}

/// Issue 22 part 4: a catalog snapshot built for another release than the target is said,
/// naming both; one for the same release is not.
#[test]
fn a_catalog_for_another_release_is_said() {
    let dir = example();
    std::fs::rename(dir.path().join("catalog"), dir.path().join("index-v4.20")).unwrap();
    let config = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("source: catalog", "source: index-v4.20");
    std::fs::write(&config, &text).unwrap();
    let out = cmd()
        .args(["resolve", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("looks built for OpenShift 4.20 (its source path segment index-v4.20), but the target release is 4.14.8"),
        "{err}"
    );
    let out = cmd()
        .args(["images", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("looks built for OpenShift 4.20"));
    let out = cmd()
        .args([
            "resolve",
            "--cluster-version",
            "4.20.1",
            "--allow-unchecked",
            "--dir",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("looks built"));
}
