//! Tests of the parent module.

use super::*;
use crate::testutil::TempDir;
use crate::version::DocaVersion;

#[test]
fn a_claim_is_a_modelled_release_and_unset_is_the_newest() {
    assert_eq!(parse_claim("3.0").unwrap(), DocaVersion::new(3, 0, 1));
    assert_eq!(parse_claim(" 3.2\n").unwrap(), DocaVersion::new(3, 2, 1));
    assert_eq!(parse_claim("").unwrap(), DocaVersion::new(3, 3, 1));
    let env = EnvReader::fixed(Vec::<(String, String)>::new());
    assert_eq!(claim(&env).unwrap(), DocaVersion::new(3, 3, 1));
    assert!(env.was_read(SIM_VERSION_VAR));
}

#[test]
fn anything_else_is_refused_naming_the_releases() {
    for bad in ["2.9", "3.4", "3.0.0058", "3", "latest", "3.00"] {
        let e = parse_claim(bad).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains(&format!("{bad:?}")), "{msg}");
        assert!(msg.contains("3.0, 3.1, 3.2, 3.3"), "{msg}");
        assert!(msg.contains("DOCA_SIM_VERSION"), "{msg}");
    }
    let env = EnvReader::fixed([(SIM_VERSION_VAR, "3.9")]);
    assert_eq!(claim(&env).unwrap_err().value, "3.9");
}

fn sim_dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../doca-sim")
        .join(sub)
}

#[test]
fn the_copy_of_the_sim_headers_says_the_claim() {
    let tmp = TempDir::new("claim");
    let made = claimed_headers(
        &sim_dir("include"),
        &sim_dir("device-include"),
        tmp.path(),
        DocaVersion::new(3, 0, 1),
    )
    .unwrap();
    let v = DocaVersion::from_header_file(&made.include.join("doca_version.h")).unwrap();
    assert_eq!(v, DocaVersion::new(3, 0, 1));
    let text = std::fs::read_to_string(made.include.join("doca_version.h")).unwrap();
    assert!(
        text.contains("#define DOCA_VERSION_STRING \"3.0.0001\"\n"),
        "{text}"
    );
    let dev = std::fs::read_to_string(made.device_include.join("doca_dpa_dev.h")).unwrap();
    assert!(dev.contains("#define DOCA_SIM_DEV_RELEASE 300\n"));
    // Every header is there, the others unchanged.
    for (from, to) in [
        (sim_dir("include"), &made.include),
        (sim_dir("device-include"), &made.device_include),
    ] {
        for e in std::fs::read_dir(&from).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "h") {
                let name = p.file_name().unwrap();
                let copy = std::fs::read_to_string(to.join(name)).unwrap();
                if name != "doca_version.h" && name != "doca_dpa_dev.h" {
                    assert_eq!(copy, std::fs::read_to_string(&p).unwrap(), "{name:?}");
                }
            }
        }
    }
    // Made again for another claim: the new one, nothing left of the old.
    let again = claimed_headers(
        &sim_dir("include"),
        &sim_dir("device-include"),
        tmp.path(),
        DocaVersion::new(3, 2, 1),
    )
    .unwrap();
    let v = DocaVersion::from_header_file(&again.include.join("doca_version.h")).unwrap();
    assert_eq!(v, DocaVersion::new(3, 2, 1));
}

#[test]
fn a_header_without_the_version_lines_is_an_error() {
    let tmp = TempDir::new("claim-bad");
    tmp.write("inc/doca_version.h", "#define DOCA_VERSION_MAJOR 3\n");
    tmp.write("dev/doca_dpa_dev.h", "#define DOCA_SIM_DEV_RELEASE 303\n");
    let e = claimed_headers(
        &tmp.path().join("inc"),
        &tmp.path().join("dev"),
        &tmp.path().join("out"),
        DocaVersion::new(3, 1, 1),
    )
    .unwrap_err();
    assert!(
        e.contains("DOCA_VERSION_MINOR") && e.contains("found 0"),
        "{e}"
    );
    let e = claimed_headers(
        &tmp.path().join("dev"),
        &tmp.path().join("dev"),
        &tmp.path().join("out2"),
        DocaVersion::new(3, 1, 1),
    )
    .unwrap_err();
    assert!(e.contains("has no doca_version.h"), "{e}");
}
