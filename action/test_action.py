"""Runs action.yml's steps locally the way the GitHub runner runs a composite action.

For each scenario: a fresh workspace (the working directory), the runner's environment variables
(GITHUB_ACTION_PATH, GITHUB_WORKSPACE, RUNNER_TEMP, GITHUB_STEP_SUMMARY, GITHUB_PATH, a
GITHUB_OUTPUT file per step), `${{ inputs.* }}` and `${{ steps.*.outputs.* }}` substituted in each
step's `env`, `if:` evaluated (`always()`, `success()`, `&&`, `||`, `==`), directories written
to GITHUB_PATH prepended to PATH for the following steps, and a composite action's rule that a
failed step skips every later step without `always()`. A `uses: actions/upload-artifact` step
cannot run here: its `path` must exist and hold files (its `if-no-files-found: error`).

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
    def __init__(self, inputs, outputs, failed):
        self.inputs, self.outputs, self.failed = inputs, outputs, failed

    def value(self, ref):
        parts = ref.split(".")
        if parts[0] == "inputs" and len(parts) == 2:
            if parts[1] not in self.inputs:
                raise SystemExit(f"action.yml refers to undeclared input {parts[1]!r}")
            return self.inputs[parts[1]]
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            return self.outputs.get(parts[1], {}).get(parts[3], "")
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


def run_action(action, inputs, tmp):
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
    base_env.update(
        GITHUB_ACTION_PATH=ROOT,
        GITHUB_WORKSPACE=ws,
        RUNNER_TEMP=runner_temp,
        GITHUB_STEP_SUMMARY=summary,
        GITHUB_PATH=path_file,
        # Reuse the repository's build (cargo install --path builds into it).
        CARGO_TARGET_DIR=os.path.join(ROOT, "target"),
    )
    ctx = Ctx(values, {}, False)
    log = []
    for i, step in enumerate(action["runs"]["steps"]):
        name = step.get("name", f"step {i}")
        if not ctx.condition(step.get("if")):
            log.append((name, "skipped"))
            continue
        if "uses" in step:
            if not step["uses"].startswith("actions/upload-artifact@"):
                raise SystemExit(f"{name}: cannot emulate {step['uses']}")
            path = os.path.join(ws, ctx.substitute(step["with"]["path"]))
            files = sorted(os.listdir(path)) if os.path.isdir(path) else []
            if not files:
                log.append((name, "failed: no files to upload"))
                ctx.failed = True
            else:
                log.append((name, "would upload " + ", ".join(files)))
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
        "report_dir": os.path.join(ws, values["report-dir"]),
    }


def check(cond, what, result):
    if not cond:
        print(f"FAIL: {what}")
        for name, line in result["log"]:
            print(f"  [{name}] {line}")
        sys.exit(1)


def main():
    with open(os.path.join(ROOT, "action.yml")) as f:
        action = yaml.safe_load(f)
    assert action["runs"]["using"] == "composite"
    for step in action["runs"]["steps"]:
        for script in re.findall(r"\$GITHUB_ACTION_PATH/([\w./-]+)", step.get("run", "")):
            assert os.path.isfile(os.path.join(ROOT, script)), f"action.yml runs missing {script}"
    common = {"cargo-install-flags": "--debug"}
    node = shutil.which("node")
    if node:
        failing = {"impl": f"node {ROOT}/harness/adapters/redteam/js-hasty/adapter.js",
                   "args": "--area dct --area glob"}
    else:
        failing = {"impl": f"python3 {ROOT}/harness/adapters/redteam/py-hasty/adapter.py",
                   "args": "--area glob"}
    scenarios = [
        ("the built-in reference passes", {"impl": "delegateos-conform reference-adapter"}, 0),
        ("a defective implementation fails the job after the reports are uploaded", failing, 1),
        ("an adapter that cannot start is a setup error", {"impl": "exit 7",
                                                           "upload-artifacts": "false"}, 3),
    ]
    for title, inputs, want in scenarios:
        tmp = tempfile.mkdtemp(prefix="delegateos-action-")
        try:
            r = run_action(action, {**common, **inputs}, tmp)
            code = r["outputs"].get("exit-code")
            check(code == str(want), f"{title}: exit-code output {code!r}, want {want}", r)
            check(r["failed"] == (want != 0), f"{title}: action failed={r['failed']}", r)
            check(r["summary"].strip() != "", f"{title}: the job summary is empty", r)
            d = r["report_dir"]
            if want in (0, 1):
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
                check(("would upload" in dict(r["log"]).get(
                    "Upload the JUnit, HTML and JSON reports", "")), f"{title}: no upload", r)
            print(f"ok: {title} (exit-code {code}, job {'failed' if r['failed'] else 'passed'}, "
                  f"summary {len(r['summary'])} bytes)")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
