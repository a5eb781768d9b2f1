#!/usr/bin/env python3
"""Fuzz campaigns over the kept corpora (fuzz/corpus/<target>.zip, committed).

    python3 fuzz/campaign.py run TARGETS MINUTES [--jobs N] [--no-build] [--note TEXT]
    python3 fuzz/campaign.py merge TARGET [DIR ...]   # merge DIRs into the kept corpus, minimize
    python3 fuzz/campaign.py check                     # archives: canonical bytes, names = SHA-1, caps
    python3 fuzz/campaign.py stats                     # files / bytes per kept corpus
    python3 fuzz/campaign.py unpack TARGET|all [--to DIR]  # extract; prints the directory
    python3 fuzz/campaign.py pack TARGET DIR           # write DIR's files as the kept archive

Storage: each kept corpus is ONE archive, fuzz/corpus/<target>.zip, in a canonical form that
pack() alone writes: entries stored (no compression: git's zlib and its deltas between
versions do the compressing, so a campaign adds to the history the inputs it changed, not the
whole archive), sorted by name, every name the SHA-1 of its contents, fixed timestamp
(1980-01-01), mode 0644, no directories, no extra fields. `check` re-packs every archive from
its entries and requires the same bytes. Tools read it with read_kept() (in memory) or
unpack() (a directory: fuzz/target/corpus/<target>/, gitignored, rewritten on every unpack;
libFuzzer, cargo fuzz coverage). tests/tests/fuzz_regressions.rs reads the archives directly.
    python3 fuzz/campaign.py flags|options|dict TARGET # libFuzzer flags / .options / dictionary

`run`: TARGETS is a comma-separated list (or `all`); each target runs MINUTES minutes as one
libFuzzer process, `--jobs` processes at a time (default: the number of cores), under
`nice -n 19`, from a copy of the built binary (so a rebuild by someone else cannot change the
binary under a running campaign). New inputs go to a temporary directory; the kept corpus
(unpacked into the work directory) and the curated seeds are read-only extra corpus
directories. Afterwards, per target:
  1. merge + minimize: libFuzzer `-merge=1` of (kept corpus, new inputs, curated seeds) into an
     empty directory — exactly what `cargo fuzz cmin` runs — which keeps the smallest input per
     coverage feature and names every file by the SHA-1 of its contents; the result is packed
     into the kept archive (pack());
  2. enforce the size cap (cap_of(target): CAP_BYTES, or CAPS for larger corpora): if the
     minimized corpus is larger, the largest files are dropped first (ties by name) until it
     fits, and the drop is printed with a warning (coverage was lost: raise the cap);
  3. append one row to fuzz/campaigns.tsv (the committed ledger):
     date, target, cpu_seconds (user+sys of the fuzzing process, from wait4), executions,
     features (libFuzzer `ft:`), edges (`cov:`), corpus_files, corpus_bytes (after merge),
     crashes (crash-/leak-/timeout-/oom- artifacts), note;
  4. render FUZZING.md (render_fuzzing.py).
Crash artifacts are copied to fuzz/artifacts/<target>/ (gitignored) for triage; see README.md
§ Regression workflow.

Everything a campaign writes into the repository is deterministic in its inputs: corpus entry
names are content hashes, an archive is a function of its entries, the ledger is append-only,
FUZZING.md is rendered from the ledger.
"""
import argparse
import datetime
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS = os.path.join(HERE, "corpus")
# Where unpack() extracts a kept corpus (gitignored with fuzz/target/).
UNPACKED = os.path.join(HERE, "target", "corpus")
SEEDS = os.path.join(HERE, "seeds")
LEDGER = os.path.join(HERE, "campaigns.tsv")
BIN_DIR = os.path.join(HERE, "target", "x86_64-unknown-linux-gnu", "release")
DICT = os.path.join(HERE, "dict", "token.dict")
LEDGER_HEADER = [
    "date", "target", "cpu_seconds", "executions", "features", "edges",
    "corpus_files", "corpus_bytes", "crashes", "note",
]

# Size cap of each kept corpus (documented in fuzz/README.md § Kept corpora): a backstop, never
# reached in a healthy corpus. A merge that ends above it drops inputs, and with them coverage,
# so a target that reaches it gets a larger cap here (ops and adapter_line reached 2 MiB and
# lost 6-9 % of their features before 2026-11-27).
CAP_BYTES = 2 * 1024 * 1024
CAPS = {"ops": 4 * 1024 * 1024, "adapter_line": 4 * 1024 * 1024}


