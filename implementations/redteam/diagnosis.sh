#!/usr/bin/env bash
# Diagnosis accuracy over a red-team adapter's seeded bugs (issue 47), one bug at a time:
# for each bug, the findings its run adds to the careful path's (`REDTEAM_BUGS=`), each as
# severity letter, key (`fault:<id>` when the diagnosis names a catalogue fault; a trailing `?`
# marks a finding no fault explains) and case count. A long job (about 20 s per JavaScript bug,
# 7 s per Python bug on 2 cores), so it is not in CI; harness/tests/ground_truth.rs asserts
# the JavaScript adapters' seeded faults (SEEDED), harness/tests/redteam_py.rs py-hasty's
# (PY_SEEDED, with DELEGATEOS_LONG=1). py-proxy is an MCP proxy: its runs are the `mcp` suite
# (about 15 s per bug), diagnosed against the proxy faults' fingerprints over the suite
# (PY_PROXY_SEEDED in harness/tests/redteam_py.rs).
#
#   implementations/redteam/diagnosis.sh js-hasty|js-chain|js-checks|py-hasty|py-wrap|py-proxy [BUG,BUG,...]
set -euo pipefail
cd "$(dirname "$0")/../.."
name=${1:?usage: diagnosis.sh js-hasty|js-chain|js-checks|py-hasty|py-wrap|py-proxy [BUGS]}
case "$name" in
    js-checks) adapter="node implementations/redteam/js-checks/adapter.js"
          all=shared-instance,cache-by-id,regex-by-name ;;
    js-*) adapter="node implementations/redteam/$name/adapter.js"
          all=$(node -e "process.env.REDTEAM_BUGS=undefined; const s=require('fs').readFileSync('implementations/redteam/$name/adapter.js','utf8'); console.log([...s.match(/DEFAULT_BUGS = \[([\s\S]*?)\];/)[1].matchAll(/'([^']+)'/g)].map(m=>m[1]).join(','))") ;;
    py-hasty) adapter="python3 implementations/redteam/py-hasty/adapter.py"
          all=$(python3 -c "import re;s=open('implementations/redteam/py-hasty/hasty_dos.py').read();print(','.join(re.findall(r'\"([a-z0-9-]+)\",',re.search(r'BUG_NAMES = \[(.*?)\n\]',s,re.S).group(1))))") ;;
    py-wrap) adapter="python3 implementations/redteam/py-wrap/adapter.py ${CARGO_TARGET_DIR:-target}/debug/delegateos-conform reference-adapter"
          all=$(python3 -c "import re;s=open('implementations/redteam/py-wrap/adapter.py').read();print(','.join(re.findall(r'\"([a-z0-9-]+)\",',re.search(r'BUG_NAMES = \[(.*?)\n\]',s,re.S).group(1))))") ;;
    py-proxy) adapter="python3 implementations/redteam/py-proxy/proxy.py --config {config}"
          all=$(python3 -c "import re;s=open('implementations/redteam/py-proxy/proxy.py').read();print(','.join(re.findall(r'^    \"([a-z0-9-]+)\":',re.search(r'BUG_NAMES = \{(.*?)\n\}',s,re.S).group(1),re.M)))") ;;
    *) echo "unknown adapter $name" >&2; exit 2 ;;
esac
bugs=${2:-$all}
cargo build -q -p delegateos-conform
bin=${CARGO_TARGET_DIR:-target}/debug/delegateos-conform
run() {
    if [ "$name" = py-proxy ]; then
        "$bin" mcp --no-progress --format json --jobs 4 --proxy "$adapter"
    else
        "$bin" run --no-progress --format json --impl "$adapter"
    fi
}
careful=$(REDTEAM_BUGS= run 2>/dev/null \
    | python3 -c "import json,sys; print(json.dumps({f['key']:f['ids'] for f in json.load(sys.stdin)['findings']}))") || true
for bug in ${bugs//,/ }; do
    REDTEAM_BUGS=$bug run 2>/dev/null \
        | CAREFUL="$careful" BUG=$bug python3 -c "
import json, os, sys
careful = json.loads(os.environ['CAREFUL']); r = json.load(sys.stdin)
added = [f for f in r['findings'] if careful.get(f['key']) != f['ids']]
print(os.environ['BUG'], len(added), ' '.join('%s:%s%s(%d)' % (f['severity'][0], f['key'], '?' if f.get('unexplained') else '', len(f['ids'])) for f in added))
" || true
done
