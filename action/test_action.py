"""Runs action.yml's steps locally the way the GitHub runner runs a composite action.

For each scenario: a fresh workspace (the working directory), the runner's environment variables
(GITHUB_ACTION_PATH, GITHUB_WORKSPACE, RUNNER_TEMP, GITHUB_STEP_SUMMARY, GITHUB_PATH, a
GITHUB_OUTPUT file per step), `${{ inputs.* }}` and `${{ steps.*.outputs.* }}` substituted in each
step's `env`, `if:` evaluated (`always()`, `success()`, `&&`, `||`, `==`), directories written
to GITHUB_PATH prepended to PATH for the following steps, and a composite action's rule that a
failed step skips every later step without `always()`. `github`, `strategy` and `runner`
expressions come from a per-scenario context (a matrix job, or a single job). A `uses:
actions/upload-artifact` step cannot run here: its `path` must exist and hold files (its
`if-no-files-found: error`) and its name must be a valid artifact name, unique in the "workflow
run" (all scenarios). `actions/cache/restore` and `actions/cache/save` run against a local cache
directory shared by the scenarios, so a later scenario restores what an earlier one saved.

Before the scenarios: the exit codes that action.yml (`exit-code` output), action/verdict.sh (its
`case` arms) and action/README.md (its table) list must be exactly those harness/src/exit.rs
defines (its `ConformExitCode` constants and its `--help` table), so that they cannot drift.

Usage: python3 action/test_action.py   (from the repository root; needs PyYAML, see test.sh)
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


class Ctx:
    def __init__(self, inputs, outputs, failed, contexts):
        self.inputs, self.outputs, self.failed = inputs, outputs, failed
        self.contexts = contexts  # github, strategy, runner: {name: {key: value}}

    def value(self, ref):
        parts = ref.split(".")
        if parts[0] == "inputs" and len(parts) == 2:
            if parts[1] not in self.inputs:
                raise SystemExit(f"action.yml refers to undeclared input {parts[1]!r}")
            return self.inputs[parts[1]]
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            return self.outputs.get(parts[1], {}).get(parts[3], "")
        if parts[0] in self.contexts and len(parts) == 2:
            if parts[1] not in self.contexts[parts[0]]:
                raise SystemExit(f"action.yml refers to {ref!r}, which the runner does not set")
            return self.contexts[parts[0]][parts[1]]
        raise SystemExit(f"unsupported expression {ref!r}")

    def substitute(self, text):
        return EXPR.sub(lambda m: str(self.value(m.group(1))), str(text))

    def condition(self, expr):
        if expr is None:
            return not self.failed
        expr = EXPR.sub(lambda m: m.group(1), str(expr))
        tokens = re.findall(r"always\(\)|success\(\)|failure\(\)|&&|\|\||==|!=|'[^']*'|[\w.-]+", expr)
        py = []
        for t in tokens:
            if t == "always()":
                py.append("True")
            elif t == "success()":
                py.append(repr(not self.failed))
            elif t == "failure()":
                py.append(repr(self.failed))
            elif t in ("&&", "||"):
                py.append("and" if t == "&&" else "or")
            elif t in ("==", "!="):
                py.append(t)
            elif t.startswith("'"):
                py.append(repr(t[1:-1]))
            else:
                py.append(repr(self.value(t)))
        result = eval(" ".join(py), {"__builtins__": {}})  # noqa: S307 (our own tokens only)
        # A condition without a status function implies success() (GitHub's rule).
        if not any(f in expr for f in ("always()", "failure()", "success()")):
            result = result and not self.failed
        return result


# Characters actions/upload-artifact@v4 rejects in an artifact name.
ARTIFACT_NAME_FORBIDDEN = set('":<>|*?\\/\r\n')


def contexts_for(job, job_index=0, job_total=1, runner_temp=""):
    return {
        "github": {"job": job, "action_path": ROOT, "workspace": ""},
        "strategy": {"job-index": str(job_index), "job-total": str(job_total),
                     "fail-fast": "true", "max-parallel": str(job_total)},
        "runner": {"os": "Linux", "arch": "X64", "temp": runner_temp},
    }


def emulate_uses(step, ctx, ws, cache_dir, run_artifacts):
    """Runs a `uses:` step of the action here; returns (log line, outputs, failed)."""
    uses, w = step["uses"], step.get("with") or {}
    if uses.startswith("actions/upload-artifact@"):
        name = ctx.substitute(w.get("name", ""))
        if not name or set(name) & ARTIFACT_NAME_FORBIDDEN:
            return f"failed: invalid artifact name {name!r}", {}, True
        if name in run_artifacts:
            return f"failed: an artifact named {name!r} already exists in this run", {}, True
        path = os.path.join(ws, ctx.substitute(w["path"]))
        files = sorted(os.listdir(path)) if os.path.isdir(path) else []
        if not files:
            return "failed: no files to upload", {}, True
        run_artifacts.add(name)
        return f"would upload {', '.join(files)} as {name}", {}, False
    if uses.startswith(("actions/cache/restore@", "actions/cache/save@")):
        key, path = ctx.substitute(w["key"]), ctx.substitute(w["path"])
        if not key or "," in key or not os.path.isabs(path):
            return f"failed: cache key {key!r}, path {path!r}", {}, True
        entry = os.path.join(cache_dir, key)
        if uses.startswith("actions/cache/restore@"):
            if not os.path.isdir(entry):
                return f"cache miss: {key}", {"cache-hit": "false", "cache-primary-key": key}, False
            shutil.rmtree(path, ignore_errors=True)
            shutil.copytree(entry, path, symlinks=True)
            return f"cache hit: {key}", {"cache-hit": "true", "cache-primary-key": key,
                                         "cache-matched-key": key}, False
        if os.path.isdir(entry):  # the real action warns and goes on
            return f"cache {key} exists: not saved", {}, False
        if not os.path.isdir(path):
            return f"nothing at {path}: not saved", {}, False
        shutil.copytree(path, entry, symlinks=True)
        return f"saved {key}", {}, False
    raise SystemExit(f"{step.get('name')}: cannot emulate {uses}")


def run_action(action, inputs, tmp, cache_dir, run_artifacts, job="conformance", job_index=0,
               job_total=1):
    declared = action["inputs"]
    values = {k: str(v.get("default", "")) for k, v in declared.items()}
    for k, v in inputs.items():
        if k not in declared:
            raise SystemExit(f"scenario uses undeclared input {k!r}")
        values[k] = v
    missing = [k for k, v in declared.items() if v.get("required") and not values.get(k)]
    if missing:
        raise SystemExit(f"required inputs missing: {missing}")
    ws = os.path.join(tmp, "workspace")
    os.makedirs(ws, exist_ok=True)
    runner_temp = os.path.join(tmp, "runner-temp")
    os.makedirs(runner_temp, exist_ok=True)
    summary = os.path.join(tmp, "step-summary.md")
    path_file = os.path.join(tmp, "github-path")
    for f in (summary, path_file):
        open(f, "w").close()
    base_env = dict(os.environ)
    for k in ("ImageOS", "RUNNER_OS", "RUNNER_ARCH", "GITHUB_JOB"):
        base_env.pop(k, None)
    base_env.update(
        GITHUB_ACTION_PATH=ROOT,
        GITHUB_JOB=job,
        RUNNER_OS="Linux",
        RUNNER_ARCH="X64",
        GITHUB_WORKSPACE=ws,
        RUNNER_TEMP=runner_temp,
        GITHUB_STEP_SUMMARY=summary,
        GITHUB_PATH=path_file,
        # Reuse the repository's build (cargo install --path builds into it).
        CARGO_TARGET_DIR=os.path.join(ROOT, "target"),
    )
    ctx = Ctx(values, {}, False, contexts_for(job, job_index, job_total, runner_temp))
    log = []
    for i, step in enumerate(action["runs"]["steps"]):
        name = step.get("name", f"step {i}")
        if not ctx.condition(step.get("if")):
            log.append((name, "skipped"))
            continue
        if "uses" in step:
            line, outputs, failed = emulate_uses(step, ctx, ws, cache_dir, run_artifacts)
            if "id" in step:
                ctx.outputs[step["id"]] = outputs
            log.append((name, line))
            ctx.failed = ctx.failed or failed
            continue
        assert step.get("shell") == "bash", f"{name}: every run step says shell: bash"
        env = dict(base_env)
        extra_path = [l.strip() for l in open(path_file) if l.strip()]
        env["PATH"] = os.pathsep.join(list(reversed(extra_path)) + [base_env["PATH"]])
        for k, v in (step.get("env") or {}).items():
            env[k] = ctx.substitute(v)
        out_file = os.path.join(tmp, f"output-{i}")
        open(out_file, "w").close()
        env["GITHUB_OUTPUT"] = out_file
        proc = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=ws, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        outputs = dict(l.rstrip("\n").split("=", 1) for l in open(out_file) if "=" in l)
        if "id" in step:
            ctx.outputs[step["id"]] = outputs
        tail = "\n".join(proc.stdout.splitlines()[-3:])
        log.append((name, f"exit {proc.returncode}: {tail}"))
        if proc.returncode != 0:
            ctx.failed = True
    action_outputs = {k: ctx.substitute(v["value"]) for k, v in action.get("outputs", {}).items()}
    return {
        "failed": ctx.failed,
        "outputs": action_outputs,
        "summary": open(summary).read(),
        "log": log,
        "steps": ctx.outputs,
        "report_dir": os.path.join(ws, values["report-dir"]),
    }


def check(cond, what, result):
    if not cond:
        print(f"FAIL: {what}")
        for name, line in result["log"]:
            print(f"  [{name}] {line}")
        sys.exit(1)


def require(cond, what):
    if not cond:
        print(f"FAIL: {what}")
        sys.exit(1)


def check_exit_codes(action):
    """The codes action.yml, verdict.sh and action/README.md list are exit.rs's, name for name."""
    src = open(os.path.join(ROOT, "harness/src/exit.rs")).read()
    consts = {int(v): n for n, v in re.findall(r"pub const (\w+): i32 = (\d+);", src)}
    require(consts.get(0) == "OK", f"harness/src/exit.rs: no OK = 0 among {consts}")
    table = re.search(r'EXIT_CODES_HELP: &str = "(.*?)";', src, re.S)
    require(table, "harness/src/exit.rs: no EXIT_CODES_HELP table")
    help_codes = {int(c) for c in re.findall(r"^  (\d+)\s", table.group(1), re.M)}
    require(help_codes == set(consts),
            f"exit.rs: --help lists {sorted(help_codes)}, the constants are {sorted(consts)}")

    verdict = open(os.path.join(ROOT, "action/verdict.sh")).read()
    arms = re.findall(r"^\s*(\d+)\)", verdict, re.M)
    named = {int(c): n for c, n in re.findall(r"^\s*(\d+)\)\s*#\s*(\w+)\s*$", verdict, re.M)}
    require(len(arms) == len(named), "action/verdict.sh: every numeric arm names its constant")
    require(named == consts, f"action/verdict.sh maps {named}, harness/src/exit.rs defines {consts}")
    for code in consts:
        proc = subprocess.run(["bash", os.path.join(ROOT, "action/verdict.sh")],
                              env={**os.environ, "DELEGATEOS_EXIT_CODE": str(code)},
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        require(proc.returncode == code, f"verdict.sh exits {proc.returncode} for {code}")
        require("not one delegateos-conform documents" not in proc.stdout,
                f"verdict.sh calls the documented exit code {code} unexpected")

    desc = action["outputs"]["exit-code"]["description"]
    listed = [int(c) for c in re.findall(r"(?:^|[:;])\s*(\d+)\s", desc.split("exit.rs)", 1)[-1])]
    require(sorted(listed) == sorted(consts),
            f"action.yml exit-code output lists {listed}, harness/src/exit.rs defines {sorted(consts)}")

    readme = open(os.path.join(ROOT, "action/README.md")).read()
    rows = {int(c): n for c, n in re.findall(r"^\|\s*(\d+)\s*\|\s*`(\w+)`\s*\|", readme, re.M)}
    require(rows == consts, f"action/README.md's exit-code table has {rows}, exit.rs {consts}")
    top = open(os.path.join(ROOT, "README.md")).read()
    section = top.split("## In your CI (GitHub Action)", 1)[-1].split("\n## ", 1)[0]
    clause = re.search(r"`exit-code` \(([^)]*)\)", section)
    require(clause, "README.md's Action section: no `exit-code` (…) clause")
    top_codes = sorted(int(c) for c in re.findall(r"\b(\d+)\b", clause.group(1)))
    require(top_codes == sorted(consts),
            f"README.md's Action section lists exit codes {top_codes}, exit.rs {sorted(consts)}")
    print(f"ok: action.yml, verdict.sh, action/README.md and README.md list exit.rs's exit codes "
          f"{', '.join(f'{c} {n}' for c, n in sorted(consts.items()))}")


def prepare(tmp, **env):
    """Runs action/prepare.sh alone; returns its outputs."""
    out = os.path.join(tmp, "prepare-output")
    open(out, "w").close()
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DELEGATEOS_", "GITHUB_"))}
    proc = subprocess.run(["bash", os.path.join(ROOT, "action/prepare.sh")],
                          env={**base, "GITHUB_ACTION_PATH": ROOT, "GITHUB_OUTPUT": out,
                               "RUNNER_TEMP": tmp, **env},
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    require(proc.returncode == 0, f"prepare.sh failed: {proc.stdout}")
    return dict(l.rstrip("\n").split("=", 1) for l in open(out) if "=" in l)


def check_artifact_names():
    """The default artifact name differs between matrix jobs, jobs, and uses in one job."""
    tmp = tempfile.mkdtemp(prefix="delegateos-action-names-")
    try:
        a, b = "node conformance/adapter.mjs", "python3 conformance/adapter.py"
        cases = [dict(GITHUB_JOB="conformance", DELEGATEOS_IMPL=a, DELEGATEOS_JOB_INDEX=str(i),
                      DELEGATEOS_JOB_TOTAL="3") for i in range(3)]
        cases += [dict(GITHUB_JOB="conformance", DELEGATEOS_IMPL=i, DELEGATEOS_JOB_INDEX="0",
                       DELEGATEOS_JOB_TOTAL="1") for i in (a, b)]
        cases += [dict(GITHUB_JOB="conformance", DELEGATEOS_IMPL=a, DELEGATEOS_ARGS="--area glob",
                       DELEGATEOS_JOB_INDEX="0", DELEGATEOS_JOB_TOTAL="1"),
                  dict(GITHUB_JOB="other", DELEGATEOS_IMPL=a),
                  dict(GITHUB_JOB="x", DELEGATEOS_IMPL='sh -c "a|b" <in >out *?\\ :/')]
        outs = [prepare(tmp, **c) for c in cases]
        names = [o["artifact-name"] for o in outs]
        require(len(set(names)) == len(names), f"default artifact names collide: {names}")
        for n in names:
            require(not set(n) & ARTIFACT_NAME_FORBIDDEN and len(n) <= 200,
                    f"invalid artifact name {n!r}")
        require(prepare(tmp, **cases[0])["artifact-name"] == names[0], "artifact name not stable")
        given = prepare(tmp, DELEGATEOS_ARTIFACT_NAME="mine", **cases[0])["artifact-name"]
        require(given == "mine", f"the artifact-name input became {given!r}")
        keys = {o["cache-key"] for o in outs}
        require(len(keys) == 1, f"the cache key depends on the job or the impl: {keys}")
        other = {prepare(tmp, **cases[0], **e)["cache-key"] for e in (
            {"DELEGATEOS_CARGO_INSTALL_FLAGS": "--debug"}, {"DELEGATEOS_VERSION": "0.1.0"},
            {"RUNNER_ARCH": "ARM64"}, {"ImageOS": "ubuntu22"})}
        require(len(other | keys) == 5, f"flags, version, arch or image do not change the key")
        print(f"ok: default artifact names unique per matrix job, job and use ({names[0]}, …); "
              f"cache key {outs[0]['cache-key']}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    with open(os.path.join(ROOT, "action.yml")) as f:
        action = yaml.safe_load(f)
    assert action["runs"]["using"] == "composite"
    for step in action["runs"]["steps"]:
        for script in re.findall(r"\$GITHUB_ACTION_PATH/([\w./-]+)", step.get("run", "")):
            assert os.path.isfile(os.path.join(ROOT, script)), f"action.yml runs missing {script}"
    check_exit_codes(action)
    check_artifact_names()
    common = {"cargo-install-flags": "--debug"}
    node = shutil.which("node")
    if node:
        failing = {"impl": f"node {ROOT}/implementations/redteam/js-hasty/adapter.js",
                   "args": "--area dct --area glob"}
    else:
        failing = {"impl": f"python3 {ROOT}/implementations/redteam/py-hasty/adapter.py",
                   "args": "--area glob"}
    session = tempfile.mkdtemp(prefix="delegateos-action-run-")
    cache_dir = os.path.join(session, "cache")  # the repository's Actions cache
    os.makedirs(cache_dir)
    baseline = os.path.join(session, "known-failures.txt")
    with open(baseline, "w") as f:
        f.write("no-such-case-0000 an entry that matches no case makes the baseline stale\n")
    run_artifacts = set()  # artifact names already uploaded in this "workflow run"
    reference = "delegateos-conform reference-adapter"
    # (title, inputs, expected exit code, job: (id, matrix index, matrix size), expected cache)
    scenarios = [
        ("the built-in reference passes (matrix job 1 of 2: compiles, fills the cache)",
         {"impl": reference}, 0, ("conformance", 0, 2), "saved"),
        ("a defective implementation fails the job after the reports are uploaded "
         "(matrix job 2 of 2: restored from the cache)", failing, 1, ("conformance", 1, 2), "hit"),
        ("a stale expected-failures baseline fails the job (a named artifact)",
         {"impl": reference, "args": f"--area glob --expected-failures {baseline}",
          "artifact-name": "my-conformance-reports"}, 2, ("baseline", 0, 1), "hit"),
        ("a usage error in args", {"impl": reference, "args": "--no-such-flag",
                                   "upload-artifacts": "false"}, 64, ("usage", 0, 1), "hit"),
        ("an adapter that cannot start is a setup error (cache off)",
         {"impl": "exit 7", "upload-artifacts": "false", "cache": "false"}, 3,
         ("setup", 0, 1), "off"),
    ]
    keys = []
    try:
        for title, inputs, want, (job, index, total), cache in scenarios:
            tmp = tempfile.mkdtemp(prefix="delegateos-action-", dir=session)
            r = run_action(action, {**common, **inputs}, tmp, cache_dir, run_artifacts,
                           job=job, job_index=index, job_total=total)
            log = dict(r["log"])
            code = r["outputs"].get("exit-code")
            check(code == str(want), f"{title}: exit-code output {code!r}, want {want}", r)
            check(r["failed"] == (want != 0), f"{title}: action failed={r['failed']}", r)
            check(r["summary"].strip() != "", f"{title}: the job summary is empty", r)
            restore = log.get("Restore delegateos-conform from the cache", "")
            install = log.get("Install delegateos-conform", "")
            save = log.get("Save delegateos-conform to the cache", "")
            key = r["steps"]["prepare"]["cache-key"]
            if cache == "off":
                check(restore == save == "skipped", f"{title}: cache steps ran with cache off", r)
                check("restored from the cache" not in install, f"{title}: cache used", r)
            elif cache == "saved":
                check(restore.startswith("cache miss") and save.startswith("saved"),
                      f"{title}: the first job does not fill the cache", r)
                check(r["outputs"]["cache-hit"] != "true", f"{title}: cache-hit output", r)
            elif key in keys:  # (the checkout did not change under us since the last save)
                check(restore.startswith("cache hit") and save == "skipped"
                      and "restored from the cache" in install,
                      f"{title}: the binary was not restored from the cache", r)
                check(r["outputs"]["cache-hit"] == "true", f"{title}: cache-hit output", r)
            keys.append(key)
            d = r["report_dir"]
            if want in (0, 1, 2):
                for f in ("report.md", "junit.xml", "report.html", "report.json"):
                    check(os.path.getsize(os.path.join(d, f)) > 0, f"{title}: {f} empty", r)
                check(r["summary"] == open(os.path.join(d, "report.md")).read(),
                      f"{title}: the summary is the Markdown report", r)
                suites = ET.parse(os.path.join(d, "junit.xml")).getroot()
                failures = sum(int(s.get("failures", 0)) for s in suites.iter("testsuite"))
                report = json.load(open(os.path.join(d, "report.json")))
                check((failures > 0) == (want == 1), f"{title}: junit failures {failures}", r)
                check(bool(report.get("critical")) == (want == 1),
                      f"{title}: critical findings {len(report.get('critical', []))}", r)
                upload = log.get("Upload the JUnit, HTML and JSON reports", "")
                check("would upload" in upload, f"{title}: no upload", r)
                name = inputs.get("artifact-name") or f"delegateos-conformance-{job}"
                check(f" as {name}" in upload and r["outputs"]["artifact-name"] in upload,
                      f"{title}: artifact name", r)
            print(f"ok: {title} (exit-code {code}, job {'failed' if r['failed'] else 'passed'}, "
                  f"summary {len(r['summary'])} bytes, artifact "
                  f"{r['outputs']['artifact-name'] if inputs.get('upload-artifacts') != 'false' else 'none'}, "
                  f"{'cache off' if cache == 'off' else restore.split(':')[0]})")
    finally:
        shutil.rmtree(session, ignore_errors=True)


if __name__ == "__main__":
    main()