def cap_of(target):
    """The size cap of `target`'s kept corpus."""
    return CAPS.get(target, CAP_BYTES)

# The cargo-fuzz targets (fuzz/Cargo.toml). Kept in sync by `check`.
TARGETS = [
    "token_decode", "glob", "subset", "canonical", "verify_chain", "revocation",
    "checks", "ops", "adapter_line", "protocol_reply", "mcp_line",
]

# libFuzzer flags of every run (ci.sh and oss-fuzz-build.sh read them through `flags`/`options`).
# Dictionary: fuzz/dict/<target>.dict if it exists, else fuzz/dict/token.dict.
COMMON_FLAGS = ["-timeout=2", "-rss_limit_mb=2048"]
EXTRA_FLAGS = {"verify_chain": ["-len_control=0", "-max_len=512"]}


def dictionary(target):
    own = os.path.join(HERE, "dict", target + ".dict")
    return own if os.path.exists(own) else DICT


def flags(target):
    return COMMON_FLAGS + EXTRA_FLAGS.get(target, []) + ["-dict=" + dictionary(target)]


# Campaigns run under `nice -n 19` on shared machines, where libFuzzer's wall-clock -timeout
# fires on CPU starvation, not slowness (a 140 ms input "timed out" at -timeout=2 under load 8).
# So a campaign uses a 10 s wall-clock limit and saves inputs slower than 2 s as slow-unit
# artifacts; triage() then re-runs every timeout/slow artifact at normal priority with the real
# limit (-timeout=2): only one that still exceeds it is a finding.
def campaign_flags(target):
    return [f for f in flags(target) if not f.startswith("-timeout=")] + [
        "-timeout=10", "-report_slow_units=2"]


def triage(exe, target, artifacts):
    """(confirmed findings, unconfirmed timeout/slow artifacts) of a campaign's artifacts."""
    confirmed, unconfirmed = 0, 0
    for f in corpus_files(artifacts):
        kind = f.split("-")[0]
        if kind in ("crash", "leak", "oom"):
            confirmed += 1
        elif kind in ("timeout", "slow"):
            r = subprocess.run([exe, "-timeout=2", "-rss_limit_mb=2048", "-runs=1",
                                os.path.join(artifacts, f)], capture_output=True)
            if r.returncode == 0:
                unconfirmed += 1
                print(f"  {target}: {f} does not reproduce at normal priority with -timeout=2 (starvation)")
            else:
                confirmed += 1
    return confirmed, unconfirmed


def options_file(target):
    """The ClusterFuzzLite/OSS-Fuzz `<target>.options` text (dictionary copied as <target>.dict)."""
    opts = {"timeout": "2", "rss_limit_mb": "2048", "max_len": "65536"}
    for f in EXTRA_FLAGS.get(target, []):
        k, v = f[1:].split("=", 1)
        opts[k] = v
    return "[libfuzzer]\n" + "".join(f"{k} = {opts[k]}\n" for k in sorted(opts)) + f"dict = {target}.dict\n"


def binary(target):
    return os.path.join(BIN_DIR, target)


def corpus_files(d):
    if not os.path.isdir(d):
        return []
    return sorted(f for f in os.listdir(d) if os.path.isfile(os.path.join(d, f)))


def archive(target):
    """The kept corpus of `target`: fuzz/corpus/<target>.zip."""
    return os.path.join(CORPUS, target + ".zip")


# The one fixed timestamp of every entry (the earliest a zip can hold).
ZIP_DATE = (1980, 1, 1, 0, 0, 0)


def pack_bytes(files):
    """The canonical archive of `files` ({name: bytes}): stored, sorted, fixed metadata."""
    import io
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED, allowZip64=False) as z:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_STORED
            info.create_system = 3  # Unix, whatever the host
            info.external_attr = 0o100644 << 16
            z.writestr(info, files[name])
    return buf.getvalue()


def pack(target, d):
    """Writes the files of directory `d` as `target`'s kept archive (atomically)."""
    files = {f: open(os.path.join(d, f), "rb").read() for f in corpus_files(d)}
    data = pack_bytes(files)
    os.makedirs(CORPUS, exist_ok=True)
    tmp = archive(target) + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, archive(target))
    return len(files), sum(len(v) for v in files.values())


def read_kept(target):
    """{name: bytes} of `target`'s kept archive ({} if there is none)."""
    path = archive(target)
    if not os.path.isfile(path):
        return {}
    with zipfile.ZipFile(path) as z:
        return {i.filename: z.read(i) for i in z.infolist()}


