#!/usr/bin/env bash
# Parses the BlueField CI recipes (ci/bluefield/*.yml) with PyYAML and checks
# that each runs the doctor with its requirements, keeps the JSON, and runs
# the tests in hardware mode on a runner labelled for a DPA. They cannot run
# here (no BlueField), so this is their test.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=python3
# The system python has python3-yaml (apt); a pyenv shim in front may not.
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
"$py" - "$root/ci/bluefield" <<'PY'
import pathlib, sys
import yaml

d = pathlib.Path(sys.argv[1])
doctor = "doca-doctor --require hardware --require dpa --json"

def fail(msg):
    sys.exit(f"check-ci-recipes: FAIL: {msg}")

def text_of(node):
    if isinstance(node, dict):
        return "\n".join(text_of(v) for v in node.values())
    if isinstance(node, list):
        return "\n".join(text_of(v) for v in node)
    return str(node)

gh = yaml.safe_load((d / "github-actions.yml").read_text())
if not isinstance(gh, dict) or "jobs" not in gh:
    fail("github-actions.yml has no jobs")
# YAML 1.1 reads the key `on` as True.
if "on" not in gh and True not in gh:
    fail("github-actions.yml has no triggers")
for name, job in gh["jobs"].items():
    labels = job.get("runs-on")
    if not isinstance(labels, list) or not {"self-hosted", "bluefield", "dpa"} <= set(labels):
        fail(f"job {name}: runs-on {labels!r} lacks self-hosted/bluefield/dpa")
    if job.get("env", {}).get("DOCA_BACKEND") != "hardware":
        fail(f"job {name}: DOCA_BACKEND is not hardware")
    steps = job.get("steps", [])
    runs = [s.get("run", "") for s in steps]
    order = [i for i, r in enumerate(runs) if doctor in r] + [i for i, r in enumerate(runs) if "cargo test" in r]
    if len(order) != 2 or order[0] > order[1]:
        fail(f"job {name}: the doctor must run once, before the tests")
    uploads = [s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact")]
    if not uploads or uploads[0].get("if") != "always()" or "doca-doctor.json" not in text_of(uploads[0]):
        fail(f"job {name}: the doctor's JSON is not always kept")
    if "DOCA_TEST_DEVICE" not in text_of(job):
        fail(f"job {name}: DOCA_TEST_DEVICE is not passed")

gl = yaml.safe_load((d / "gitlab-ci.yml").read_text())
jobs = {k: v for k, v in gl.items() if isinstance(v, dict) and "script" in v}
if not jobs:
    fail("gitlab-ci.yml has no job")
for name, job in jobs.items():
    if not {"bluefield", "dpa"} <= set(job.get("tags", [])):
        fail(f"job {name}: tags {job.get('tags')!r} lack bluefield/dpa")
    if job.get("variables", {}).get("DOCA_BACKEND") != "hardware":
        fail(f"job {name}: DOCA_BACKEND is not hardware")
    script = "\n".join(job["script"])
    if doctor not in script or "cargo test" not in script or script.index(doctor) > script.index("cargo test"):
        fail(f"job {name}: the doctor must run before the tests")
    art = job.get("artifacts", {})
    if art.get("when") != "always" or "doca-doctor.json" not in art.get("paths", []):
        fail(f"job {name}: the doctor's JSON is not always kept")
    if "DOCA_TEST_DEVICE" not in script:
        fail(f"job {name}: DOCA_TEST_DEVICE is not handled")
print("check-ci-recipes: ok (github-actions.yml, gitlab-ci.yml)")
PY
