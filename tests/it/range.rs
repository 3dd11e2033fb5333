//! `po-manifests range`.

use crate::common::cmd;

#[test]
fn masterminds_is_the_default() {
    let out = cmd()
        .args([
            "range",
            ">=1.12.0 <1.14.0",
            "1.12.0",
            "1.14.0",
            "1.13.0-rc.1",
            "v1.13.0",
        ])
        .assert()
        .success();
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout),
        "1.12.0\ttrue\n1.14.0\tfalse\n1.13.0-rc.1\tfalse\nv1.13.0\tinvalid\n"
    );
}

#[test]
fn blang_reads_prereleases_plainly() {
    let out = cmd()
        .args([
            "range",
            "--grammar",
            "blang",
            ">=4.1.0 <4.2.0",
            "4.2.0-rc.1",
            "4.1.5",
        ])
        .assert()
        .success();
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout),
        "4.2.0-rc.1\ttrue\n4.1.5\ttrue\n"
    );
}

#[test]
fn a_bad_range_exits_1_with_nothing_on_stdout() {
    let out = cmd()
        .args(["range", ">=1.0.0,,<2", "1.5.0"])
        .assert()
        .code(1);
    let o = out.get_output();
    assert!(o.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains(">=1.0.0,,<2"), "{stderr}");
    assert!(stderr.contains('^'), "{stderr}");
}

/// `-o json|yaml` prints the same verdicts as one document, wherever `-o` stands: before the
/// range it is a flag, not the range, and after the versions it is a flag, not a version.
#[test]
fn output_json_and_yaml_wherever_the_flag_stands() {
    for args in [
        vec!["range", "-o", "json", ">=1.0.0 <2.0.0", "1.2.0", "v1"],
        vec!["range", ">=1.0.0 <2.0.0", "-o", "json", "1.2.0", "v1"],
        vec!["range", ">=1.0.0 <2.0.0", "1.2.0", "v1", "--output", "json"],
    ] {
        let out = cmd().args(&args).assert().success();
        let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        assert_eq!(doc["range"], ">=1.0.0 <2.0.0", "{args:?}");
        assert_eq!(doc["grammar"], "masterminds");
        let versions = doc["versions"].as_array().unwrap();
        assert_eq!(versions.len(), 2, "{args:?}: {doc}");
        assert_eq!(versions[0]["version"], "1.2.0");
        assert_eq!(versions[0]["matches"], true);
        assert!(versions[0].get("invalid").is_none());
        assert_eq!(versions[1]["version"], "v1");
        assert_eq!(versions[1]["matches"], false);
        assert!(versions[1]["invalid"].as_str().unwrap().contains("v1"));
    }
    let out = cmd()
        .args([
            "range",
            "-o",
            "yaml",
            "--grammar",
            "blang",
            ">=4.1.0",
            "4.2.0",
        ])
        .assert()
        .success();
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout),
        "range: \">=4.1.0\"\ngrammar: blang\nversions:\n- version: \"4.2.0\"\n  matches: true\n"
    );
}

/// A version that begins with `-` is given after `--`; the range itself may begin with `-` and
/// is then refused as a range.
#[test]
fn hyphen_values_need_the_separator_for_versions_only() {
    let out = cmd()
        .args(["range", ">=1.0.0", "--", "-1.0.0"])
        .assert()
        .success();
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout),
        "-1.0.0\tinvalid\n"
    );
    cmd().args(["range", ">=1.0.0", "-1.0.0"]).assert().code(2);
    let out = cmd().args(["range", "-x", "1.0.0"]).assert().code(1);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("invalid range \"-x\""));
}

/// `-o wide` is the table with why an invalid version does not parse, never JSON.
#[test]
fn wide_output_is_the_table_with_reasons() {
    let out = cmd()
        .args(["range", "-o", "wide", ">=1.0.0 <2.0.0", "1.2.0", "v1"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "1.2.0\ttrue", "{text}");
    assert!(
        lines[1].starts_with("v1\tinvalid\t") && lines[1].len() > "v1\tinvalid\t".len(),
        "{text}"
    );
    assert!(!text.contains('{'), "{text}");
}