def unpack(target, dest=None):
    """Extracts `target`'s kept corpus into `dest` (default fuzz/target/corpus/<target>/),
    emptied first; returns the directory. Names are checked (SHA-1 hex), never trusted as paths."""
    dest = dest or os.path.join(UNPACKED, target)
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    for name, data in read_kept(target).items():
        if not re.fullmatch(r"[0-9a-f]{40}", name):
            raise SystemExit(f"{archive(target)}: entry {name!r} is not a SHA-1 name; run check")
        with open(os.path.join(dest, name), "wb") as f:
            f.write(data)
    return dest


def corpus_stats(target):
    files = read_kept(target)
    return len(files), sum(len(v) for v in files.values())


def enforce_cap(d, cap):
    """Drops the largest files (ties: by name) until the directory holds at most `cap` bytes."""
    files = [(os.path.getsize(os.path.join(d, f)), f) for f in corpus_files(d)]
    total = sum(s for s, _ in files)
    dropped = []
    for size, name in sorted(files, key=lambda x: (-x[0], x[1])):
        if total <= cap:
            break
        os.remove(os.path.join(d, name))
        total -= size
        dropped.append((name, size))
    return dropped


def merge(target, extra_dirs, exe=None, log=None):
    """Minimizes kept corpus ∪ extra_dirs ∪ curated seeds into the kept corpus (cmin)."""
    exe = exe or binary(target)
    with tempfile.TemporaryDirectory(prefix=f"cmin-{target}-") as tmp:
        kept = unpack(target, os.path.join(tmp, "kept"))
        inputs = [kept] + [d for d in extra_dirs if os.path.isdir(d)]
        seeds = os.path.join(SEEDS, target)
        if os.path.isdir(seeds):
            inputs.append(seeds)
        out = os.path.join(tmp, "out")
        os.mkdir(out)
        cmd = ["nice", "-n", "19", exe, "-merge=1", out] + inputs + flags(target) + [
            "-artifact_prefix=" + tmp + "/"]
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if log:
            with open(log, "ab") as f:
                f.write(r.stderr)
        if r.returncode != 0:
            sys.stderr.write(r.stderr.decode(errors="replace")[-4000:])
            raise SystemExit(f"merge of {target} failed (exit {r.returncode}); kept corpus unchanged")
        # libFuzzer names merged files by SHA-1; normalise anyway (and verify).
        staged = os.path.join(tmp, "staged")
        os.mkdir(staged)
        for f in corpus_files(out):
            data = open(os.path.join(out, f), "rb").read()
            with open(os.path.join(staged, hashlib.sha1(data).hexdigest()), "wb") as g:
                g.write(data)
        dropped = enforce_cap(staged, cap_of(target))
        for name, size in dropped:
            print(f"  cap: dropped {target}/{name} ({size} bytes)")
        if dropped:
            print(f"  WARNING: {target} reached its cap of {cap_of(target)} bytes and lost "
                  f"coverage with {len(dropped)} input(s); raise CAPS[{target!r}] in campaign.py")
        pack(target, staged)
    return corpus_stats(target)


STAT_RE = re.compile(r"^#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+)")


def parse_stats(log_text):
    execs = edges = feats = None
    for line in log_text.splitlines():
        m = STAT_RE.match(line)
        if m:
            edges, feats = int(m.group(2)), int(m.group(3))
        if line.startswith("stat::number_of_executed_units:"):
            execs = int(line.split(":")[-1])
    return execs, edges, feats


def append_ledger(row):
    new = not os.path.exists(LEDGER)
    with open(LEDGER, "a") as f:
        if new:
            f.write("\t".join(LEDGER_HEADER) + "\n")
        f.write("\t".join(str(row[k]) for k in LEDGER_HEADER) + "\n")


def build():
    env = dict(os.environ, RUSTC_BOOTSTRAP="1")
    subprocess.run(["cargo", "fuzz", "build", "-O", "--debug-assertions"], cwd=HERE, env=env, check=True)


def cmd_run(a):
    targets = TARGETS if a.targets == "all" else a.targets.split(",")
    for t in targets:
        if t not in TARGETS:
            raise SystemExit(f"unknown target {t!r} (known: {', '.join(TARGETS)})")
    if not a.no_build:
        build()
    seconds = int(round(float(a.minutes) * 60))
    work = tempfile.mkdtemp(prefix="fuzz-campaign-")
    print(f"campaign: {','.join(targets)} × {seconds}s, {a.jobs} at a time, work dir {work}")
    pending = list(targets)
    running = {}  # pid -> (target, proc, logfile)
    results = {}
    while pending or running:
        while pending and len(running) < a.jobs:
            t = pending.pop(0)
            tdir = os.path.join(work, t)
            for sub in ("new", "artifacts", "bin"):
                os.makedirs(os.path.join(tdir, sub))
            exe = os.path.join(tdir, "bin", t)
            shutil.copy2(binary(t), exe)
            extra = [unpack(t, os.path.join(tdir, "kept"))]
            if os.path.isdir(os.path.join(SEEDS, t)):
                extra.append(os.path.join(SEEDS, t))
            logf = open(os.path.join(tdir, "fuzz.log"), "wb")
            cmd = ["nice", "-n", "19", exe, os.path.join(tdir, "new")] + extra + campaign_flags(t) + [
                f"-max_total_time={seconds}", "-print_final_stats=1",
                "-artifact_prefix=" + os.path.join(tdir, "artifacts") + "/"]
            p = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT)
            running[p.pid] = (t, p, logf, time.time())
            print(f"  started {t} (pid {p.pid})", flush=True)
        pid, status, ru = os.wait4(-1, 0)
        if pid not in running:
            continue
        t, p, logf, t0 = running.pop(pid)
        logf.close()
        p.returncode = os.waitstatus_to_exitcode(status)
        results[t] = (ru.ru_utime + ru.ru_stime, p.returncode, time.time() - t0)
        print(f"  finished {t}: exit {p.returncode}, cpu {results[t][0]:.0f}s, wall {results[t][2]:.0f}s", flush=True)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
    failed = found = False
    for t in targets:
        tdir = os.path.join(work, t)
        cpu, rc, _ = results[t]
        log_text = open(os.path.join(tdir, "fuzz.log"), "rb").read().decode(errors="replace")
        execs, edges, feats = parse_stats(log_text)
        crashes, unconfirmed = triage(os.path.join(tdir, "bin", t), t, os.path.join(tdir, "artifacts"))
        if crashes or unconfirmed:
            dest = os.path.join(HERE, "artifacts", t)
            os.makedirs(dest, exist_ok=True)
            for f in corpus_files(os.path.join(tdir, "artifacts")):
                shutil.copy2(os.path.join(tdir, "artifacts", f), dest)
            print(f"  {t}: {crashes} finding(s), {unconfirmed} unconfirmed artifact(s) copied to fuzz/artifacts/{t}/; log {tdir}/fuzz.log")
        if not crashes and not unconfirmed and (rc != 0 or execs is None):
            # Not a campaign (bad flags, missing directory, killed): nothing to record or merge.
            print(f"  {t}: libFuzzer exited {rc} without an artifact or final stats; not recorded;"
                  f" log {tdir}/fuzz.log:\n" + "\n".join(log_text.splitlines()[-5:]))
            failed = True
            continue
        found = found or crashes > 0
        files, size = merge(t, [os.path.join(tdir, "new")], exe=os.path.join(tdir, "bin", t),
                            log=os.path.join(tdir, "merge.log"))
        append_ledger({
            "date": date, "target": t, "cpu_seconds": int(round(cpu)),
            "executions": execs if execs is not None else 0,
            "features": feats if feats is not None else 0,
            "edges": edges if edges is not None else 0,
            "corpus_files": files, "corpus_bytes": size, "crashes": crashes,
            "note": ((a.note or "").replace("\t", " ") or "-") + (
                f"; {unconfirmed} timeout/slow artifact(s) not reproduced at normal priority" if unconfirmed else ""),
        })
        print(f"  {t}: cpu {cpu:.0f}s, {execs} execs, ft {feats}, cov {edges}, kept corpus {files} files / {size} bytes, crashes {crashes}")
    subprocess.run([sys.executable, os.path.join(HERE, "render_fuzzing.py")], check=True)
    if not a.keep_work and not failed:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed or found else 0


def cmd_merge(a):
    files, size = merge(a.target, a.dirs)
    print(f"{a.target}: {files} files, {size} bytes")


def check_archive(target):
    """The errors of `target`'s kept archive: missing, empty, not canonical (re-packing its
    entries must give the same bytes), an entry not named by its SHA-1, over the cap."""
    path = archive(target)
    rel = os.path.relpath(path, ROOT)
    if not os.path.isfile(path):
        return [f"{rel} is missing"]
    errors = []
    try:
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
            files = {i.filename: z.read(i) for i in infos}
    except (zipfile.BadZipFile, OSError, ValueError) as e:
        return [f"{rel}: not a readable zip ({e})"]
    if not files:
        errors.append(f"{rel} is empty")
    if len(files) != len(infos):
        errors.append(f"{rel}: duplicate entry names")
    total = 0
    for name, data in files.items():
        total += len(data)
        if hashlib.sha1(data).hexdigest() != name:
            errors.append(f"{rel}: entry {name}: name is not the SHA-1 of its contents")
    if total > cap_of(target):
        errors.append(f"{rel}: {total} bytes > cap {cap_of(target)}")
    if open(path, "rb").read() != pack_bytes(files):
        errors.append(f"{rel}: not in canonical form (stored, sorted, fixed metadata); "
                      f"re-pack it: python3 fuzz/campaign.py unpack {target} && "
                      f"python3 fuzz/campaign.py pack {target} fuzz/target/corpus/{target}")
    return errors


def cmd_check(_a):
    """Fails if a kept corpus is missing or breaks a rule of check_archive, or if fuzz/corpus/
    holds anything but the targets' archives."""
    errors = []
    with open(os.path.join(HERE, "Cargo.toml")) as f:
        declared = re.findall(r'^name = "(\w+)"\npath = "fuzz_targets/', f.read(), re.M)
    if sorted(declared) != sorted(TARGETS):
        errors.append(f"campaign.py TARGETS {sorted(TARGETS)} != fuzz/Cargo.toml bins {sorted(declared)}")
    for t in TARGETS:
        errors += check_archive(t)
    extra = sorted(set(os.listdir(CORPUS)) - {t + ".zip" for t in TARGETS}) if os.path.isdir(CORPUS) else []
    for e in extra:
        errors.append(f"fuzz/corpus/{e}: not the archive of a fuzz target")
    for e in errors:
        print("corpus check: " + e)
    if errors:
        return 1
    print(f"corpus check: {len(TARGETS)} kept corpora (fuzz/corpus/<target>.zip, canonical), "
          f"names = SHA-1, each within its cap "
          f"({CAP_BYTES} bytes; {', '.join(f'{t} {c}' for t, c in sorted(CAPS.items()))})")
    return 0


def cmd_unpack(a):
    targets = TARGETS if a.target == "all" else [a.target]
    for t in targets:
        if t not in TARGETS:
            raise SystemExit(f"unknown target {t!r}")
        if not os.path.isfile(archive(t)):
            raise SystemExit(f"{archive(t)} is missing")
        dest = os.path.join(a.to, t) if a.to else None
        print(unpack(t, dest))


def cmd_pack(a):
    if a.target not in TARGETS:
        raise SystemExit(f"unknown target {a.target!r}")
    files, size = pack(a.target, a.dir)
    print(f"{os.path.relpath(archive(a.target), ROOT)}: {files} files, {size} bytes")


def cmd_stats(_a):
    for t in TARGETS:
        files, size = corpus_stats(t)
        print(f"{t}\t{files}\t{size}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("targets")
    r.add_argument("minutes")
    r.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    r.add_argument("--no-build", action="store_true")
    r.add_argument("--keep-work", action="store_true")
    r.add_argument("--note", default="")
    m = sub.add_parser("merge")
    m.add_argument("target")
    m.add_argument("dirs", nargs="*")
    sub.add_parser("check")
    sub.add_parser("stats")
    u = sub.add_parser("unpack")
    u.add_argument("target")
    u.add_argument("--to", default=None, help="extract into DIR/<target>/ instead")
    p = sub.add_parser("pack")
    p.add_argument("target")
    p.add_argument("dir")
    for name in ("flags", "options", "dict"):
        x = sub.add_parser(name)
        x.add_argument("target")
    a = ap.parse_args()
    if a.cmd in ("flags", "options", "dict"):
        if a.target not in TARGETS:
            raise SystemExit(f"unknown target {a.target!r}")
        if a.cmd == "flags":
            print("\n".join(flags(a.target)))
        elif a.cmd == "options":
            sys.stdout.write(options_file(a.target))
        else:
            print(dictionary(a.target))
        return 0
    return {"run": cmd_run, "merge": cmd_merge, "check": cmd_check, "stats": cmd_stats,
            "unpack": cmd_unpack, "pack": cmd_pack}[a.cmd](a) or 0


if __name__ == "__main__":
    sys.exit(main())
